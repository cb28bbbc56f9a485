//go:build !windows

package autostart

import (
	"errors"
	"fmt"
	"io/fs"

	goautostart "github.com/emersion/go-autostart"
)

func (e *Entry) app() *goautostart.App {
	return &goautostart.App{Name: entryName, DisplayName: DisplayName, Exec: []string{e.exe}, Icon: iconName}
}

// Enabled reports whether the login item exists.
func (e *Entry) Enabled() bool { return e.app().IsEnabled() }

// Enable creates the login item, or points it at this entry's executable.
func (e *Entry) Enable() error {
	if err := e.app().Enable(); err != nil {
		return fmt.Errorf("enable start at login: %w", err)
	}
	return nil
}

// Disable removes the login item; it is not an error when there is none.
func (e *Entry) Disable() error {
	if err := e.app().Disable(); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("disable start at login: %w", err)
	}
	return nil
}
