package app

import (
	"context"
	"errors"

	"github.com/metaclaw/metaclaw/idle"
	"github.com/metaclaw/metaclaw/idle/windows"
	"github.com/metaclaw/metaclaw/web"
)

// startWindows builds the training windows (idle/windows) and runs them.
func (a *App) startWindows(ctx context.Context) {
	a.windows = windows.New(ctx, windows.Options{DB: a.db, Home: a.opts.Home, Config: a.Config,
		Paused: a.Paused, Logger: a.log})
	a.goService(ctx, "windows", a.windows.Serve)
}

// Scheduler returns the training-window scheduler, or nil when windows are
// off or the app is not started; see windows.Service.Scheduler.
func (a *App) Scheduler() *idle.Scheduler {
	if a.windows == nil {
		return nil
	}
	return a.windows.Scheduler()
}

// SchedulerStatus returns the training-window state.
func (a *App) SchedulerStatus() windows.State {
	if a.windows == nil {
		return windows.State{Calendar: "off", Paused: a.Paused(), Detail: windows.OffDetail(a.Config())}
	}
	return a.windows.Status()
}

// wakeScheduler makes the scheduler evaluate now (learning paused or
// resumed), so a window closes at once.
func (a *App) wakeScheduler() {
	if a.windows != nil {
		a.windows.Wake()
	}
}

// errNotStarted answers calendar requests before Start.
var errNotStarted = errors.New("google calendar: MetaClaw is not started")

// Windows reports the training-window state to the web page.
func (w webControl) Windows() web.WindowStatus {
	st := w.a.SchedulerStatus()
	return web.WindowStatus{Enabled: st.Enabled, Open: st.Open, Reason: st.Reason, Until: st.Until, Detail: st.Detail,
		IdleSource: st.IdleText(), Calendar: st.Calendar, CalendarConnected: st.CalendarConnected}
}

// ConnectCalendar starts the calendar's OAuth flow; see
// windows.Service.ConnectCalendar.
func (w webControl) ConnectCalendar(ctx context.Context) (string, error) {
	if w.a.windows == nil {
		return "", errNotStarted
	}
	return w.a.windows.ConnectCalendar(ctx)
}

// DisconnectCalendar revokes and deletes the calendar token.
func (w webControl) DisconnectCalendar(ctx context.Context) error {
	if w.a.windows == nil {
		return errNotStarted
	}
	return w.a.windows.DisconnectCalendar(ctx)
}
