package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// Bench run statuses.
const (
	BenchRunning = "running"
	BenchDone    = "done"
	BenchStopped = "stopped" // interrupted; running the same `bench run` again resumes it
)

// BenchReport is what one `metaclaw bench run` measured: for each arm
// (base, skills, skills+memory, full) the score of every round, the
// aggregates by day and by preference arc, what it spent and what it ended
// with, and the differences between arms. The JSON field names are the
// format of the report file (`bench run --out`) and of the stored report,
// so they only ever grow. app/bench fills it; the web page draws it.
type BenchReport struct {
	ID        string      `json:"id"`
	Benchmark string      `json:"benchmark"` // the name in all_tests.json
	Dir       string      `json:"dir"`       // the benchmark folder
	Agent     string      `json:"agent"`     // builtin or openclaw
	Model     string      `json:"model"`     // llm.model_id of the person's provider
	Status    string      `json:"status"`    // BenchRunning, BenchDone or BenchStopped
	StartedAt time.Time   `json:"started_at"`
	UpdatedAt time.Time   `json:"updated_at"`
	Days      []BenchDay  `json:"days"` // the days run, in order
	Arms      []BenchArm  `json:"arms"`
	Diffs     []BenchDiff `json:"differences"`
	Notes     []string    `json:"notes,omitempty"`
}

// BenchDay is one benchmark day (a test of all_tests.json).
type BenchDay struct {
	ID     string `json:"id"`
	Arc    string `json:"arc,omitempty"` // preference arc
	Rounds int    `json:"rounds"`
}

// BenchArm is one arm's results.
type BenchArm struct {
	Name          string        `json:"name"`  // base, skills, skills+memory or full
	Setup         string        `json:"setup"` // what the arm runs, in one line
	DaysDone      int           `json:"days_done"`
	Summary       BenchScore    `json:"summary"`
	ByDay         []BenchScore  `json:"by_day"`
	ByArc         []BenchScore  `json:"by_arc"`
	Agent         BenchUsage    `json:"agent_usage"`    // the agent's model calls
	Learning      BenchUsage    `json:"learning_usage"` // MetaClaw's own calls: evolver, judge, memory extraction, embeddings
	Skills        []BenchSkill  `json:"skills"`         // the skill library at the end
	Memories      []BenchMemory `json:"memories"`       // the current memories at the end
	TrainingSteps int           `json:"training_steps"`
	Rounds        []BenchRound  `json:"rounds"`
}

// BenchScore aggregates scored rounds: all of an arm's, or a day's or an
// arc's (Key names which).
type BenchScore struct {
	Key             string  `json:"key,omitempty"`
	Rounds          int     `json:"rounds"`
	Accuracy        float64 `json:"accuracy"` // mean round score, 0..1
	MultiChoice     int     `json:"multi_choice"`
	MultiChoiceMean float64 `json:"multi_choice_mean"`
	FileChecks      int     `json:"file_checks"`
	FileChecksOK    int     `json:"file_checks_passed"`
	FileCheckRate   float64 `json:"file_check_pass_rate"`
}

// BenchRound is one scored round.
type BenchRound struct {
	Day      string   `json:"day"`
	Round    string   `json:"round"`
	Type     string   `json:"type"` // multi_choice or file_check
	Score    float64  `json:"score"`
	Passed   bool     `json:"passed"`
	Selected []string `json:"selected,omitempty"` // multi_choice: the letters of the answer's \bbox{}
	Expected []string `json:"expected,omitempty"` // multi_choice: the right letters
	Format   bool     `json:"format_ok"`          // multi_choice: the answer had a \bbox{} with a letter
	Error    string   `json:"error,omitempty"`    // the agent failed on this round (it scores as answered)
}

// BenchUsage counts model calls and their tokens.
type BenchUsage struct {
	Calls            int64 `json:"calls"`
	PromptTokens     int64 `json:"prompt_tokens"`
	CompletionTokens int64 `json:"completion_tokens"`
}

// BenchDiff is the difference of an arm's round scores from a baseline
// arm's, paired by round, with a confidence interval.
type BenchDiff struct {
	Arm      string  `json:"arm"`
	Baseline string  `json:"baseline"`
	Rounds   int     `json:"rounds"` // rounds both arms scored
	Mean     float64 `json:"mean"`   // mean of (arm − baseline)
	Low      float64 `json:"ci_low"`
	High     float64 `json:"ci_high"`
	Method   string  `json:"method"`
}

// BenchSkill is a skill an arm ended with.
type BenchSkill struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Source      string `json:"source"` // starter, evolver, import…
	Version     int    `json:"version"`
}

// BenchMemory is a memory an arm ended with.
type BenchMemory struct {
	Type    string `json:"type"`
	Content string `json:"content"`
}

// SaveBenchReport stores a report, replacing the stored one with the same
// ID.
func (db *DB) SaveBenchReport(ctx context.Context, r *BenchReport) error {
	if r.ID == "" {
		return errors.New("save bench report: no id")
	}
	js, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("save bench report %s: %w", r.ID, err)
	}
	_, err = db.sql.ExecContext(ctx, `INSERT INTO bench_runs(id, benchmark, status, started_at, updated_at, report)
		VALUES(?,?,?,?,?,?) ON CONFLICT(id) DO UPDATE SET benchmark = excluded.benchmark, status = excluded.status,
		updated_at = excluded.updated_at, report = excluded.report`,
		r.ID, r.Benchmark, r.Status, r.StartedAt.UnixMilli(), r.UpdatedAt.UnixMilli(), string(js))
	if err != nil {
		return fmt.Errorf("save bench report %s: %w", r.ID, err)
	}
	return nil
}

// BenchReports returns the stored reports, most recently updated first.
func (db *DB) BenchReports(ctx context.Context, limit int) ([]BenchReport, error) {
	rows, err := db.sql.QueryContext(ctx, "SELECT id, report FROM bench_runs ORDER BY updated_at DESC, id LIMIT ?", limit)
	if err != nil {
		return nil, fmt.Errorf("list bench reports: %w", err)
	}
	defer rows.Close()
	var out []BenchReport
	for rows.Next() {
		r, err := scanBenchReport(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list bench reports: %w", err)
	}
	return out, nil
}

// BenchReportByID returns one stored report (ErrNotFound when there is
// none with that ID).
func (db *DB) BenchReportByID(ctx context.Context, id string) (BenchReport, error) {
	r, err := scanBenchReport(db.sql.QueryRowContext(ctx, "SELECT id, report FROM bench_runs WHERE id = ?", id))
	if errors.Is(err, sql.ErrNoRows) {
		return r, fmt.Errorf("bench report %s: %w", id, ErrNotFound)
	}
	return r, err
}

func scanBenchReport(row interface{ Scan(...any) error }) (BenchReport, error) {
	var id, js string
	var r BenchReport
	if err := row.Scan(&id, &js); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return r, err
		}
		return r, fmt.Errorf("read bench report: %w", err)
	}
	if err := json.Unmarshal([]byte(js), &r); err != nil {
		return r, fmt.Errorf("read bench report %s: %w", id, err)
	}
	return r, nil
}
