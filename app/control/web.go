package control

import (
	"context"
	"errors"
	"log/slog"
	"path/filepath"
	"time"

	"github.com/metaclaw/metaclaw/app/instance"
	"github.com/metaclaw/metaclaw/app/learner"
	"github.com/metaclaw/metaclaw/app/learner/policy"
	"github.com/metaclaw/metaclaw/app/learner/rollout"
	"github.com/metaclaw/metaclaw/app/learner/skillfolder"
	"github.com/metaclaw/metaclaw/app/learner/skills"
	"github.com/metaclaw/metaclaw/idle/windows"
	"github.com/metaclaw/metaclaw/proxy"
	"github.com/metaclaw/metaclaw/store"
	"github.com/metaclaw/metaclaw/store/config"
	"github.com/metaclaw/metaclaw/web"
)

// App is what Web needs of the running app; *app.App has it.
type App interface {
	Status() Status
	Config() config.Config // in force
	Paused() bool
	SetPaused(paused bool) error
	// ApplySettings applies the saved settings that need no restart now.
	ApplySettings(ctx context.Context)
	// RequestRestart asks whoever runs the app to stop and start it again.
	RequestRestart()
	// SchedulerStatus is the training-window state.
	SchedulerStatus() windows.State
}

// Web is the running app as the web page sees it (web.Control): the app's
// status and switches, and its learning services and training windows.
type Web struct {
	App     App
	DB      *store.DB
	Home    string // data directory: the log is there
	Version string
	Logger  *slog.Logger // nil discards
	// Learning is the app's learning services; nil before Start.
	Learning *learner.Learning
	// TrainingWindows is the training-window service; nil before Start.
	TrainingWindows *windows.Service
}

var _ web.Control = (*Web)(nil)

// Options are the web page's options for this app on host (web.host):
// Web as its control, the memory service as its editor, the skill
// retriever as its explainer, and the skills package's rules.
func (w *Web) Options(host string) web.Options {
	opts := web.Options{DB: w.DB, Control: w, Logger: w.log().With("part", "web"), Host: host,
		ValidateSkill: skills.Validate, SkillCategories: skills.Categories, EfficacyFactor: skills.EfficacyFactor}
	if l := w.Learning; l != nil {
		if l.Memory != nil {
			opts.Memory = MemoryEditor{l.Memory}
		}
		if l.Skills != nil {
			opts.Skills = SkillExplainer{l.Skills}
		}
	}
	return opts
}

func (w *Web) log() *slog.Logger {
	if w.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return w.Logger
}

// Status is the dashboard's view of the app's Status, with programmatic
// rollout's last saved progress.
func (w *Web) Status() web.Status {
	st := w.App.Status()
	ws := web.Status{Version: w.Version, Mode: st.Mode, ConfiguredMode: st.ConfiguredMode, ProxyURL: st.ProxyURL,
		Home: w.Home, StartedAt: st.StartedAt, TurnsToday: st.TurnsToday, Problems: st.Problems,
		Attention: st.Attention, Spend: st.Learning.Today, Cuts: st.Cuts, Restart: st.Restart,
		Budget: web.Budget{Limit: st.Learning.Budget.Limit, Used: st.Learning.Budget.Used, Reached: st.Learning.Budget.Reached}}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	ws.Rollout = rolloutStatus(ctx, w.DB)
	u := st.Upstream
	ws.Upstream = web.UpstreamStatus{Turns: u.Turns, Failed: u.Total, LastAt: u.LastAt, LastKind: u.LastKind, LastMessage: u.LastMessage}
	for _, k := range proxy.FailureKinds {
		if n := u.Counts[k]; n > 0 {
			ws.Upstream.Kinds = append(ws.Upstream.Kinds, web.KindCount{Kind: k, Count: n})
		}
	}
	return ws
}

// rolloutStatus is the rollout's last saved progress; nil when it never
// ran.
func rolloutStatus(ctx context.Context, db *store.DB) *web.RolloutStatus {
	p, ok, err := rollout.ReadProgress(ctx, db)
	if !ok || err != nil {
		return nil
	}
	return &web.RolloutStatus{Dir: p.Dir, Agent: p.Agent, Tasks: p.Tasks, Rounds: p.Rounds, Done: p.Done, Running: p.Running,
		Failed: p.Failed, LastError: p.LastError, Problems: p.Problems, UpdatedAt: p.UpdatedAt}
}

// SkillsFolder is the skills folder's last saved pass; nil when the folder
// is not kept or was never read.
func (w *Web) SkillsFolder() *web.SkillsFolderStatus {
	if w.Learning == nil || w.Learning.Folder == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	sum, ok, err := skillfolder.ReadSummary(ctx, w.DB)
	if !ok || err != nil {
		return nil
	}
	st := &web.SkillsFolderStatus{Dir: sum.Dir, Files: sum.Files}
	for _, b := range sum.Broken {
		st.Broken = append(st.Broken, web.FileNote{Path: b.Path, Text: b.Err})
	}
	for _, n := range sum.Notices {
		st.Filed = append(st.Filed, web.FileNote{Path: n.Path, Text: n.Note})
	}
	return st
}

// ApplySettings applies the saved settings that need no restart.
func (w *Web) ApplySettings() { w.App.ApplySettings(context.Background()) }

// Restart asks for a restart; it always succeeds (the CLI does the rest).
func (w *Web) Restart() error {
	w.App.RequestRestart()
	return nil
}

// TestConnection tests the saved llm.* settings (learner.TestConnection),
// not the ones in force: the page tests what it has just saved.
func (w *Web) TestConnection(ctx context.Context) error {
	cfg, _, err := config.Load(ctx, w.DB)
	if err != nil {
		return err
	}
	return learner.TestConnection(ctx, cfg)
}

// Paused reports whether learning is paused.
func (w *Web) Paused() bool { return w.App.Paused() }

// SetPaused pauses or resumes learning.
func (w *Web) SetPaused(paused bool) error { return w.App.SetPaused(paused) }

// Config is the configuration in force.
func (w *Web) Config() config.Config { return w.App.Config() }

// LogPath is the app's log file in its data directory.
func (w *Web) LogPath() string { return filepath.Join(w.Home, instance.LogName) }

// errNotStarted answers calendar requests before Start.
var errNotStarted = errors.New("google calendar: MetaClaw is not started")

// Windows reports the training-window state.
func (w *Web) Windows() web.WindowStatus {
	st := w.App.SchedulerStatus()
	return web.WindowStatus{Enabled: st.Enabled, Open: st.Open, Reason: st.Reason, Until: st.Until, Detail: st.Detail,
		IdleSource: st.IdleText(), Calendar: st.Calendar, CalendarConnected: st.CalendarConnected}
}

// ConnectCalendar starts the calendar's OAuth flow; see
// windows.Service.ConnectCalendar.
func (w *Web) ConnectCalendar(ctx context.Context) (string, error) {
	if w.TrainingWindows == nil {
		return "", errNotStarted
	}
	return w.TrainingWindows.ConnectCalendar(ctx)
}

// DisconnectCalendar revokes and deletes the calendar token.
func (w *Web) DisconnectCalendar(ctx context.Context) error {
	if w.TrainingWindows == nil {
		return errNotStarted
	}
	return w.TrainingWindows.DisconnectCalendar(ctx)
}

// policy is the trained policy's server, nil when the mode does not train
// or the app is not started.
func (w *Web) policy() *policy.Server {
	if w.Learning == nil || w.Learning.Policy == nil {
		return nil
	}
	return w.Learning.Policy.Server
}

// Policy reports the trained policy's serving state; the zero
// PolicyStatus when the mode does not train.
func (w *Web) Policy() web.PolicyStatus {
	p := w.policy()
	if p == nil {
		return web.PolicyStatus{}
	}
	st := p.Status()
	return web.PolicyStatus{Enabled: true, Ready: st.Ready, Reason: st.Reason, BaseModel: st.BaseModel,
		Serving: st.Serving, Wanted: st.Wanted, SwapError: st.SwapError}
}

// ServeCheckpoint is the training page's rollback: the recorded sampler
// checkpoint at path ("" = the base model) of rl.model in force becomes
// the serving one, at once when the policy runs (policy.ServeCheckpoint).
func (w *Web) ServeCheckpoint(ctx context.Context, path string) error {
	if err := policy.ServeCheckpoint(ctx, w.DB, w.policy(), w.App.Config().RL.Model, path); err != nil {
		return err
	}
	shown := path
	if shown == "" {
		shown = "the base model"
	}
	w.log().Info("serving checkpoint chosen on the web page", "checkpoint", shown)
	return nil
}
