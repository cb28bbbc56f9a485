package windows

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/metaclaw/metaclaw/idle"
	"github.com/metaclaw/metaclaw/idle/calendar"
	"github.com/metaclaw/metaclaw/store/config"
)

// TokenName is the calendar token file in the data directory when
// scheduler.calendar.token_path is empty.
const TokenName = "calendar-token.json"

// calendarHowTo says how to get client secrets.
const calendarHowTo = "in Google Cloud console enable the Google Calendar API, create an OAuth client ID of type " +
	"\"Desktop app\" (APIs & Services → Credentials), download its JSON and run " +
	"`metaclaw config set scheduler.calendar.credentials_path /path/to/client_secret.json`"

// ErrCalendarCredentials means the calendar's client secrets are not set
// or cannot be read; its message says how to get them.
var ErrCalendarCredentials = errors.New("google calendar client secrets missing")

// TokenPath is where the calendar token is kept:
// scheduler.calendar.token_path, else <home>/calendar-token.json.
func TokenPath(set config.Calendar, home string) string {
	if set.TokenPath != "" {
		return config.ExpandHome(set.TokenPath)
	}
	return filepath.Join(home, TokenName)
}

// CalendarConfig returns the connection settings of set: the client
// secrets at scheduler.calendar.credentials_path and the token at
// TokenPath. When the secrets path is unset or unreadable the error
// (ErrCalendarCredentials) says how to get one.
func CalendarConfig(set config.Calendar, home string) (calendar.Config, error) {
	path := config.ExpandHome(set.CredentialsPath)
	if path == "" {
		return calendar.Config{}, fmt.Errorf("%w: scheduler.calendar.credentials_path is not set; %s", ErrCalendarCredentials, calendarHowTo)
	}
	if _, err := os.Stat(path); err != nil {
		why := err.Error()
		if errors.Is(err, fs.ErrNotExist) {
			why = path + " does not exist"
		}
		return calendar.Config{}, fmt.Errorf("%w: %s; %s", ErrCalendarCredentials, why, calendarHowTo)
	}
	return calendar.Config{CredentialsPath: path, TokenPath: TokenPath(set, home)}, nil
}

// DisconnectCalendar revokes the stored calendar grant at Google and
// deletes the token file. Without usable client secrets it can only
// delete the file; the error then says where to remove access by hand.
func DisconnectCalendar(ctx context.Context, set config.Calendar, home string, ep calendar.Endpoints) error {
	cc, err := CalendarConfig(set, home)
	var c *calendar.Client
	if err == nil {
		cc.Endpoints = ep
		c, err = calendar.New(cc)
	}
	if err != nil {
		path := TokenPath(set, home)
		if _, serr := os.Stat(path); errors.Is(serr, fs.ErrNotExist) {
			return nil // nothing stored
		}
		if derr := calendar.DeleteToken(path); derr != nil {
			return derr
		}
		return fmt.Errorf("calendar token deleted but not revoked (%w); remove MetaClaw's access at https://myaccount.google.com/permissions", err)
	}
	return c.Disconnect(ctx)
}

// calendarSignal is the Google Calendar part of the training windows and
// the scheduler's BusySource. It follows scheduler.calendar.* (apply),
// running a calendar.Cache while the signal is on and its client secrets
// exist, and runs the connect flow the web page starts. Its goroutines
// run only between serve and the end of serve's context.
type calendarSignal struct {
	home      string
	config    func() config.Config // the configuration in force
	endpoints calendar.Endpoints
	log       *slog.Logger
	wg        sync.WaitGroup // the cache's and the connect flows' goroutines

	mu       sync.Mutex      // guards the fields below
	ctx      context.Context // serve's context; nil before serve
	applied  bool            // apply ran at least once
	set      config.Calendar // the settings last applied
	client   *calendar.Client
	cache    *calendar.Cache    // nil while the signal is off
	stop     context.CancelFunc // ends the cache's Serve; nil while it does not run
	problem  string             // why the signal is on but not running
	hadToken bool               // a token file was there at the last check
	pending  *calendar.PendingConnect
}

var _ idle.BusySource = (*calendarSignal)(nil)

// serve lets the signal run goroutines until ctx ends, starting the cache
// an earlier apply made; wait waits for them after that.
func (c *calendarSignal) serve(ctx context.Context) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ctx = ctx
	c.startCache()
}

// wait waits for the signal's goroutines once serve's context has ended;
// after it the signal starts no more.
func (c *calendarSignal) wait() {
	c.mu.Lock()
	c.ctx = nil
	c.mu.Unlock()
	c.wg.Wait()
}

// serving reports whether serve runs.
func (c *calendarSignal) serving() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ctx != nil
}

// startCache runs the cache while the signal serves. The caller holds mu.
func (c *calendarSignal) startCache() {
	if c.ctx == nil || c.cache == nil || c.stop != nil {
		return
	}
	ctx, stop := context.WithCancel(c.ctx)
	c.stop = stop
	cache := c.cache
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		if err := cache.Serve(ctx); err != nil && ctx.Err() == nil {
			c.log.Error("calendar cache stopped", "err", err)
		}
	}()
}

// Busy answers from the cache. No cache, no token or no data yet all mean
// no meeting signal, not a failure.
func (c *calendarSignal) Busy(ctx context.Context, from, to time.Time) ([]idle.Interval, error) {
	c.mu.Lock()
	cache, client := c.cache, c.client
	c.mu.Unlock()
	if cache == nil || !client.Connected() {
		return nil, nil
	}
	ivs, err := cache.Busy(ctx, from, to)
	if errors.Is(err, calendar.ErrNoData) {
		return nil, nil
	}
	return ivs, err
}

// apply starts, restarts or stops the cache for set. A signal that could
// not start (no client secrets) is tried again at every call.
func (c *calendarSignal) apply(set config.Calendar) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.applied && set == c.set && c.problem == "" {
		return
	}
	if c.stop != nil {
		c.stop()
	}
	c.client, c.cache, c.stop = nil, nil, nil
	c.applied, c.set = true, set
	if !set.Enabled {
		c.problem = ""
		return
	}
	client, err := c.newClient(set)
	if err != nil {
		if err.Error() != c.problem {
			c.log.Warn("calendar signal off", "err", err)
		}
		c.problem = err.Error()
		return
	}
	c.problem, c.client, c.hadToken = "", client, client.Connected()
	c.cache = calendar.NewCache(client, calendar.CacheOptions{})
	c.startCache()
	c.log.Info("calendar signal on", "connected", c.hadToken)
}

func (c *calendarSignal) newClient(set config.Calendar) (*calendar.Client, error) {
	cc, err := CalendarConfig(set, c.home)
	if err != nil {
		return nil, err
	}
	cc.Endpoints, cc.Logger = c.endpoints, c.log
	return calendar.New(cc)
}

// checkToken refreshes the cache at once when the token file appeared or
// went away (`metaclaw calendar connect` or disconnect in another process).
func (c *calendarSignal) checkToken() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.client == nil {
		return
	}
	if has := c.client.Connected(); has != c.hadToken {
		c.hadToken = has
		c.cache.Poke()
	}
}

// poke refreshes the cache now, if one runs.
func (c *calendarSignal) poke() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.client != nil {
		c.hadToken = c.client.Connected()
		c.cache.Poke()
	}
}

// status words the signal's state and says whether it is connected.
func (c *calendarSignal) status() (string, bool) {
	c.mu.Lock()
	cache, set, problem := c.cache, c.set, c.problem
	c.mu.Unlock()
	switch {
	case !set.Enabled && tokenStored(c.config().Scheduler.Calendar, c.home):
		return "off (connected; scheduler.calendar.enabled is false)", true
	case !set.Enabled:
		return "off", false
	case problem != "":
		return "not set up: " + problem, false
	}
	return cacheWords(cache.Status())
}

func tokenStored(set config.Calendar, home string) bool {
	_, err := os.Stat(TokenPath(set, home))
	return err == nil
}

// cacheWords words a running cache's status.
func cacheWords(st calendar.Status) (string, bool) {
	switch {
	case st.ReconnectNeeded:
		return "reconnect needed: " + st.LastError, false
	case !st.Connected:
		return "not connected: run `metaclaw calendar connect` or use Connect Google Calendar in Settings", false
	case st.LastError != "":
		return "connected; last refresh failed: " + st.LastError, true
	case st.LastRefresh.IsZero():
		return "connected; busy times not read yet", true
	}
	return fmt.Sprintf("connected; %d busy period(s) known, read at %s", st.Busy, st.LastRefresh.Local().Format("15:04")), true
}
