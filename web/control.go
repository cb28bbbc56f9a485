package web

import (
	"context"
	"time"

	"github.com/metaclaw/metaclaw/store"
	"github.com/metaclaw/metaclaw/store/config"
)

// Control is what the web page needs from the running app: its state, the
// pause switch, the configuration in force and where the log is. app
// implements it.
type Control interface {
	// Status is a snapshot of the running app.
	Status() Status
	// Paused reports whether learning is paused.
	Paused() bool
	// SetPaused pauses or resumes learning; the state persists.
	SetPaused(paused bool) error
	// Config is the configuration in force (loaded at start); the settings
	// page compares it with the stored one to say a restart is needed.
	Config() config.Config
	// LogPath is the log file shown by the log tail ("" when none).
	LogPath() string
	// Windows is the training-window state (madmax's scheduler).
	Windows() WindowStatus
	// ConnectCalendar starts Google Calendar's OAuth flow in the app and
	// returns the URL of Google's consent page; the app's loopback
	// listener completes the flow when the browser comes back.
	ConnectCalendar(ctx context.Context) (string, error)
	// DisconnectCalendar revokes the calendar grant and deletes the token.
	DisconnectCalendar(ctx context.Context) error
	// ApplySettings makes the running app take on the saved settings
	// that need no restart, now (it also does every few seconds).
	ApplySettings()
	// Restart stops MetaClaw and starts it again, so that every saved
	// setting applies; the page reconnects once it is back.
	Restart() error
	// TestConnection asks the provider of the saved llm.* settings for
	// its models (or, failing that, for a one-token answer) and says what
	// failed; nil when it answered.
	TestConnection(ctx context.Context) error
	// Policy is the trained policy's serving state (see PolicyStatus).
	Policy() PolicyStatus
	// SkillsFolder is the skills folder's last pass: the files skipped as
	// broken and the files filed under general; nil when the folder is
	// not kept (skills.sync_dir false) or was never read.
	SkillsFolder() *SkillsFolderStatus
	// ServeCheckpoint makes the policy serve the recorded sampler
	// checkpoint at path ("" = the base model) from now on: the training
	// page's rollback. It refuses any other path.
	ServeCheckpoint(ctx context.Context, path string) error
}

// WindowStatus is what the dashboard and the settings page show about the
// training windows and their signals. It holds no secret.
type WindowStatus struct {
	Enabled bool // training windows in use (madmax or scheduler.enabled)
	Open    bool
	Reason  string    // sleep, idle or meeting while open
	Until   time.Time // end of the open window; zero when unknown
	Detail  string    // a sentence: "sleep hours until 07:00", "learning paused"
	// IdleSource names the keyboard idle signal in use, or says why there
	// is none and whether the screen-activity fallback stands in.
	IdleSource        string
	Calendar          string // the calendar signal in words
	CalendarConnected bool
}

// Status is what the dashboard shows about the running app.
type Status struct {
	Version        string
	Mode           string // effective mode
	ConfiguredMode string
	ProxyURL       string // e.g. http://127.0.0.1:30000 (no /v1)
	Home           string
	StartedAt      time.Time
	TurnsToday     int
	Problems       []string // setup problems, each naming the key to set
	// Attention is what keeps going wrong (a key the provider rejects, a
	// learner component failing again and again, the budget spent).
	Attention []string
	Upstream  UpstreamStatus
	Spend     []store.Spend // what learning spent today, by component
	Budget    Budget
	Cuts      store.Cuts // turns cut to fit the context today
	// Restart lists saved keys that apply only after a restart.
	Restart []string
	// Rollout is programmatic rollout's progress; nil when it never ran.
	Rollout *RolloutStatus
}

// SkillsFolderStatus is what the skills page shows of skills.dir.
type SkillsFolderStatus struct {
	Dir    string
	Files  int        // skill files in step with the library
	Broken []FileNote // files skipped whole, with why
	Filed  []FileNote // files whose unknown category was filed under general
}

// FileNote is a file of the skills folder and what was said of it.
type FileNote struct {
	Path, Text string
}

// RolloutStatus is programmatic rollout's progress (openclaw_env_data_dir),
// as the running app last saved it.
type RolloutStatus struct {
	Dir       string // the task folder
	Agent     string // what runs the tasks: "openclaw" or "built-in tool loop"
	Tasks     int
	Rounds    int // episodes per task; 0 = forever
	Done      int // episodes finished
	Running   int
	Failed    int // episodes that failed
	LastError string
	Problems  []string // task lines skipped
	UpdatedAt time.Time
}

// UpstreamStatus is the provider's failures since the app started.
type UpstreamStatus struct {
	Turns, Failed int64
	Kinds         []KindCount // kinds that happened, in a fixed order
	LastAt        time.Time
	LastKind      string
	LastMessage   string
}

// KindCount is how often one kind of failure happened.
type KindCount struct {
	Kind  string
	Count int64
}

// Budget is learning.max_calls_per_day and today's use of it.
type Budget struct {
	Limit, Used int
	Reached     bool
}

// MemoryEditor changes memories on the person's behalf. app passes the
// memory service when it runs one; StoreMemories is the fallback that
// writes through the store (the running memory service notices changes by
// the scope's revision).
type MemoryEditor interface {
	AddMemory(ctx context.Context, in store.MemoryInput) (store.Memory, error)
	// EditMemory replaces a current memory's text (and type and topic when
	// not empty) with a new version; the old one stays as history.
	EditMemory(ctx context.Context, id int64, content, typ, topic string) (store.Memory, error)
	PinMemory(ctx context.Context, id int64, pinned bool) error
	// ForgetMemory deletes a memory and its earlier versions for good.
	ForgetMemory(ctx context.Context, id int64) error
}

// StoreMemories is a MemoryEditor that writes through the store directly.
type StoreMemories struct{ DB *store.DB }

var _ MemoryEditor = StoreMemories{}

// AddMemory adds the memory as it is (a person's memory: source "user",
// full confidence unless given).
func (m StoreMemories) AddMemory(ctx context.Context, in store.MemoryInput) (store.Memory, error) {
	if in.Source == "" {
		in.Source = "user"
	}
	if in.Confidence == 0 {
		in.Confidence = 1
	}
	return m.DB.AddMemory(ctx, in)
}

// EditMemory supersedes the memory with the new text, ended "edited".
func (m StoreMemories) EditMemory(ctx context.Context, id int64, content, typ, topic string) (store.Memory, error) {
	old, err := m.DB.Memory(ctx, id)
	if err != nil {
		return store.Memory{}, err
	}
	in := store.MemoryInput{Type: old.Type, Topic: old.Topic, Content: content, Importance: old.Importance,
		Confidence: 1, Source: "user", SessionID: old.SessionID, TurnIDs: old.TurnIDs}
	if typ != "" {
		in.Type = typ
	}
	if topic != "" {
		in.Topic = topic
	}
	op := store.MemoryOp{Kind: store.MemorySupersede, IDs: []int64{id}, Input: in, Reason: store.EndEdited}
	chs, _, err := m.DB.ApplyMemoryOps(ctx, old.Scope, []store.MemoryOp{op}, time.Now())
	if err != nil {
		return store.Memory{}, err
	}
	return chs[0].Memory, nil
}

// PinMemory pins or unpins a memory.
func (m StoreMemories) PinMemory(ctx context.Context, id int64, pinned bool) error {
	_, _, err := m.DB.SetMemoryPinned(ctx, id, pinned, time.Now())
	return err
}

// ForgetMemory deletes the memory and its history, then compacts the
// database so that nothing of it is left in the file.
func (m StoreMemories) ForgetMemory(ctx context.Context, id int64) error {
	if _, err := m.DB.ForgetMemories(ctx, "", []int64{id}, time.Now()); err != nil {
		return err
	}
	_, err := m.DB.Compact(ctx)
	return err
}
