//go:build !linux && !darwin

package tray

// Available reports nil: Windows always has a notification area.
func Available() error { return nil }
