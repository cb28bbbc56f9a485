//go:build !darwin

package tray

import (
	"runtime"

	"fyne.io/systray"
)

// RunMain runs main and returns its result. Call it from the program's main
// function: on macOS the tray's event loop must run on the main thread, and
// RunMain keeps the main goroutine for it while main runs on another one.
// Elsewhere the tray runs on any goroutine and RunMain just calls main,
// after, on Windows, giving a program started without a console (the
// -H windowsgui build) working standard output and error.
func RunMain(main func() int) int {
	prepareStdio()
	return main()
}

// runLoop runs systray's event loop until Quit. The loop stays on one OS
// thread: on Windows the tray's window and its message loop must share it.
func runLoop(ready, exit func()) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	systray.Run(ready, exit)
	return nil
}
