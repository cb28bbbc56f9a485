package windows

import (
	"context"
	"errors"

	"github.com/metaclaw/metaclaw/idle/calendar"
	"github.com/metaclaw/metaclaw/store/config"
)

// errNotServing is ConnectCalendar's answer while Serve does not run.
var errNotServing = errors.New("connect google calendar: the training-window service is not running")

// ConnectCalendar starts Google Calendar's OAuth flow with the stored
// settings (client secrets set on the settings page work without a
// restart) and returns the consent page's URL. The service waits for the
// browser to come back to its loopback listener, saves the token (0600)
// and refreshes the calendar signal; a newer connect replaces a pending
// one. It fails while Serve does not run.
func (s *Service) ConnectCalendar(ctx context.Context) (string, error) {
	c := s.cal
	set, err := s.storedCalendar(ctx)
	if err != nil {
		return "", err
	}
	if !c.serving() {
		return "", errNotServing
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
	base, old := c.ctx, c.pending
	if base == nil {
		c.mu.Unlock()
		p.Close()
		return "", errNotServing
	}
	c.pending = p
	c.wg.Add(1)
	c.mu.Unlock()
	if old != nil {
		old.Close()
	}
	go func() {
		defer c.wg.Done()
		c.waitConnect(base, p)
	}()
	return p.URL(), nil
}

// waitConnect waits until the browser finishes the flow p or ctx ends.
func (c *calendarSignal) waitConnect(ctx context.Context, p *calendar.PendingConnect) {
	_, err := p.Wait(ctx)
	c.mu.Lock()
	if c.pending == p {
		c.pending = nil
	}
	c.mu.Unlock()
	switch {
	case err == nil:
		c.log.Info("Google Calendar connected")
		c.poke()
	case ctx.Err() == nil:
		c.log.Warn("Google Calendar not connected", "err", err)
	}
}

// DisconnectCalendar revokes the calendar grant at Google, deletes the
// token file and clears the calendar signal's meetings.
func (s *Service) DisconnectCalendar(ctx context.Context) error {
	set, err := s.storedCalendar(ctx)
	if err != nil {
		return err
	}
	err = DisconnectCalendar(ctx, set, s.opts.Home, s.opts.Endpoints)
	s.cal.poke()
	if err == nil {
		s.log.Info("Google Calendar disconnected")
	}
	return err
}

// storedCalendar reads the calendar settings from the database, which may
// be newer than those in force.
func (s *Service) storedCalendar(ctx context.Context) (config.Calendar, error) {
	cfg, _, err := config.Load(ctx, s.opts.DB)
	return cfg.Scheduler.Calendar, err
}
