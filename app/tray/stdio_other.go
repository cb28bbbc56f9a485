//go:build !windows

package tray

func prepareStdio() {}
