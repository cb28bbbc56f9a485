// Package tray is MetaClaw's tray icon and menu, a thin skin over the app
// core through the narrow Control interface. It is the only importer of
// fyne.io/systray. The menu's text is computed by pure functions (menu.go)
// so it can be table-tested without a desktop.
package tray

import (
	"context"
	"log/slog"
	"sync/atomic"

	"fyne.io/systray"
	"github.com/metaclaw/metaclaw/assets"
)

// Control is what the tray needs from the running app.
type Control interface {
	Status() Status
}

// Run shows the icon and menu until the person chooses Quit (it returns
// true) or ctx ends (it returns false). Call Available first: without a
// session bus systray would block for ever.
func Run(ctx context.Context, c Control, log *slog.Logger) (quit bool) {
	var quitClicked atomic.Bool
	ready := func() { onReady(ctx, c, log, &quitClicked) }
	exited := make(chan struct{})
	go func() {
		<-ctx.Done()
		systray.Quit()
	}()
	systray.Run(ready, func() { close(exited) })
	<-exited
	return quitClicked.Load()
}

func onReady(ctx context.Context, c Control, log *slog.Logger, quit *atomic.Bool) {
	st := c.Status()
	icon, err := assets.Icon(IconState(st), 64)
	if err == nil {
		systray.SetIcon(icon)
	}
	systray.SetTitle("MetaClaw")
	systray.SetTooltip(Tooltip(st))
	status := systray.AddMenuItem(StatusLine(st), "")
	status.Disable()
	systray.AddSeparator()
	quitItem := systray.AddMenuItem("Quit", "Stop MetaClaw")
	log.Info("tray icon shown")
	go func() {
		select {
		case <-quitItem.ClickedCh:
			quit.Store(true)
			systray.Quit()
		case <-ctx.Done():
		}
	}()
}
