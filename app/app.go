// Package app is MetaClaw's headless core, the composition root, and
// wiring only: New opens the data directory (instance lock, database,
// configuration); Start builds and runs every service — the training
// windows (idle/windows), the learning services of learner.Build (the
// skills, memory, judge and evolution, policy, trainer, skills folder and
// programmatic rollout; their injectors, policy and memory API handed to
// the proxy, the proxy's events to their sink), the proxy, the settings
// watch (saved settings that apply at once, to the proxy and learning)
// and the web page over app/control, which also answers the proxy's
// train-step API and makes the status snapshot — and Stop ends them all.
// App owns every goroutine it starts. The tray (app/tray) and the CLI
// (app/cli) are thin skins over it. Nothing below app imports it.
package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/metaclaw/metaclaw/app/control"
	"github.com/metaclaw/metaclaw/app/instance"
	"github.com/metaclaw/metaclaw/app/learner"
	"github.com/metaclaw/metaclaw/idle/windows"
	"github.com/metaclaw/metaclaw/proxy"
	"github.com/metaclaw/metaclaw/store"
	"github.com/metaclaw/metaclaw/store/config"
	"github.com/metaclaw/metaclaw/web"
)

// Options configures an App.
type Options struct {
	Home    string       // data directory
	Mode    string       // overrides the configured mode for this run when set
	Port    int          // overrides proxy.port for this run when non-zero
	Version string       // build version, shown by status and /healthz
	Logger  *slog.Logger // nil: discard
	// Grace bounds how long Stop waits for in-flight requests.
	Grace time.Duration
}

// AlreadyRunningError is returned by New when another MetaClaw holds the
// data directory.
type AlreadyRunningError struct {
	Home string
	Info instance.Info // zero when the pid file could not be read
}

func (e *AlreadyRunningError) Error() string {
	msg := "MetaClaw is already running with data directory " + e.Home
	if e.Info.PID > 0 {
		msg += fmt.Sprintf(" (pid %d, proxy %s)", e.Info.PID, e.Info.ProxyURL)
	}
	return msg
}

// App is a running MetaClaw.
type App struct {
	opts    Options
	log     *slog.Logger
	lock    *instance.Lock
	db      *store.DB
	started time.Time

	mu      sync.Mutex // guards cfg and restart
	cfg     config.Config
	restart []string // saved keys that apply after a restart (settings.go)

	applyMu     sync.Mutex // one ApplySettings at a time
	restartOnce sync.Once
	restarting  chan struct{} // closed by RequestRestart

	proxy   *proxy.Server
	learn   *learner.Learning // every learning service; empty until Start
	web     *web.Server       // nil when the web page could not bind
	pause   *learner.Pause
	windows *windows.Service // training windows; nil before Start
	cancel  context.CancelFunc
	wg      sync.WaitGroup
	done    chan struct{} // closed when a service stops on its own
	once    sync.Once
	errMu   sync.Mutex // guards err
	err     error
}

// New takes the data directory's lock, opens the database and loads the
// configuration, applying the per-run overrides.
func New(opts Options) (*App, error) {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Grace == 0 {
		opts.Grace = 10 * time.Second
	}
	lock, err := instance.Acquire(opts.Home)
	if errors.Is(err, instance.ErrLocked) {
		info, _ := instance.ReadInfo(opts.Home)
		return nil, &AlreadyRunningError{Home: opts.Home, Info: info}
	}
	if err != nil {
		return nil, err
	}
	if was, ok := lock.Tightened(); ok {
		opts.Logger.Warn("the data directory was open to other users; made it private (0700)", "dir", opts.Home, "was", fmt.Sprintf("%#o", was))
	}
	a := &App{opts: opts, log: opts.Logger, lock: lock, done: make(chan struct{}), restarting: make(chan struct{}),
		learn: &learner.Learning{}}
	if err := a.open(); err != nil {
		lock.Release()
		return nil, err
	}
	a.pause = learner.NewPause(a.db)
	return a, nil
}

func (a *App) open() error {
	db, err := store.Open(filepath.Join(a.opts.Home, instance.DBName))
	if err != nil {
		return err
	}
	cfg, warnings, err := config.Load(context.Background(), db)
	if err != nil {
		db.Close()
		return err
	}
	for _, w := range warnings {
		a.log.Warn(w)
	}
	if a.opts.Mode != "" {
		if err := cfg.Set("mode", a.opts.Mode); err != nil {
			db.Close()
			return err
		}
	}
	a.overrides(&cfg)
	a.db, a.cfg = db, cfg
	return nil
}

// DB returns the open database.
func (a *App) DB() *store.DB { return a.db }

// Config returns a copy of the configuration in force.
func (a *App) Config() config.Config {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.cfg
}

// Start binds the proxy, starts every service and records the instance in
// the pid file. When Start fails, everything it started is stopped again.
func (a *App) Start(ctx context.Context) error {
	cfg := a.Config()
	eff := cfg.Resolve()
	for _, p := range eff.Problems {
		a.log.Warn("setup needed", "problem", p)
	}
	a.started = time.Now()
	ctx, a.cancel = context.WithCancel(context.WithoutCancel(ctx))
	a.startWindows(ctx) // before learning, whose trainer follows its windows
	a.learn = learner.Build(ctx, a.learningDeps(cfg))
	a.proxy = proxy.New(proxy.Options{Config: cfg, Logger: a.log.With("part", "proxy"), Health: a.health,
		Recorder: a.db, Injectors: a.learn.Injectors, Memory: a.learn.MemoryAPI, Policy: a.proxyPolicy(),
		Trainer: control.TrainStep{DB: a.db, Config: a.Config}})
	addr := net.JoinHostPort(cfg.Proxy.Host, strconv.Itoa(cfg.Proxy.Port))
	if err := a.proxy.Listen(addr); err != nil {
		a.cancel()
		a.wg.Wait()
		return err
	}
	a.goService(ctx, "proxy", func(ctx context.Context) error { return a.proxy.Serve(ctx, a.opts.Grace) })
	for _, svc := range a.learn.Services {
		a.goService(ctx, svc.Name, svc.Serve)
	}
	a.goService(ctx, "events", func(ctx context.Context) error { return a.learn.Consume(ctx, a.proxy.Events()) })
	a.goService(ctx, "settings", a.watchSettings)
	a.startWeb(ctx, cfg)
	exe, _ := os.Executable()
	info := instance.Info{PID: os.Getpid(), StartedAt: a.started, Version: a.opts.Version, Mode: eff.Mode,
		ProxyURL: a.ProxyURL(), WebURL: a.WebURL(), Home: a.opts.Home, Exe: exe}
	if err := a.lock.WriteInfo(info); err != nil {
		a.cancel()
		a.wg.Wait()
		return err
	}
	a.log.Info("MetaClaw started", "version", a.opts.Version, "mode", eff.Mode, "proxy", a.ProxyURL(), "home", a.opts.Home)
	return nil
}

// goService runs one service on its own goroutine; a service that returns
// while the app is running ends the app (Done is closed).
func (a *App) goService(ctx context.Context, name string, serve func(context.Context) error) {
	a.wg.Add(1)
	go func() {
		defer a.wg.Done()
		err := serve(ctx)
		if ctx.Err() != nil {
			return // asked to stop
		}
		if err == nil {
			err = fmt.Errorf("%s stopped unexpectedly", name)
		}
		a.log.Error("service failed", "service", name, "err", err)
		a.errMu.Lock()
		if a.err == nil {
			a.err = err
		}
		a.errMu.Unlock()
		a.once.Do(func() { close(a.done) })
	}()
}

// Done is closed when a service stops on its own; Err says why.
func (a *App) Done() <-chan struct{} { return a.done }

// Err returns the first service failure, if any.
func (a *App) Err() error {
	a.errMu.Lock()
	defer a.errMu.Unlock()
	return a.err
}

// ProxyURL returns the proxy's base URL (with /v1 for clients).
func (a *App) ProxyURL() string {
	if a.proxy == nil || a.proxy.Addr() == "" {
		return ""
	}
	return "http://" + a.proxy.Addr()
}

func (a *App) health() map[string]any {
	st := a.Status()
	return map[string]any{
		"pid":             os.Getpid(),
		"version":         a.opts.Version,
		"mode":            st.Mode,
		"configured_mode": st.ConfiguredMode,
		"home":            a.opts.Home,
		"uptime_seconds":  int(time.Since(a.started).Seconds()),
		"policy":          a.learn.Policy.Health(),
		"paused":          st.Paused,
		"problems":        st.Problems,
		"attention":       st.Attention,
		"upstream":        st.Upstream,
		"learning":        st.Learning,
		"cuts_today":      st.Cuts,
		"restart_pending": st.Restart,
	}
}

// Stop stops accepting requests, lets in-flight ones finish (bounded by
// Options.Grace), stops every service, closes the database and releases the
// data directory. It is safe to call once after New, whether or not Start
// succeeded.
func (a *App) Stop() error {
	if a.cancel != nil {
		a.cancel()
	}
	a.wg.Wait()
	var errs []error
	if err := a.db.Close(); err != nil {
		errs = append(errs, fmt.Errorf("close database: %w", err))
	}
	if err := a.lock.Release(); err != nil {
		errs = append(errs, fmt.Errorf("release lock: %w", err))
	}
	a.log.Info("MetaClaw stopped")
	return errors.Join(errs...)
}
