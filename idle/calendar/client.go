// Package calendar is the Google Calendar signal of the madmax training
// windows: it reads when the person is in a meeting. It owns the OAuth flow
// for installed apps (loopback redirect with PKCE), the token file, the
// FreeBusy and Events API calls, token revocation, and the in-memory Cache
// that implements idle.BusySource and refreshes itself in the background.
//
// It may import only the standard library, outside modules and the idle
// and store packages — never app, proxy or web. The window logic in idle's
// callers, app (composition root, CLI `metaclaw calendar connect`) and web
// may import it. Tokens are never logged, printed or put in errors.
//
// Connecting (CLI or web page):
//
//	c, err := calendar.New(cfg)
//	p, err := c.StartConnect(ctx) // show or open p.URL()
//	_, err = p.Wait(ctx)          // token saved to cfg.TokenPath
//
// Serving (app): cache := calendar.NewCache(c, calendar.CacheOptions{});
// run cache.Serve(ctx) as a service and hand cache to the window logic as
// its idle.BusySource; show cache.Status() on the dashboard; call
// c.Disconnect(ctx) then cache.Poke() to disconnect.
package calendar

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"slices"
	"time"
	_ "time/tzdata" // calendars name IANA zones; Windows has no zoneinfo of its own

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/google"
	gcal "google.golang.org/api/calendar/v3"
	"google.golang.org/api/option"

	"github.com/metaclaw/metaclaw/idle"
)

// Mode selects the API that answers busy times.
type Mode string

const (
	// ModeFreeBusy asks freeBusy.query: one cheap call for all calendars,
	// and only the calendar.freebusy scope, so MetaClaw never sees titles,
	// attendees or descriptions. Google already leaves out events marked
	// "Show as available" (transparent) and events the person declined.
	ModeFreeBusy Mode = "freebusy"
	// ModeEvents lists events (events.list, singleEvents, paged) and
	// decides per event. It needs the calendar.events.readonly scope and
	// exists for what free/busy cannot tell: it skips Focus Time blocks
	// (busy, but the person is at the desk) and working-location entries,
	// and it places all-day events in a zone we choose.
	ModeEvents Mode = "events"
)

// RevokeURL is Google's token revocation endpoint.
const RevokeURL = "https://oauth2.googleapis.com/revoke"

// Errors a caller may test with errors.Is.
var (
	// ErrNotConnected means no token is stored: run the connect flow.
	ErrNotConnected = errors.New("google calendar not connected")
	// ErrReconnectNeeded means Google no longer accepts the stored grant
	// (revoked, expired, or missing the scope the mode needs).
	ErrReconnectNeeded = errors.New("google calendar disconnected: reconnect needed")
)

// Endpoints overrides Google's URLs, for tests against a local server.
// Empty fields keep the defaults: auth and token URLs from the client
// secrets file, RevokeURL, and the Calendar API's own base URL.
type Endpoints struct {
	AuthURL   string
	TokenURL  string
	RevokeURL string
	// APIBase is the Calendar API root, e.g. "http://127.0.0.1:1234/calendar/v3/".
	APIBase string
}

// Config describes one calendar connection.
type Config struct {
	// CredentialsPath is the "installed" client secrets JSON downloaded
	// from Google Cloud console (scheduler.calendar.credentials_path).
	CredentialsPath string
	// TokenPath is where the OAuth token is kept, mode 0600
	// (scheduler.calendar.token_path; the caller supplies the default).
	TokenPath string
	// Mode picks the API; empty means ModeFreeBusy.
	Mode Mode
	// CalendarIDs to read; empty means "primary".
	CalendarIDs []string
	// Location places all-day events and zone-less times of calendars that
	// name no time zone of their own; nil means time.Local.
	Location *time.Location
	// Endpoints overrides Google's URLs (tests).
	Endpoints Endpoints
	// HTTPClient carries every request (token, revoke, API); nil means a
	// client with a 30 s timeout.
	HTTPClient *http.Client
	// Clock decides token expiry; nil means idle.SystemClock.
	Clock idle.Clock
	// ConnectTimeout bounds the wait for the browser callback; 0 means 5 min.
	ConnectTimeout time.Duration
	// Logger receives the rare events worth logging; nil means slog.Default().
	Logger *slog.Logger
}

// Client talks to Google Calendar for one person. It is safe for
// concurrent use.
type Client struct {
	cfg    Config
	oauth  *oauth2.Config
	tokens *tokenSource
	svc    *gcal.Service
	base   *http.Client
}

// New reads the client secrets and prepares a Client. It does not touch
// the network; a missing token file is not an error (Fetch then reports
// ErrNotConnected until the connect flow stores one).
func New(cfg Config) (*Client, error) {
	cfg = withDefaults(cfg)
	if cfg.TokenPath == "" {
		return nil, errors.New("calendar: token path is required")
	}
	secrets, err := os.ReadFile(cfg.CredentialsPath)
	if err != nil {
		return nil, fmt.Errorf("read calendar client secrets: %w", err)
	}
	oc, err := google.ConfigFromJSON(secrets, cfg.Mode.Scope())
	if err != nil {
		return nil, fmt.Errorf("parse calendar client secrets %s: %w", cfg.CredentialsPath, err)
	}
	applyEndpoints(oc, cfg.Endpoints)
	c := &Client{cfg: cfg, oauth: oc, base: cfg.HTTPClient}
	c.tokens = &tokenSource{path: cfg.TokenPath, conf: oc, base: c.base, clock: cfg.Clock, log: cfg.Logger}
	api := &http.Client{
		Transport: &authTransport{src: c.tokens, base: baseTransport(c.base)},
		Timeout:   c.base.Timeout,
	}
	opts := []option.ClientOption{option.WithHTTPClient(api)}
	if cfg.Endpoints.APIBase != "" {
		opts = append(opts, option.WithEndpoint(cfg.Endpoints.APIBase))
	}
	c.svc, err = gcal.NewService(context.Background(), opts...)
	if err != nil {
		return nil, fmt.Errorf("create calendar service: %w", err)
	}
	return c, nil
}

func withDefaults(cfg Config) Config {
	if cfg.Mode == "" {
		cfg.Mode = ModeFreeBusy
	}
	if len(cfg.CalendarIDs) == 0 {
		cfg.CalendarIDs = []string{"primary"}
	}
	cfg.CalendarIDs = slices.Clone(cfg.CalendarIDs)
	if cfg.Location == nil {
		cfg.Location = time.Local
	}
	if cfg.Endpoints.RevokeURL == "" {
		cfg.Endpoints.RevokeURL = RevokeURL
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{Timeout: 30 * time.Second}
	}
	if cfg.Clock == nil {
		cfg.Clock = idle.SystemClock{}
	}
	if cfg.ConnectTimeout <= 0 {
		cfg.ConnectTimeout = 5 * time.Minute
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	return cfg
}

func applyEndpoints(oc *oauth2.Config, ep Endpoints) {
	if ep.AuthURL != "" {
		oc.Endpoint.AuthURL = ep.AuthURL
	}
	if ep.TokenURL != "" {
		oc.Endpoint.TokenURL = ep.TokenURL
	}
	// Google takes the client secret in the form; saying so spares the
	// library's header-then-form probing.
	oc.Endpoint.AuthStyle = oauth2.AuthStyleInParams
}

func baseTransport(c *http.Client) http.RoundTripper {
	if c.Transport != nil {
		return c.Transport
	}
	return http.DefaultTransport
}

// Scope is the one OAuth scope the mode needs: calendar.freebusy for
// ModeFreeBusy, calendar.events.readonly for ModeEvents. Both are
// read-only; neither can see calendar settings or sharing.
func (m Mode) Scope() string {
	if m == ModeEvents {
		return gcal.CalendarEventsReadonlyScope
	}
	return gcal.CalendarFreebusyScope
}

// Mode reports the API this client asks.
func (c *Client) Mode() Mode { return c.cfg.Mode }

// Connected reports whether a token file is stored. It says nothing about
// whether Google still accepts it; Cache.Status does.
func (c *Client) Connected() bool {
	_, err := os.Stat(c.cfg.TokenPath)
	return err == nil
}

// Fetch asks Google for the busy intervals overlapping [from, to) on the
// configured calendars, merged and sorted by start. It goes to the network
// every time; Cache is the idle.BusySource.
func (c *Client) Fetch(ctx context.Context, from, to time.Time) ([]idle.Interval, error) {
	var ivs []idle.Interval
	var err error
	if c.cfg.Mode == ModeEvents {
		ivs, err = c.fetchEvents(ctx, from, to)
	} else {
		ivs, err = c.fetchFreeBusy(ctx, from, to)
	}
	if err != nil {
		return nil, classify(err, c.cfg.Mode)
	}
	return merge(ivs), nil
}
