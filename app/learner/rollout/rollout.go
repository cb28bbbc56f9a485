// Package rollout is programmatic rollout (the reference's
// openclaw_env_data_dir, metaclaw/openclaw_env_rollout.py): it runs the
// tasks of a folder of JSONL files through the configured agent without a
// person at its keyboard (OpenClaw's non-interactive agent command, or a
// built-in tool loop when claw_type is none), so their turns go through
// the proxy and are recorded, judged, evolved from and trained on like
// live ones. Unlike the reference, which samples tasks forever, each task
// runs openclaw_env_rounds times (0 = forever) and progress survives a
// restart. learner.Build makes its Runner from openclaw_env_* (Configure).
package rollout

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/metaclaw/metaclaw/store"
)

// Agent runs one episode of a task in the given session.
type Agent interface {
	Run(ctx context.Context, t Task, session string) (steps int, err error)
}

// Options configures a Runner.
type Options struct {
	DB          *store.DB
	Dir, Split  string
	Concurrency int // episodes at once (the reference's openclaw_env_concurrency)
	Rounds      int // episodes per task; 0 = forever
	Agent       Agent
	AgentName   string      // what Agent is, for the page and status
	Paused      func() bool // learning paused: no new episode starts
	Logger      *slog.Logger
	// Retry is the wait before tasks are read again (new tasks, failed
	// episodes).
	Retry time.Duration
}

// MetaProgress is the meta key that holds the rollout's progress.
const MetaProgress = "rollout_progress"

// maxFailures is how often a task's episode may fail before it is left.
const maxFailures = 3

// Progress is the rollout's state, shown by status.
type Progress struct {
	Dir       string         `json:"dir"`
	Agent     string         `json:"agent,omitempty"`
	Tasks     int            `json:"tasks"`
	Rounds    int            `json:"rounds"`
	Done      int            `json:"done"`   // episodes finished
	Failed    int            `json:"failed"` // episodes that failed
	Running   int            `json:"running"`
	LastError string         `json:"last_error,omitempty"`
	Problems  []string       `json:"problems,omitempty"` // task lines skipped
	UpdatedAt time.Time      `json:"updated_at"`
	Episodes  map[string]int `json:"episodes"` // task id → episodes finished
	Failures  map[string]int `json:"failures"` // task id → failed episodes
}

// Runner runs the tasks.
type Runner struct {
	opts Options
	log  *slog.Logger
	mu   sync.Mutex // guards prog
	prog Progress
}

// New returns a Runner; Serve runs it.
func New(opts Options) *Runner {
	if opts.Concurrency < 1 {
		opts.Concurrency = 1
	}
	if opts.Retry <= 0 {
		opts.Retry = time.Minute
	}
	if opts.Paused == nil {
		opts.Paused = func() bool { return false }
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	return &Runner{opts: opts, log: opts.Logger}
}

// Serve runs every due episode, then reads the tasks again every Retry
// (new tasks, failed episodes) until ctx ends.
func (r *Runner) Serve(ctx context.Context) error {
	if err := r.load(ctx); err != nil {
		r.log.Warn("rollout progress unreadable; starting afresh", "err", err)
	}
	for {
		r.pass(ctx)
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(r.opts.Retry):
		}
	}
}

func (r *Runner) load(ctx context.Context) error {
	r.prog = Progress{Dir: r.opts.Dir, Agent: r.opts.AgentName, Rounds: r.opts.Rounds, Episodes: map[string]int{}, Failures: map[string]int{}}
	v, err := r.opts.DB.Meta(ctx, MetaProgress)
	if err != nil || v == "" {
		return err
	}
	var p Progress
	if err := json.Unmarshal([]byte(v), &p); err != nil {
		return err
	}
	if p.Dir == r.opts.Dir && p.Episodes != nil {
		p.Rounds, p.Running, p.Agent = r.opts.Rounds, 0, r.opts.AgentName
		if p.Failures == nil {
			p.Failures = map[string]int{}
		}
		r.prog = p
	}
	return nil
}

// pass runs the episodes due now.
func (r *Runner) pass(ctx context.Context) {
	tasks, problems, err := LoadTasks(r.opts.Dir, r.opts.Split)
	r.update(ctx, func(p *Progress) {
		p.Tasks, p.Problems = len(tasks), problems
		if err != nil {
			p.LastError = err.Error()
		}
	})
	if err != nil {
		return
	}
	jobs := make(chan Task)
	var wg sync.WaitGroup
	for range r.opts.Concurrency {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for t := range jobs {
				r.episode(ctx, t)
			}
		}()
	}
	r.feed(ctx, tasks, jobs)
	close(jobs)
	wg.Wait()
}

// feed sends the due episodes round by round.
func (r *Runner) feed(ctx context.Context, tasks []Task, jobs chan<- Task) {
	for round := 0; r.opts.Rounds == 0 || round < r.opts.Rounds; round++ {
		sent := 0
		for _, t := range tasks {
			r.mu.Lock()
			due := r.prog.Episodes[t.ID] <= round && r.prog.Failures[t.ID] < maxFailures
			r.mu.Unlock()
			if !due {
				continue
			}
			for r.opts.Paused() {
				select {
				case <-ctx.Done():
					return
				case <-time.After(2 * time.Second):
				}
			}
			select {
			case <-ctx.Done():
				return
			case jobs <- t:
				sent++
			}
		}
		if sent == 0 && round >= r.maxEpisodes() {
			return
		}
	}
}

func (r *Runner) maxEpisodes() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, e := range r.prog.Episodes {
		n = max(n, e)
	}
	return n
}

func (r *Runner) episode(ctx context.Context, t Task) {
	session := sessionID(t.ID)
	r.update(ctx, func(p *Progress) { p.Running++ })
	steps, err := r.opts.Agent.Run(ctx, t, session)
	if ctx.Err() != nil {
		r.update(context.WithoutCancel(ctx), func(p *Progress) { p.Running-- })
		return
	}
	r.update(ctx, func(p *Progress) {
		p.Running--
		if err != nil {
			p.Failed++
			p.Failures[t.ID]++
			p.LastError = fmt.Sprintf("task %s: %v", t.ID, err)
			return
		}
		p.Done++
		p.Episodes[t.ID]++
	})
	if err != nil {
		r.log.Warn("rollout episode failed", "task", t.ID, "session", session, "err", err)
		return
	}
	r.log.Info("rollout episode done", "task", t.ID, "session", session, "steps", steps)
}

// update changes the progress and saves it.
func (r *Runner) update(ctx context.Context, change func(*Progress)) {
	r.mu.Lock()
	change(&r.prog)
	r.prog.UpdatedAt = time.Now()
	data, _ := json.Marshal(r.prog)
	r.mu.Unlock()
	if err := r.opts.DB.SetMeta(ctx, MetaProgress, string(data)); err != nil {
		r.log.Warn("save rollout progress", "err", err)
	}
}

// Progress returns the rollout's progress.
func (r *Runner) Progress() Progress {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.prog
}

// ReadProgress returns the progress the running app last saved.
func ReadProgress(ctx context.Context, db *store.DB) (Progress, bool, error) {
	v, err := db.Meta(ctx, MetaProgress)
	if err != nil || v == "" {
		return Progress{}, false, err
	}
	var p Progress
	if err := json.Unmarshal([]byte(v), &p); err != nil {
		return Progress{}, false, nil
	}
	return p, true, nil
}

// sessionID is an episode's session, "env-<task>-<random>" as the
// reference names them.
func sessionID(task string) string {
	var b [3]byte
	rand.Read(b[:])
	t := strings.Map(func(r rune) rune {
		if r < 0x21 || r > 0x7e {
			return '_'
		}
		return r
	}, task)
	if len(t) > 24 {
		t = t[:24]
	}
	return "env-" + t + "-" + hex.EncodeToString(b[:])
}
