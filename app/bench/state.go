package bench

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/metaclaw/metaclaw/store"
)

// stateVersion is the version of the state file's format.
const stateVersion = 1

// State is what a run has done so far, kept in the work folder
// (state.json) and rewritten after every scored round, so that an
// interrupted run resumes where it stopped.
type State struct {
	Version   int                  `json:"version"`
	ID        string               `json:"id"`
	Key       string               `json:"key"`  // the run's settings; a different run refuses the folder
	Plan      string               `json:"plan"` // the same, readable
	StartedAt time.Time            `json:"started_at"`
	Arms      map[string]*ArmState `json:"arms"`
}

// ArmState is one arm's progress.
type ArmState struct {
	DaysDone int                `json:"days_done"` // days played and learnt from
	Sent     int                `json:"sent"`      // messages of the current day sent and recorded
	Rounds   []store.BenchRound `json:"rounds"`
	Agent    store.BenchUsage   `json:"agent_usage"`
	Learning store.BenchUsage   `json:"learning_usage"`
	Notes    []string           `json:"notes,omitempty"`
}

// planKey fingerprints the settings that must match for a run to resume.
func planKey(parts ...string) (key, plan string) {
	plan = strings.Join(parts, " | ")
	sum := sha256.Sum256([]byte(plan))
	return hex.EncodeToString(sum[:8]), plan
}

func statePath(work string) string { return filepath.Join(work, "state.json") }

// loadState reads the work folder's state; a missing one is a fresh run
// (nil, nil).
func loadState(work string) (*State, error) {
	data, err := os.ReadFile(statePath(work))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var st State
	if err := json.Unmarshal(data, &st); err != nil {
		return nil, fmt.Errorf("read %s: %w (remove the folder, or run with --fresh)", statePath(work), err)
	}
	if st.Version != stateVersion {
		return nil, fmt.Errorf("%s is of another version of metaclaw bench; run with --fresh", statePath(work))
	}
	return &st, nil
}

func (st *State) save(work string) error { return writeJSON(statePath(work), st) }

// round returns the scored round of a day, if any.
func (a *ArmState) round(day, round string) (store.BenchRound, bool) {
	for _, r := range a.Rounds {
		if r.Day == day && r.Round == round {
			return r, true
		}
	}
	return store.BenchRound{}, false
}

func addUsage(a *store.BenchUsage, b store.BenchUsage) {
	a.Calls += b.Calls
	a.PromptTokens += b.PromptTokens
	a.CompletionTokens += b.CompletionTokens
}
