package learner

import (
	"context"
	"log/slog"
	"time"

	"github.com/metaclaw/metaclaw/app/learner/internal/transcript"
	"github.com/metaclaw/metaclaw/app/learner/memory"
	"github.com/metaclaw/metaclaw/app/learner/memory/memapi"
	"github.com/metaclaw/metaclaw/app/learner/skillfolder"
	"github.com/metaclaw/metaclaw/app/learner/skills"
	"github.com/metaclaw/metaclaw/app/learner/trainer"
	"github.com/metaclaw/metaclaw/app/learner/usage"
	"github.com/metaclaw/metaclaw/proxy/learning"
	"github.com/metaclaw/metaclaw/store"
	"github.com/metaclaw/metaclaw/store/config"
)

// Deps is what Build needs from the app: the store, the configuration in
// force, the log and the pause and training-window state.
type Deps struct {
	DB     *store.DB
	Config config.Config
	Home   string       // data directory: the policy's files
	Logger *slog.Logger // nil discards
	// Paused reports whether the person paused learning (nil: never).
	Paused func() bool
	// Windows are the training windows the trainer follows (nil: it needs
	// none).
	Windows trainer.Windows
	// HFToken is the Hugging Face token the policy fetches its tokenizer
	// with ("" anonymous).
	HFToken string
	// ProxyURL is the proxy's base URL once it listens; programmatic
	// rollout's built-in agent talks to it (nil: "").
	ProxyURL func() string
	Now      func() time.Time // memory's clock; nil: time.Now
}

// Service is one long-running part of learning, for the app to run on its
// own goroutine.
type Service struct {
	Name  string
	Serve func(ctx context.Context) error
}

// Learning is every learning service of a configuration, built by Build.
// The app hands Injectors and Policy to the proxy, its events to Notify,
// saved settings to SetConfig, and runs Services.
type Learning struct {
	// Injectors add skills, then memories, to main turns.
	Injectors []learning.Injector
	Services  []Service
	Meter     *usage.Meter      // learning's calls, budget and health
	Learner   *Learner          // judging and skill evolution
	Skills    *skills.Retriever // nil when skills are off
	Memory    *memory.Service
	// MemoryAPI is the memory HTTP API for the proxy to mount.
	MemoryAPI *memapi.API
	// Policy serves turns from the trained model; nil unless the mode
	// trains the weights (rl, madmax) and its server could be made.
	Policy  *Policy
	Trainer *trainer.Trainer // nil when Policy is
	// Folder is the skills folder kept in step with the library; nil
	// unless skills.sync_dir.
	Folder *skillfolder.Folder

	extract *liveCompleter // memory extraction's model, swapped by SetConfig
	log     *slog.Logger
}

// Build makes every learning service from d: the starter skills and the
// skill retriever, the memory service and its HTTP API, the judge and the
// skill evolver, in the training modes the policy server and the trainer,
// the skills folder (skills.sync_dir) and programmatic rollout
// (openclaw_env_data_dir). Nothing runs until the app serves Services,
// which it does once the proxy listens.
func Build(ctx context.Context, d Deps) *Learning {
	l, d := newLearning(d)
	cfg := d.Config
	if r := l.buildSkills(ctx, d); r != nil {
		l.Skills = r
		l.Injectors = append(l.Injectors, r)
	}
	// Memory extraction and skill evolution read the same latest turns.
	digests := &transcript.Digests{}
	l.Memory = l.buildMemory(d, digests)
	l.MemoryAPI = memapi.New(memapi.Options{Service: l.Memory, Reader: d.DB, FlushEvery: cfg.Memory.FlushEvery,
		Logger: d.Logger.With("part", "memory")})
	if cfg.Memory.Enabled {
		l.Injectors = append(l.Injectors, l.Memory) // memories after skills
	}
	l.buildPolicy(d)
	opts := Options{DB: d.DB, Config: cfg, Logger: d.Logger.With("part", "learner"), Paused: d.Paused, Meter: l.Meter,
		Digests: digests}
	if l.Skills != nil {
		opts.Skills = l.Skills
	}
	l.Learner = New(opts)
	l.serve("learner", l.Learner.Serve)
	l.buildTrainer(d)
	l.serve("memory", l.Memory.Serve)
	l.buildFolder(d)
	l.buildRollout(d)
	return l
}

// BuildSkillRetriever makes only the skill retriever a turn uses (its
// mode and embeddings client as configured, the starter bank not
// installed), for tools that explain retrieval (skills search).
func BuildSkillRetriever(d Deps) *skills.Retriever {
	l, d := newLearning(d)
	return l.skillRetriever(d)
}

// BuildMemory makes only the memory service, as Build does (for tools and
// evaluations that need no other part of learning).
func BuildMemory(d Deps) *memory.Service {
	l, d := newLearning(d)
	return l.buildMemory(d, nil)
}

// newLearning fills d's defaults and starts a Learning with its meter.
func newLearning(d Deps) (*Learning, Deps) {
	if d.Logger == nil {
		d.Logger = slog.New(slog.DiscardHandler)
	}
	if d.Paused == nil {
		d.Paused = func() bool { return false }
	}
	l := &Learning{log: d.Logger, extract: &liveCompleter{}}
	l.Meter = usage.New(usage.Options{DB: d.DB, Logger: d.Logger.With("part", "learner"), MaxCallsPerDay: d.Config.Learning.MaxCallsPerDay})
	return l, d
}

func (l *Learning) serve(name string, f func(context.Context) error) {
	l.Services = append(l.Services, Service{Name: name, Serve: f})
}

// Notify hands a proxy event to the learner and the memory service; it
// never blocks.
func (l *Learning) Notify(ev learning.Event) {
	l.Learner.Notify(ev)
	l.Memory.Notify(ev)
}

// Consume hands every event of events (the proxy's) to Notify until ctx
// ends; the app runs it as a service. A nil channel (a proxy that records
// nothing) just waits.
func (l *Learning) Consume(ctx context.Context, events <-chan learning.Event) error {
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev := <-events:
			l.Notify(ev)
		}
	}
}

// SetConfig applies saved settings that take effect at once: the judge,
// the evolver and their cadence, learning's daily budget and memory
// extraction's model.
func (l *Learning) SetConfig(cfg config.Config) {
	l.Learner.SetConfig(cfg)
	l.Meter.SetLimit(cfg.Learning.MaxCallsPerDay)
	l.extract.set(l.extractor(cfg))
}
