//go:build !linux

package tray

// Available reports nil: Windows and macOS always have a tray.
func Available() error { return nil }
