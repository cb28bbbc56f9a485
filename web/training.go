package web

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/metaclaw/metaclaw/store"
)

// PolicyStatus is the trained policy's serving state, as the training page
// shows it. The zero value means no policy runs (the mode does not train,
// or its requirements are missing).
type PolicyStatus struct {
	Enabled   bool   // a policy server runs (rl or madmax)
	Ready     bool   // it serves the agent's turns now
	Reason    string // why it does not, when not Ready
	BaseModel string // rl.model
	Serving   string // sampler checkpoint new requests use; "" = the base model
	Wanted    string // checkpoint to serve; differs from Serving while a swap is under way or failing
	SwapError string // why opening a sampling session for Wanted failed
}

// How much of the training record the page shows.
const (
	chartSteps      = 200 // steps drawn in the charts
	tableSteps      = 50
	tableRuns       = 20
	tableCkpts      = 60
	tableSamples    = 30
	tableEvolutions = 10
)

// sampleCounts are the samples by status.
type sampleCounts struct{ Waiting, Trained, Stale, Skipped int }

// sampleRow is a sample as the page shows it: token counts, never tokens.
type sampleRow struct {
	ID, TurnID, StepID          int64
	Kind, Status, Reason        string
	Reward                      string // "+1 (turn)", "not judged"
	Generation                  int
	Checkpoint                  string
	PromptTokens, SampledTokens int
	CreatedAt                   time.Time
}

// trainingViewData is the training page: the policy's state, the samples,
// the charts and the record of runs, steps and checkpoints.
type trainingViewData struct {
	Mode, ConfiguredMode, Backend, BaseModel string
	KeySet                                   bool
	Problems                                 []string
	Policy                                   PolicyStatus
	Serving                                  string // the recorded serving checkpoint; "" = the base model
	Counts                                   sampleCounts
	Loss, Reward                             LineChart
	Steps                                    []store.TrainingStep // newest first
	StepNo                                   map[int64]int        // step number by step ID, for the checkpoints
	Runs                                     []store.TrainingRun
	Checkpoints                              []store.Checkpoint
	Samples                                  []sampleRow
	Evolutions                               []store.Evolution // applied ones, newest first
	Err                                      string            // why a rollback was refused
}

// trainingView is the training page.
func (s *Server) trainingView(c *fiber.Ctx) error {
	return s.renderTraining(c, fiber.StatusOK, "")
}

// renderTraining renders the training page with status, showing errMsg
// (a refused rollback) when not empty.
func (s *Server) renderTraining(c *fiber.Ctx, status int, errMsg string) error {
	d, err := s.loadTraining(c.UserContext())
	if err != nil {
		return err
	}
	d.Err = errMsg
	return s.render(c, status, trainingViewPage(s.page(c, "Training", "training"), d))
}

// loadTraining reads what the training page shows.
func (s *Server) loadTraining(ctx context.Context) (trainingViewData, error) {
	cfg, st := s.opts.Control.Config(), s.opts.Control.Status()
	d := trainingViewData{Mode: st.Mode, ConfiguredMode: st.ConfiguredMode, Backend: cfg.RL.Backend, BaseModel: cfg.RL.Model,
		KeySet: cfg.RL.APIKey != "", Problems: st.Problems, Policy: s.opts.Control.Policy()}
	db := s.opts.DB
	var err error
	if d.Serving, err = db.ServingCheckpoint(ctx); err != nil {
		return d, err
	}
	counts, err := db.SampleCounts(ctx)
	if err != nil {
		return d, err
	}
	d.Counts = sampleCounts{Waiting: counts[store.SampleWaiting], Trained: counts[store.SampleTrained],
		Stale: counts[store.SampleStale], Skipped: counts[store.SampleSkipped]}
	steps, err := db.Steps(ctx, 0, chartSteps)
	if err != nil {
		return d, err
	}
	d.Loss, d.Reward = lossLine(lossPoints(steps)), rewardLine(rewardPoints(steps))
	d.Steps = steps[:min(len(steps), tableSteps)]
	d.StepNo = make(map[int64]int, len(steps))
	for _, st := range steps {
		d.StepNo[st.ID] = st.Step
	}
	return d, s.loadRecords(ctx, &d)
}

// loadRecords reads the runs, checkpoints and recent samples into d.
func (s *Server) loadRecords(ctx context.Context, d *trainingViewData) error {
	var err error
	if d.Runs, err = s.opts.DB.Runs(ctx, tableRuns); err != nil {
		return err
	}
	if d.Checkpoints, err = s.opts.DB.Checkpoints(ctx, "", tableCkpts); err != nil {
		return err
	}
	evos, err := s.opts.DB.Evolutions(ctx, 50)
	if err != nil {
		return err
	}
	for _, e := range evos {
		if e.Status == "applied" && len(d.Evolutions) < tableEvolutions {
			d.Evolutions = append(d.Evolutions, e)
		}
	}
	samples, err := s.opts.DB.RecentSamples(ctx, tableSamples)
	if err != nil {
		return err
	}
	for _, sm := range samples {
		d.Samples = append(d.Samples, toSampleRow(sm))
	}
	return nil
}

// toSampleRow keeps what the page shows of a sample.
func toSampleRow(sm store.Sample) sampleRow {
	r := sampleRow{ID: sm.ID, TurnID: sm.TurnID, StepID: sm.StepID, Kind: sm.Kind, Status: sm.Status, Reason: sm.Reason,
		Reward: "not judged", Generation: sm.SkillGeneration, Checkpoint: sm.Checkpoint,
		PromptTokens: len(sm.PromptTokens), SampledTokens: len(sm.SampledTokens), CreatedAt: sm.CreatedAt}
	if sm.Reward != nil {
		r.Reward = fmtSigned(*sm.Reward)
		if sm.RewardSource != "" {
			r.Reward += " (" + sm.RewardSource + ")"
		}
	}
	return r
}

// trainingServe is the rollback: it makes the policy serve a recorded
// sampler checkpoint (form field path), or the base model (field base).
func (s *Server) trainingServe(c *fiber.Ctx) error {
	ctx := c.UserContext()
	path := strings.TrimSpace(c.FormValue("path"))
	if c.FormValue("base") != "" {
		path = ""
	} else {
		msg, err := s.servableProblem(ctx, path)
		if err != nil {
			return err
		}
		if msg != "" {
			return s.renderTraining(c, fiber.StatusUnprocessableEntity, msg)
		}
	}
	if err := s.opts.Control.ServeCheckpoint(ctx, path); err != nil {
		return s.renderTraining(c, fiber.StatusUnprocessableEntity, "The serving checkpoint was not changed: "+err.Error())
	}
	if path == "" {
		return s.done(c, "/training", "Serving the base model (rolled back).")
	}
	return s.done(c, "/training", "Serving "+path+" (rolled back).")
}

// servableProblem says why path cannot be served, "" when it can: it must
// be a recorded sampler checkpoint of the base model in force.
func (s *Server) servableProblem(ctx context.Context, path string) (string, error) {
	if path == "" {
		return "Refused: no checkpoint was chosen.", nil
	}
	shown := truncate(path, 200)
	ck, err := s.opts.DB.CheckpointByPath(ctx, path)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return fmt.Sprintf("Refused: %s is not a recorded checkpoint. Choose a sampler checkpoint from the table, or serve the base model.", shown), nil
	case err != nil:
		return "", err
	case ck.Kind != store.CheckpointSampler:
		return fmt.Sprintf("Refused: %s is a %s checkpoint (training state, for resuming): only sampler checkpoints can be served.", shown, ck.Kind), nil
	}
	if model := s.opts.Control.Config().RL.Model; ck.BaseModel != "" && ck.BaseModel != model {
		return fmt.Sprintf("Refused: %s was trained from base model %s, but rl.model is %s.", shown, ck.BaseModel, model), nil
	}
	return "", nil
}

// stepLabel names the step a checkpoint was saved by: its step number,
// or its record number (#id) when it is older than the steps read.
func (d trainingViewData) stepLabel(id int64) string {
	if n, ok := d.StepNo[id]; ok {
		return strconv.Itoa(n)
	}
	if id == 0 {
		return "–"
	}
	return "#" + strconv.FormatInt(id, 10)
}

// servable reports whether the page offers to serve ck.
func servable(ck store.Checkpoint, baseModel string) bool {
	return ck.Kind == store.CheckpointSampler && (ck.BaseModel == "" || ck.BaseModel == baseModel)
}

// policyState is the policy's state in a word or two, with its badge class.
func policyState(p PolicyStatus) (string, string) {
	switch {
	case !p.Enabled:
		return "off", "badge"
	case p.Ready:
		return "serving", "badge good"
	}
	return "not serving", "badge bad"
}

// checkpointName is a serving checkpoint as the page names it.
func checkpointName(path string) string {
	if path == "" {
		return "the base model"
	}
	return path
}

// fmtDuration formats a step's duration, "–" when unknown.
func fmtDuration(d time.Duration) string {
	if d < time.Minute {
		return fmtMS(float64(d.Milliseconds()))
	}
	return d.Round(time.Second).String()
}

// stepLoss is a step's loss as the table shows it: "–" for a step that
// did not finish.
func stepLoss(st store.TrainingStep) string {
	if !finished(st) {
		return "–"
	}
	return fmtFloat(st.Loss)
}

// fmtReward formats a step's reward mean and spread: "+0.25 ± 0.4".
func fmtReward(mean, std float64) string {
	if !finite(mean) {
		return "–"
	}
	if !finite(std) {
		return fmtSigned(mean)
	}
	return fmtSigned(mean) + " ± " + fmtFloat(std)
}

// fmtMetrics lists a step's metrics sorted by name, each as "kl = 0.01".
func fmtMetrics(m map[string]float64) []string {
	out := make([]string, 0, len(m))
	for k, v := range m {
		out = append(out, k+" = "+fmtFloat(v))
	}
	slices.Sort(out)
	return out
}

// orDash shows "–" for an empty value.
func orDash(s string) string {
	if s == "" {
		return "–"
	}
	return s
}

// recordClass is the badge class of a run, step or sample status.
func recordClass(status string) string {
	switch status {
	case store.StepDone, store.RunEnded, store.SampleTrained:
		return "badge good"
	case store.StepFailed, store.SampleSkipped:
		return "badge bad"
	case store.StepDiscarded, store.SampleStale:
		return "badge warn"
	}
	return "badge"
}

// millisTime reads unix milliseconds.
func millisTime(ms int64) time.Time {
	if ms == 0 {
		return time.Time{}
	}
	return time.UnixMilli(ms)
}
