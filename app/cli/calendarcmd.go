package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"time"

	"github.com/metaclaw/metaclaw/app/instance"
	"github.com/metaclaw/metaclaw/idle"
	"github.com/metaclaw/metaclaw/idle/calendar"
	"github.com/metaclaw/metaclaw/idle/windows"
	"github.com/metaclaw/metaclaw/store/config"
)

// googleEndpointsEnv points the calendar and scheduler commands at another
// Google, for tests against idle/calendar/fakegoogle. Its value is JSON
// with any of auth_url, token_url, revoke_url and api_base, e.g.
// {"revoke_url":"http://127.0.0.1:41234/revoke","api_base":"http://127.0.0.1:41234/calendar/v3/"}.
// Unset, the commands talk to Google.
const googleEndpointsEnv = "METACLAW_GOOGLE_ENDPOINTS"

const calendarUsage = "connect [--no-browser] | disconnect | status [--json]"

// calendarCmd is what every calendar subcommand works with.
type calendarCmd struct {
	env *Env
	dir string
	cfg config.Config
	ep  calendar.Endpoints
}

func runCalendar(env *Env, args []string) error {
	if len(args) == 0 {
		return usageError("usage: metaclaw calendar %s", calendarUsage)
	}
	run, ok := map[string]func(*calendarCmd, []string) error{
		"connect": (*calendarCmd).connect, "disconnect": (*calendarCmd).disconnect, "status": (*calendarCmd).status,
	}[args[0]]
	if !ok {
		return usageError("calendar: unknown subcommand %q; usage: metaclaw calendar %s", args[0], calendarUsage)
	}
	c, err := newCalendarCmd(env)
	if err != nil {
		return err
	}
	return run(c, args[1:])
}

func newCalendarCmd(env *Env) (*calendarCmd, error) {
	db, dir, cfg, err := loadConfig()
	if err != nil {
		return nil, err
	}
	db.Close()
	ep, err := googleEndpoints(env)
	if err != nil {
		return nil, err
	}
	return &calendarCmd{env: env, dir: dir, cfg: cfg, ep: ep}, nil
}

// googleEndpoints reads googleEndpointsEnv.
func googleEndpoints(env *Env) (calendar.Endpoints, error) {
	var ep calendar.Endpoints
	v := env.getenv(googleEndpointsEnv)
	if v == "" {
		return ep, nil
	}
	var raw struct {
		Auth   string `json:"auth_url"`
		Token  string `json:"token_url"`
		Revoke string `json:"revoke_url"`
		API    string `json:"api_base"`
	}
	if err := json.Unmarshal([]byte(v), &raw); err != nil {
		return ep, fmt.Errorf("%s: %w", googleEndpointsEnv, err)
	}
	return calendar.Endpoints{AuthURL: raw.Auth, TokenURL: raw.Token, RevokeURL: raw.Revoke, APIBase: raw.API}, nil
}

// client returns a calendar client for the stored settings, or an error
// that says how to get client secrets.
func (c *calendarCmd) client() (*calendar.Client, calendar.Config, error) {
	cc, err := windows.CalendarConfig(c.cfg.Scheduler.Calendar, c.dir)
	if err != nil {
		return nil, cc, &exitError{code: 1, msg: err.Error()}
	}
	cc.Endpoints = c.ep
	cc.Logger = slog.New(slog.NewTextHandler(c.env.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	cl, err := calendar.New(cc)
	return cl, cc, err
}

// connect runs the OAuth flow: it prints Google's consent page (and opens
// it in the browser), waits for the browser to come back to a loopback
// listener, and saves the token 0600.
func (c *calendarCmd) connect(args []string) error {
	fs := newFlags(c.env, "calendar connect", "[--no-browser]")
	noBrowser := fs.Bool("no-browser", false, "only print the page to open")
	if err := parse(fs, args); err != nil {
		return err
	}
	cl, cc, err := c.client()
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	p, err := cl.StartConnect(ctx)
	if err != nil {
		return err
	}
	w := c.env.Stdout
	fmt.Fprintln(w, "Open this page and allow MetaClaw to see when you are busy (read-only, busy times only):")
	fmt.Fprintln(w, p.URL())
	if !*noBrowser {
		if cmd := browserCommand(p.URL()); cmd.Start() != nil {
			fmt.Fprintln(c.env.Stderr, "could not open a browser; open the page above yourself")
		} else {
			go func() { _ = cmd.Wait() }()
		}
	}
	fmt.Fprintln(w, "Waiting for Google to send the browser back (Ctrl-C to give up)...")
	if _, err := p.Wait(ctx); err != nil {
		return err
	}
	fmt.Fprintf(w, "Google Calendar connected; token saved to %s (mode 0600)\n", cc.TokenPath)
	if !c.cfg.Scheduler.Calendar.Enabled {
		fmt.Fprintln(w, "The meeting signal is off: turn it on with `metaclaw config set scheduler.calendar.enabled true`")
	} else if instance.Held(c.dir) {
		fmt.Fprintln(w, "The running MetaClaw reads your busy times within a minute.")
	}
	return nil
}

// disconnect revokes the grant at Google and deletes the token.
func (c *calendarCmd) disconnect(args []string) error {
	if len(args) > 0 {
		return usageError("calendar disconnect takes no arguments")
	}
	set := c.cfg.Scheduler.Calendar
	path := windows.TokenPath(set, c.dir)
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		fmt.Fprintln(c.env.Stdout, "Google Calendar is not connected (no token at "+path+")")
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := windows.DisconnectCalendar(ctx, set, c.dir, c.ep); err != nil {
		return err
	}
	fmt.Fprintln(c.env.Stdout, "Google Calendar disconnected: access revoked at Google and the token deleted")
	return nil
}

// calendarReport is `metaclaw calendar status`.
type calendarReport struct {
	Enabled         bool   `json:"enabled"`
	CredentialsPath string `json:"credentials_path"`
	TokenPath       string `json:"token_path"`
	Connected       bool   `json:"connected"`
	State           string `json:"state"`
	Running         string `json:"running,omitempty"` // what the running MetaClaw last recorded
}

func (c *calendarCmd) status(args []string) error {
	fs := newFlags(c.env, "calendar status", "[--json]")
	asJSON := fs.Bool("json", false, "print JSON")
	if err := parse(fs, args); err != nil {
		return err
	}
	set := c.cfg.Scheduler.Calendar
	r := calendarReport{Enabled: set.Enabled, CredentialsPath: set.CredentialsPath, TokenPath: windows.TokenPath(set, c.dir)}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, r.State, r.Connected = readCalendar(ctx, c.cfg, c.dir, c.ep, time.Now(), true)
	if st, ok := runningScheduler(c.dir); ok {
		r.Running = st.Calendar
	}
	if *asJSON {
		return printJSON(c.env, r)
	}
	w := c.env.Stdout
	fmt.Fprintf(w, "Google Calendar: %s\n", r.State)
	fmt.Fprintf(w, "  meeting signal: %s (scheduler.calendar.enabled)\n", onOff(r.Enabled))
	fmt.Fprintf(w, "  credentials:    %s\n", orText(r.CredentialsPath, "not set (scheduler.calendar.credentials_path)"))
	fmt.Fprintf(w, "  token:          %s\n", r.TokenPath)
	if r.Running != "" {
		fmt.Fprintf(w, "  running app:    %s\n", r.Running)
	}
	return nil
}

// readCalendar reads the busy times around now, when the meeting signal is
// on (or always is set) and a token is stored, and words the outcome.
func readCalendar(ctx context.Context, cfg config.Config, dir string, ep calendar.Endpoints, now time.Time, always bool) ([]idle.Interval, string, bool) {
	set := cfg.Scheduler.Calendar
	if !set.Enabled && !always {
		return nil, "off", false
	}
	cc, err := windows.CalendarConfig(set, dir)
	if err != nil {
		return nil, "not set up: " + err.Error(), false
	}
	cc.Endpoints, cc.Logger = ep, slog.New(slog.DiscardHandler)
	cl, err := calendar.New(cc)
	if err != nil {
		return nil, "not set up: " + err.Error(), false
	}
	if !cl.Connected() {
		return nil, "not connected: run `metaclaw calendar connect`", false
	}
	ivs, err := cl.Fetch(ctx, now.Add(-12*time.Hour), now.Add(48*time.Hour))
	switch {
	case errors.Is(err, calendar.ErrReconnectNeeded):
		return nil, "reconnect needed: run `metaclaw calendar connect` (" + err.Error() + ")", false
	case err != nil:
		return nil, "connected; reading busy times failed: " + err.Error(), true
	}
	ahead := 0
	for _, iv := range ivs {
		if iv.End.After(now) {
			ahead++
		}
	}
	return ivs, fmt.Sprintf("connected; Google answers, %d busy period(s) in the next two days", ahead), true
}

// runningScheduler returns what the running MetaClaw last recorded about
// its training windows; ok is false when none runs.
func runningScheduler(dir string) (windows.State, bool) {
	if !instance.Held(dir) {
		return windows.State{}, false
	}
	db, _, err := openDB()
	if err != nil {
		return windows.State{}, false
	}
	defer db.Close()
	st, ok, err := windows.ReadState(context.Background(), db)
	return st, ok && err == nil
}

// printJSON writes v to the standard output as indented JSON.
func printJSON(env *Env, v any) error {
	enc := json.NewEncoder(env.Stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

func orText(s, none string) string {
	if s == "" {
		return none
	}
	return s
}
