package app

import (
	"context"
	"errors"
	"net"
	"path/filepath"
	"strconv"
	"time"

	"github.com/metaclaw/metaclaw/app/instance"
	"github.com/metaclaw/metaclaw/app/learner/memory"
	"github.com/metaclaw/metaclaw/app/learner/skills"
	"github.com/metaclaw/metaclaw/proxy"
	"github.com/metaclaw/metaclaw/store"
	"github.com/metaclaw/metaclaw/store/config"
	"github.com/metaclaw/metaclaw/web"
)

// webControl is the app as the web page sees it.
type webControl struct{ a *App }

var _ web.Control = webControl{}

func (w webControl) Status() web.Status {
	st := w.a.Status()
	ws := web.Status{Version: w.a.opts.Version, Mode: st.Mode, ConfiguredMode: st.ConfiguredMode, ProxyURL: st.ProxyURL,
		Home: w.a.opts.Home, StartedAt: st.StartedAt, TurnsToday: st.TurnsToday, Problems: st.Problems,
		Attention: st.Attention, Spend: st.Learning.Today, Cuts: st.Cuts, Restart: st.Restart,
		Budget: web.Budget{Limit: st.Learning.Budget.Limit, Used: st.Learning.Budget.Used, Reached: st.Learning.Budget.Reached}}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	ws.Rollout = w.a.rolloutStatus(ctx)
	u := st.Upstream
	ws.Upstream = web.UpstreamStatus{Turns: u.Turns, Failed: u.Total, LastAt: u.LastAt, LastKind: u.LastKind, LastMessage: u.LastMessage}
	for _, k := range proxy.FailureKinds {
		if n := u.Counts[k]; n > 0 {
			ws.Upstream.Kinds = append(ws.Upstream.Kinds, web.KindCount{Kind: k, Count: n})
		}
	}
	return ws
}

func (w webControl) SkillsFolder() *web.SkillsFolderStatus {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	return w.a.skillsFolderStatus(ctx)
}

func (w webControl) ApplySettings() { w.a.applySettings(context.Background()) }

func (w webControl) Restart() error {
	w.a.RequestRestart()
	return nil
}

func (w webControl) TestConnection(ctx context.Context) error {
	cfg, _, err := config.Load(ctx, w.a.db)
	if err != nil {
		return err
	}
	return TestConnection(ctx, cfg)
}

func (w webControl) Paused() bool                { return w.a.Paused() }
func (w webControl) SetPaused(paused bool) error { return w.a.SetPaused(paused) }
func (w webControl) Config() config.Config       { return w.a.Config() }
func (w webControl) LogPath() string             { return filepath.Join(w.a.opts.Home, instance.LogName) }

// startWeb binds the web page on web.host:web.port and runs it as a
// service. A page that cannot bind (the port is taken) is logged and left
// out: the proxy and learning go on without it, and WebURL stays empty.
func (a *App) startWeb(ctx context.Context, cfg config.Config, mem *memory.Service) {
	opts := web.Options{DB: a.db, Control: webControl{a}, Memory: webMemory{mem}, Logger: a.log.With("part", "web"),
		Host: cfg.Web.Host, ValidateSkill: skills.Validate, SkillCategories: skills.Categories, EfficacyFactor: skills.EfficacyFactor}
	if r := a.learn.Skills; r != nil {
		opts.Skills = skillExplainer{r}
	}
	srv := web.New(opts)
	addr := net.JoinHostPort(cfg.Web.Host, strconv.Itoa(cfg.Web.Port))
	if err := srv.Listen(addr); err != nil {
		a.log.Error("web page not started; set web.port to a free port", "err", err)
		return
	}
	a.web = srv
	a.goService(ctx, "web", srv.Serve)
	a.log.Info("web page listening", "url", srv.URL())
}

// WebURL returns the web page's base URL, "" when it is not running.
func (a *App) WebURL() string {
	if a.web == nil {
		return ""
	}
	return a.web.URL()
}

// WebLoginURL returns a one-time login URL for the web page (the tray's
// Open MetaClaw); it is valid for web.LoginTTL and only once.
func (a *App) WebLoginURL(ctx context.Context) (string, error) {
	if a.web == nil {
		return "", errors.New("the web page is not running (see the log)")
	}
	return a.web.LoginURL(ctx)
}

// webMemory adapts the memory service to the web page's MemoryEditor, so
// that a memory added on the page is consolidated like an extracted one
// and the retriever sees every change at once.
type webMemory struct{ s *memory.Service }

var _ web.MemoryEditor = webMemory{}

func (m webMemory) AddMemory(ctx context.Context, in store.MemoryInput) (store.Memory, error) {
	ch, err := m.s.Add(ctx, in)
	return ch.Memory, err
}

func (m webMemory) EditMemory(ctx context.Context, id int64, content, typ, topic string) (store.Memory, error) {
	ch, err := m.s.Edit(ctx, id, content, typ, topic)
	return ch.Memory, err
}

func (m webMemory) PinMemory(ctx context.Context, id int64, pinned bool) error {
	_, err := m.s.SetPinned(ctx, id, pinned)
	return err
}

func (m webMemory) ForgetMemory(ctx context.Context, id int64) error {
	_, err := m.s.Forget(ctx, "", []int64{id})
	return err
}
