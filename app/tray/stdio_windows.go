package tray

import (
	"os"

	"golang.org/x/sys/windows"
)

// prepareStdio points standard output and error at NUL when the process
// has none, as the GUI build (-H windowsgui) started from the Start menu or
// at sign-in has not. Writes to a missing handle fail, and a failing writer
// stops an io.MultiWriter before the log file gets the line.
func prepareStdio() {
	for _, s := range []struct {
		id uint32
		f  **os.File
	}{{windows.STD_OUTPUT_HANDLE, &os.Stdout}, {windows.STD_ERROR_HANDLE, &os.Stderr}} {
		h, err := windows.GetStdHandle(s.id)
		if err == nil && h != 0 && h != windows.InvalidHandle {
			continue
		}
		if null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0); err == nil {
			*s.f = null
		}
	}
}
