package app

import (
	"context"

	"github.com/metaclaw/metaclaw/idle/windows"
)

// startWindows builds the training windows (idle/windows) and runs them.
func (a *App) startWindows(ctx context.Context) {
	a.windows = windows.New(ctx, windows.Options{DB: a.db, Home: a.opts.Home, Config: a.Config,
		Paused: a.Paused, Logger: a.log})
	a.goService(ctx, "windows", a.windows.Serve)
}

// SchedulerStatus returns the training-window state (the tray's and the
// web page's), and before Start the state of windows that are off.
func (a *App) SchedulerStatus() windows.State {
	if a.windows == nil {
		return windows.State{Calendar: "off", Paused: a.Paused(), Detail: windows.OffDetail(a.Config())}
	}
	return a.windows.Status()
}
