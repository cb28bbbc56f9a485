//go:build !windows && !darwin

package autostart

import (
	"os"
	"path/filepath"
)

const (
	entryName = "metaclaw" // metaclaw.desktop
	iconName  = "metaclaw" // the hicolor icon the .deb installs
)

// location is where go-autostart writes the entry. Like go-autostart, it
// reads XDG_CONFIG_HOME once, when the program starts.
var location = func() string {
	dir := os.Getenv("XDG_CONFIG_HOME")
	if dir == "" {
		dir = filepath.Join(os.Getenv("HOME"), ".config")
	}
	return filepath.Join(dir, "autostart", entryName+".desktop")
}()

// Location names the login item: the autostart .desktop file.
func (e *Entry) Location() string { return location }
