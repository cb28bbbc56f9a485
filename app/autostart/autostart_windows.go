package autostart

import (
	"errors"
	"fmt"

	"golang.org/x/sys/windows/registry"
)

// runKey holds the programs Windows starts when the user signs in.
const runKey = `Software\Microsoft\Windows\CurrentVersion\Run`

// valueName is the Run value; build/windows/installer.nsi uses the same.
const valueName = "MetaClaw"

// Enabled reports whether the Run value exists.
func (e *Entry) Enabled() bool {
	k, err := registry.OpenKey(registry.CURRENT_USER, runKey, registry.QUERY_VALUE)
	if err != nil {
		return false
	}
	defer k.Close()
	_, _, err = k.GetStringValue(valueName)
	return err == nil
}

// Enable writes the Run value, or points it at this entry's executable.
func (e *Entry) Enable() error {
	k, _, err := registry.CreateKey(registry.CURRENT_USER, runKey, registry.SET_VALUE)
	if err != nil {
		return fmt.Errorf("enable start at login: %w", err)
	}
	defer k.Close()
	if err := k.SetStringValue(valueName, `"`+e.exe+`"`); err != nil {
		return fmt.Errorf("enable start at login: %w", err)
	}
	return nil
}

// Disable deletes the Run value; it is not an error when there is none.
func (e *Entry) Disable() error {
	k, err := registry.OpenKey(registry.CURRENT_USER, runKey, registry.SET_VALUE)
	if errors.Is(err, registry.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("disable start at login: %w", err)
	}
	defer k.Close()
	if err := k.DeleteValue(valueName); err != nil && !errors.Is(err, registry.ErrNotExist) {
		return fmt.Errorf("disable start at login: %w", err)
	}
	return nil
}

// Location names the login item: the Run value.
func (e *Entry) Location() string { return `HKCU\` + runKey + `\` + valueName }
