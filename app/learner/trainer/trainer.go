package trainer

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/metaclaw/metaclaw/app/learner/opd"
	"github.com/metaclaw/metaclaw/app/learner/tinker"
	"github.com/metaclaw/metaclaw/idle"
	"github.com/metaclaw/metaclaw/store"
	"github.com/metaclaw/metaclaw/store/config"
)

// Judge scores a response to a turn's prompt on its own (*judge.Judge).
type Judge interface {
	ScoreResponse(ctx context.Context, turn store.Turn, text, toolCalls string) (store.Score, error)
}

// Codec is what the trainer needs of the policy's tokenizer and chat
// template; the serving side implements it.
type Codec interface {
	// DecodeResponse turns sampled tokens into the answer the agent
	// would have received: text and tool calls (a JSON array as in
	// store.Turn.ToolCalls, "" when none).
	DecodeResponse(tokens []int) (text, toolCalls string, err error)
	// StopTokens end a sampled response (the template's end of turn).
	StopTokens() []int
	// TokenText is a token's text, for checking an OPD teacher's tokens
	// ("" when unknown).
	TokenText(id int) string
}

// Service is what the trainer needs of the training service:
// *tinker.Client and *weaver.Client have it.
type Service interface {
	CreateModel(ctx context.Context, baseModel string, lora tinker.LoRAConfig) (tinker.Model, error)
	ForwardBackward(ctx context.Context, m tinker.Model, data []tinker.Datum, lossFn string, lossCfg map[string]float64) (tinker.FwdBwdResult, error)
	OptimStep(ctx context.Context, m tinker.Model, p tinker.AdamParams) (tinker.OptimResult, error)
	SaveWeights(ctx context.Context, m tinker.Model, name string) (string, error)
	SaveWeightsForSampler(ctx context.Context, m tinker.Model, name string) (string, error)
	LoadWeights(ctx context.Context, m tinker.Model, path string, withOptimizer bool) error
	CreateSamplingSession(ctx context.Context, baseModel, modelPath string) (tinker.SamplingSession, error)
	Sample(ctx context.Context, ss tinker.SamplingSession, prompt []int, p tinker.SamplingParams, numSamples int) (tinker.SampleResult, error)
}

// Windows tells when training windows are open (*idle.Scheduler).
type Windows interface {
	Subscribe() (<-chan idle.Transition, func())
	Status() idle.Window
}

// Teacher gives OPD log-probs (*opd.Teacher): one per token of seq given
// the tokens before it, NaN for the first.
type Teacher interface {
	Logprobs(ctx context.Context, seq []int) ([]float64, error)
}

var (
	_ Windows = (*idle.Scheduler)(nil)
	_ Teacher = (*opd.Teacher)(nil)
	_ Service = (*tinker.Client)(nil)
)

// Defaults of Options.
const (
	DefaultPoll         = 5 * time.Second
	DefaultRetryDelay   = time.Minute
	MaxRetryDelay       = 30 * time.Minute
	DefaultDrainTimeout = 2 * time.Minute
)

// Options configure a Trainer.
type Options struct {
	DB *store.DB
	// Client is a started training-service client (Tinker or Weaver,
	// see package backend); the caller runs its heartbeat.
	Client Service
	Config config.Config
	// Judge scores the responses of a group; nil: group size 1.
	Judge Judge
	// Codec reads extra responses for the judge and names stop tokens;
	// nil: group size 1.
	Codec Codec
	// Windows are the madmax training windows; nil: never open.
	Windows Windows
	// Teacher overrides the OPD teacher built from opd.* (tests).
	Teacher Teacher
	// Paused reports whether the person paused learning (nil: never).
	Paused func() bool
	// Publish is called with each new sampler checkpoint, after it became
	// the serving checkpoint, so serving switches to it at once. It must
	// not block.
	Publish func(path string)
	// Outcome is told how each training step went (nil: it worked), so
	// that a trainer that keeps failing is seen; nil: nobody.
	Outcome func(err error)
	Logger  *slog.Logger
	Now     func() time.Time
	// Poll is how often Serve looks for work and train-step requests.
	Poll time.Duration
	// RetryDelay is the first wait after a failed step (doubling up to
	// MaxRetryDelay); TrainStep does not wait.
	RetryDelay time.Duration
	// DrainTimeout bounds the step in flight and the final save at
	// shutdown.
	DrainTimeout time.Duration
}

// Trainer trains the policy's adapter. Make it with New, run Serve.
type Trainer struct {
	db      *store.DB
	client  Service
	log     *slog.Logger
	now     func() time.Time
	opts    Options
	serving atomic.Bool
	kick    chan struct{}

	cfgMu   sync.Mutex // guards cfg and teacher
	cfg     config.Config
	teacher Teacher

	stepMu sync.Mutex // one step at a time; guards the fields below
	run    *store.TrainingRun
	model  tinker.Model
	step   int   // optimizer steps of the current adapter's lineage
	last   int64 // id of the last done step of the current model (0: none)
	dirty  bool  // steps done since the last state checkpoint
	samp   map[string]tinker.SamplingSession

	failMu    sync.Mutex // guards the fields below
	failures  int        // automatic steps failed in a row
	retryAt   time.Time
	lastErr   string
	lastErrAt time.Time
	lastReq   string // the last train-step request answered
}

// ErrNothingToTrain is returned by TrainStep when no rewarded sample waits.
var ErrNothingToTrain = errors.New("no rewarded sample is waiting to be trained")

// ErrPaused is returned by TrainStep while learning is paused.
var ErrPaused = errors.New("learning is paused")

// ErrServing is returned by a second, concurrent call of Serve.
var ErrServing = errors.New("trainer: already serving")

// New returns a trainer; call Serve to run it.
func New(opts Options) *Trainer {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Paused == nil {
		opts.Paused = func() bool { return false }
	}
	opts.Poll = orDuration(opts.Poll, DefaultPoll)
	opts.RetryDelay = orDuration(opts.RetryDelay, DefaultRetryDelay)
	opts.DrainTimeout = orDuration(opts.DrainTimeout, DefaultDrainTimeout)
	t := &Trainer{db: opts.DB, client: opts.Client, log: opts.Logger.With("component", "trainer"), now: opts.Now,
		opts: opts, kick: make(chan struct{}, 1), samp: map[string]tinker.SamplingSession{}}
	t.SetConfig(opts.Config)
	return t
}

func orDuration(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}

// SetConfig applies a new configuration to the next step. A change of
// rl.model or rl.lora_rank starts a new training model at the next step.
func (t *Trainer) SetConfig(cfg config.Config) {
	teacher := t.opts.Teacher
	if teacher == nil && cfg.OPD.Enabled {
		var tokenText func(int) string
		if t.opts.Codec != nil {
			tokenText = t.opts.Codec.TokenText
		}
		tc, err := opd.New(opd.Options{BaseURL: cfg.OPD.TeacherURL, Model: cfg.OPD.TeacherModel,
			APIKey: cfg.OPD.TeacherAPIKey, TokenText: tokenText})
		if err != nil {
			t.log.Warn("opd off: teacher not usable", "error", err)
		} else {
			teacher = tc
		}
	}
	t.cfgMu.Lock()
	t.cfg, t.teacher = cfg, teacher
	t.cfgMu.Unlock()
}

func (t *Trainer) current() (config.Config, Teacher) {
	t.cfgMu.Lock()
	defer t.cfgMu.Unlock()
	return t.cfg, t.teacher
}

// Kick makes Serve look for work now rather than at its next poll, say
// after a turn was judged.
func (t *Trainer) Kick() {
	select {
	case t.kick <- struct{}{}:
	default:
	}
}

// groupSize is the effective group size: 1 without a judge or codec.
func (t *Trainer) groupSize(cfg config.Config) int {
	if t.opts.Judge == nil || t.opts.Codec == nil {
		return 1
	}
	return max(cfg.RL.GroupSize, 1)
}
