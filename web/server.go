package web

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/metaclaw/metaclaw/store"
)

// Options configures a Server.
type Options struct {
	DB      *store.DB
	Control Control
	// Memory edits memories; nil: StoreMemories{DB}.
	Memory MemoryEditor
	Logger *slog.Logger
	// Now is the clock (time.Now when nil): sessions and tokens expire by it.
	Now func() time.Time
	// Host is the configured web.host; requests naming it in their Host
	// header are accepted besides the loopback names.
	Host string
	// ValidateSkill checks a skill made or edited on the page, as the CLI's
	// import does (app passes the skills package's Validate); nil: only
	// name, description and body must be present.
	ValidateSkill func(store.SkillInput) error
	// SkillCategories are offered in the skill form.
	SkillCategories []string
	// Skills explains skill retrieval on a turn's page; nil: no
	// explanation.
	Skills SkillExplainer
	// EfficacyFactor is the ranking factor of a skill's efficacy
	// (skills.EfficacyFactor); nil: not shown.
	EfficacyFactor func(store.Efficacy) float64
}

// Server is the web page's HTTP server.
type Server struct {
	opts     Options
	log      *slog.Logger
	app      *fiber.App
	ln       net.Listener
	sessions *sessions
	hosts    map[string]bool // accepted Host headers, lower case; set by Listen
}

// New builds a server; Listen binds it and Serve runs it.
func New(opts Options) *Server {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.ValidateSkill == nil {
		opts.ValidateSkill = basicSkillCheck
	}
	if opts.Memory == nil {
		opts.Memory = StoreMemories{DB: opts.DB}
	}
	s := &Server{opts: opts, log: opts.Logger, sessions: newSessions(opts.Now)}
	s.app = fiber.New(fiber.Config{
		DisableStartupMessage: true,
		Immutable:             true, // values outlive the request (sessions, logs)
		UnescapePath:          true,
		BodyLimit:             1 << 20,
		ReadTimeout:           30 * time.Second,
		WriteTimeout:          30 * time.Second,
		IdleTimeout:           2 * time.Minute,
		ErrorHandler:          s.errorHandler,
		AppName:               "metaclaw-web",
	})
	s.routes()
	return s
}

func (s *Server) routes() {
	a := s.app
	a.Use(s.guard)
	a.Get("/static/:name", s.static)
	a.Get("/login", s.login)
	a.Post("/logout", s.logout)
	a.Get("/", s.dashboard)
	a.Post("/learning/:action", s.setLearning)
	a.Get("/sessions", s.sessionList)
	a.Get("/sessions/:id", s.sessionDetail)
	a.Get("/turns/:id", s.turnDetail)
	a.Get("/skills", s.skillList)
	a.Get("/skills/new", s.skillNew)
	a.Post("/skills", s.skillCreate)
	a.Get("/skills/:name", s.skillView)
	a.Get("/skills/:name/edit", s.skillEdit)
	a.Post("/skills/:name", s.skillUpdate)
	a.Post("/skills/:name/:action", s.skillAction)
	a.Get("/memory", s.memoryList)
	a.Post("/memory", s.memoryCreate)
	a.Get("/memory/:id", s.memoryView)
	a.Post("/memory/:id", s.memoryUpdate)
	a.Post("/memory/:id/:action", s.memoryAction)
	a.Get("/scores", s.scores)
	a.Get("/training", s.trainingView)
	a.Get("/bench", s.bench)
	a.Post("/training/serve", s.trainingServe)
	a.Get("/settings", s.settings)
	a.Post("/settings", s.settingsSave)
	a.Post("/settings/preset", s.settingsPreset)
	a.Post("/restart", s.restart)
	a.Post("/setup/test", s.setupTest)
	a.Post("/calendar/connect", s.calendarConnect)
	a.Post("/calendar/disconnect", s.calendarDisconnect)
	a.Get("/setup", s.setup)
	a.Post("/setup", s.setupSave)
	a.Get("/logs", s.logs)
	a.Use(func(c *fiber.Ctx) error { return fiber.ErrNotFound })
}

// Listen binds the listening socket and fixes the Host names the server
// answers to (the bound port with 127.0.0.1, localhost, [::1] and the
// configured host).
func (s *Server) Listen(addr string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("web listen on %s: %w", addr, err)
	}
	s.ln = ln
	s.hosts = allowedHosts(s.opts.Host, ln.Addr().(*net.TCPAddr).Port)
	return nil
}

// allowedHosts lists the Host header values accepted for port.
func allowedHosts(configured string, port int) map[string]bool {
	p := strconv.Itoa(port)
	hosts := map[string]bool{}
	for _, h := range []string{"127.0.0.1", "localhost", "::1", configured} {
		if h == "" || h == "0.0.0.0" || h == "::" {
			continue
		}
		hp := strings.ToLower(net.JoinHostPort(h, p))
		hosts[hp] = true
		if port == 80 {
			hosts[strings.TrimSuffix(hp, ":80")] = true
		}
	}
	return hosts
}

// Addr returns the bound address, e.g. "127.0.0.1:30001".
func (s *Server) Addr() string {
	if s.ln == nil {
		return ""
	}
	return s.ln.Addr().String()
}

// URL returns the page's base URL, e.g. http://127.0.0.1:30001, using a
// loopback name when the server listens on every address.
func (s *Server) URL() string {
	if s.ln == nil {
		return ""
	}
	tcp := s.ln.Addr().(*net.TCPAddr)
	host := tcp.IP.String()
	if tcp.IP.IsUnspecified() {
		host = "127.0.0.1"
	}
	return "http://" + net.JoinHostPort(host, strconv.Itoa(tcp.Port))
}

// LoginURL issues a one-time login token and returns the URL that spends it.
func (s *Server) LoginURL(ctx context.Context) (string, error) {
	token, err := IssueLoginToken(ctx, s.opts.DB, s.opts.Now(), LoginTTL)
	if err != nil {
		return "", err
	}
	return LoginURL(s.URL(), token), nil
}

// Serve answers requests until ctx is cancelled, then shuts down, giving
// in-flight requests a few seconds.
func (s *Server) Serve(ctx context.Context) error {
	if s.ln == nil {
		return errors.New("web: Serve before Listen")
	}
	errc := make(chan error, 1)
	go func() { errc <- s.app.Listener(s.ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("web serve: %w", err)
	case <-ctx.Done():
		if err := s.app.ShutdownWithTimeout(3 * time.Second); err != nil {
			s.log.Warn("web shutdown", "err", err)
		}
		// A shutdown that came before the server took the listener does
		// not stop it: closing the listener does.
		_ = s.ln.Close()
		<-errc
		return nil
	}
}
