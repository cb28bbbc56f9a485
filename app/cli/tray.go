package cli

import (
	"context"
	"log/slog"

	"github.com/metaclaw/metaclaw/app"
	"github.com/metaclaw/metaclaw/app/tray"
)

// runTray shows the tray icon until the person quits from it (done is
// closed) or ctx ends. Without a tray host it says so once and returns
// without closing done: MetaClaw runs on.
func runTray(ctx context.Context, a *app.App, log *slog.Logger, done chan<- struct{}) {
	if err := tray.Available(); err != nil {
		log.Info("running without a tray icon", "reason", err.Error())
		return
	}
	if tray.Run(ctx, trayControl{a}, log) {
		close(done)
	}
}

// trayControl adapts the app to the tray's narrow interface.
type trayControl struct{ a *app.App }

func (t trayControl) Status() tray.Status {
	st := t.a.Status()
	return tray.Status{Mode: st.Mode, ProxyURL: st.ProxyURL, TurnsToday: st.TurnsToday, Problems: st.Problems}
}
