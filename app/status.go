package app

import "github.com/metaclaw/metaclaw/app/control"

var _ control.App = (*App)(nil)

// Status returns the current state (control.Snapshot of the services).
// The app must be started.
func (a *App) Status() control.Status {
	return control.Snapshot(control.Sources{Config: a.Config(), ProxyURL: a.ProxyURL(), Started: a.started,
		Paused: a.Paused(), Restart: a.pendingRestart(), DB: a.db, Learning: a.learn, Proxy: a.proxy})
}
