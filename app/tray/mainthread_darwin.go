package tray

import (
	"errors"
	"sync/atomic"

	"fyne.io/systray"
)

// On macOS AppKit runs only on the main thread. systray's init locks the
// main goroutine to it; RunMain keeps that goroutine free to run the event
// loop when the tray asks (through mainFuncs), while the program runs on
// another goroutine.
var (
	mainFuncs  = make(chan func())
	mainActive atomic.Bool // RunMain is serving mainFuncs
)

var errNoMain = errors.New("the tray needs the main thread: main must call tray.RunMain")

// RunMain runs main on a new goroutine and serves the tray's event loop on
// the calling goroutine, which must be the program's main goroutine. It
// returns main's result.
func RunMain(main func() int) int {
	mainActive.Store(true)
	done := make(chan int, 1)
	go func() { done <- main() }()
	for {
		select {
		case f := <-mainFuncs:
			f()
		case code := <-done:
			return code
		}
	}
}

// runLoop runs systray's event loop on the main thread until Quit.
func runLoop(ready, exit func()) error {
	if !mainActive.Load() {
		return errNoMain
	}
	finished := make(chan struct{})
	mainFuncs <- func() {
		defer close(finished)
		systray.Run(ready, exit)
	}
	<-finished
	return nil
}
