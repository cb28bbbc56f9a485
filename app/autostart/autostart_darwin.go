package autostart

import (
	"os"
	"path/filepath"
)

const (
	entryName = "com.metaclaw.metaclaw" // the LaunchAgent's label and file name
	iconName  = ""
)

var location = filepath.Join(os.Getenv("HOME"), "Library", "LaunchAgents", entryName+".plist")

// Location names the login item: the LaunchAgent's .plist file.
func (e *Entry) Location() string { return location }
