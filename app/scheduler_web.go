package app

import (
	"context"
	"errors"

	"github.com/metaclaw/metaclaw/idle/calendar"
	"github.com/metaclaw/metaclaw/store/config"
	"github.com/metaclaw/metaclaw/web"
)

// Windows reports the training-window state to the web page.
func (w webControl) Windows() web.WindowStatus {
	st := w.a.SchedulerStatus()
	return web.WindowStatus{Enabled: st.Enabled, Open: st.Open, Reason: st.Reason, Until: st.Until, Detail: st.Detail,
		IdleSource: st.IdleText(), Calendar: st.Calendar, CalendarConnected: st.CalendarConnected}
}

// ConnectCalendar starts the calendar's OAuth flow (see App.ConnectCalendar).
func (w webControl) ConnectCalendar(ctx context.Context) (string, error) {
	return w.a.ConnectCalendar(ctx)
}

// DisconnectCalendar revokes and deletes the calendar token.
func (w webControl) DisconnectCalendar(ctx context.Context) error { return w.a.DisconnectCalendar(ctx) }

// ConnectCalendar starts Google Calendar's OAuth flow with the stored
// settings (client secrets set on the settings page work without a
// restart) and returns the consent page's URL. The app waits for the
// browser to come back to its loopback listener, saves the token (0600)
// and refreshes the calendar signal; a newer connect replaces a pending one.
func (a *App) ConnectCalendar(ctx context.Context) (string, error) {
	c := a.sched.cal
	if c == nil {
		return "", errors.New("connect google calendar: MetaClaw is not started")
	}
	set, err := a.storedCalendar(ctx)
	if err != nil {
		return "", err
	}
	client, err := c.newClient(set)
	if err != nil {
		return "", err
	}
	p, err := client.StartConnect(ctx)
	if err != nil {
		return "", err
	}
	c.mu.Lock()
	old := c.pending
	c.pending = p
	c.mu.Unlock()
	if old != nil {
		old.Close()
	}
	a.wg.Add(1)
	go func() {
		defer a.wg.Done()
		c.waitConnect(p)
	}()
	return p.URL(), nil
}

// waitConnect waits for the browser to finish the flow p.
func (c *calendarSignal) waitConnect(p *calendar.PendingConnect) {
	_, err := p.Wait(c.ctx)
	c.mu.Lock()
	if c.pending == p {
		c.pending = nil
	}
	c.mu.Unlock()
	switch {
	case err == nil:
		c.log.Info("Google Calendar connected")
		c.poke()
	case c.ctx.Err() == nil:
		c.log.Warn("Google Calendar not connected", "err", err)
	}
}

// DisconnectCalendar revokes the calendar grant at Google, deletes the
// token file and clears the calendar signal's meetings.
func (a *App) DisconnectCalendar(ctx context.Context) error {
	set, err := a.storedCalendar(ctx)
	if err != nil {
		return err
	}
	err = DisconnectCalendar(ctx, set, a.opts.Home, a.sched.hooks.endpoints)
	if c := a.sched.cal; c != nil {
		c.poke()
	}
	if err == nil {
		a.log.Info("Google Calendar disconnected")
	}
	return err
}

// storedCalendar reads the calendar settings from the database, which may
// be newer than those in force.
func (a *App) storedCalendar(ctx context.Context) (config.Calendar, error) {
	cfg, _, err := config.Load(ctx, a.db)
	return cfg.Scheduler.Calendar, err
}
