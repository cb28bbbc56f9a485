package web

import (
	"context"
	"math"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/google/go-cmp/cmp"
	"github.com/metaclaw/metaclaw/store"
)

func (f *fakeControl) Policy() PolicyStatus {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.policy
}

func (f *fakeControl) setPolicy(p PolicyStatus) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.policy = p
}

// ServeCheckpoint records the path and, as the app does, stores it as the
// serving checkpoint; it does not validate (the handler must).
func (f *fakeControl) ServeCheckpoint(ctx context.Context, path string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.served = append(f.served, path)
	return nil
}

func (f *fakeControl) servedPaths() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.served...)
}

// trainingSeed is what seedTraining recorded.
type trainingSeed struct {
	samplers []string // sampler checkpoint paths, oldest first
	state    string   // a state checkpoint path
	other    string   // a sampler checkpoint of another base model
	done     int      // finished steps
}

const seedModel = "Qwen/Qwen3-8B" // rl.model's default

// promptMarker is a token id no page may show: tokens are never rendered.
const promptMarker = 7654321

// seedTraining records through the store one run with four finished
// steps (each with a sampler checkpoint, the last also a state one) and a
// failed fifth, the samples they trained, and waiting, stale and skipped
// samples; the last sampler checkpoint is the serving one.
func seedTraining(t *testing.T, db *store.DB) trainingSeed {
	t.Helper()
	ctx := context.Background()
	var seed trainingSeed
	run := &store.TrainingRun{ModelID: "model-run-1", BaseModel: seedModel, LoRARank: 32}
	must(t, db.InsertRun(ctx, run))
	for i := 1; i <= 4; i++ {
		ids := insertSamples(t, db, 2, true, 1)
		st := &store.TrainingStep{RunID: run.ID, Step: i, SamplesUsed: 2, Datums: 8,
			RewardMean: 0.25 * float64(i-2), RewardStd: 0.5}
		must(t, db.BeginStep(ctx, st))
		st.Loss, st.Duration = 1.0/float64(i), time.Duration(i)*1500*time.Millisecond
		st.Metrics = map[string]float64{"kl": 0.01 * float64(i)}
		st.SamplerPath = "tinker://run-1/sampler_weights/" + itoa(i)
		ckpts := []*store.Checkpoint{{Kind: store.CheckpointSampler, Path: st.SamplerPath, BaseModel: seedModel}}
		if i == 4 {
			st.StatePath = "tinker://run-1/weights/" + itoa(i)
			ckpts = append(ckpts, &store.Checkpoint{Kind: store.CheckpointState, Path: st.StatePath, BaseModel: seedModel})
			seed.state = st.StatePath
		}
		must(t, db.FinishStep(ctx, st, ids, ckpts...))
		seed.samplers = append(seed.samplers, st.SamplerPath)
		seed.done++
	}
	failed := &store.TrainingStep{RunID: run.ID, Step: 5, RewardMean: math.NaN(), RewardStd: math.NaN()}
	must(t, db.BeginStep(ctx, failed))
	must(t, db.FailStep(ctx, failed, "forward_backward: service unavailable"))
	seed.other = "tinker://old/sampler_weights/9"
	must(t, db.InsertCheckpoint(ctx, &store.Checkpoint{Kind: store.CheckpointSampler, Path: seed.other, BaseModel: "Qwen/Qwen3-4B"}))
	insertSamples(t, db, 3, true, 1)  // waiting
	insertSamples(t, db, 1, true, 0)  // stale below
	insertSamples(t, db, 2, false, 1) // skipped: the fallback served them
	if _, err := db.MarkStaleBefore(ctx, 1); err != nil {
		t.Fatal(err)
	}
	must(t, db.SetServingCheckpoint(ctx, seed.samplers[3]))
	return seed
}

// insertSamples records n served samples and returns their ids.
func insertSamples(t *testing.T, db *store.DB, n int, trainable bool, generation int) []int64 {
	t.Helper()
	var ids []int64
	for range n {
		r := 1.0
		sm := &store.Sample{SessionID: "sess-rl", PromptTokens: []int{promptMarker, 2, 3}, SampledTokens: []int{4, 5},
			SampledLogprobs: []float64{-0.1, -0.2}, BaseModel: seedModel, Checkpoint: seedModel, SkillGeneration: generation,
			Trainable: trainable, Reward: &r, RewardSource: store.RewardFromTurn}
		must(t, db.InsertSample(context.Background(), sm))
		ids = append(ids, sm.ID)
	}
	return ids
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// count counts the elements with a data-testid in a page.
func count(body, testid string) int {
	return strings.Count(body, `data-testid="`+testid+`"`)
}

// TestTrainingPageShowsTheRecord seeds runs, steps, checkpoints and samples
// and checks the page's numbers, its charts (one dot per finished step)
// and its rollback buttons.
func TestTrainingPageShowsTheRecord(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	seed := seedTraining(t, e.db)
	e.ctl.setPolicy(PolicyStatus{Enabled: true, Ready: false, Reason: "tokenizer: hub unreachable", BaseModel: seedModel,
		Serving: seed.samplers[2], Wanted: seed.samplers[3], SwapError: "sampling session: 503"})
	c := e.login(t)
	p := e.get(t, c, "/training")
	if p.status != http.StatusOK {
		t.Fatalf("status %d: %.500s", p.status, p.body)
	}
	texts := map[string]string{"samples-waiting": "3", "samples-trained": "8", "policy-state": "not serving",
		"policy-reason": "tokenizer: hub unreachable", "policy-serving": seed.samplers[2], "policy-wanted": seed.samplers[3],
		"policy-swap-error": "sampling session: 503", "serving-checkpoint": seed.samplers[3], "base-model": seedModel}
	for id, want := range texts {
		if got := testidText(p.body, id); got != want {
			t.Errorf("%s = %q, want %q", id, got, want)
		}
	}
	for id, want := range map[string]string{"samples-stale": "1 ", "samples-skipped": "2 "} {
		if got := testidText(p.body, id); !strings.HasPrefix(got, want) {
			t.Errorf("%s = %q, want it to start with %q", id, got, want)
		}
	}
	counts := map[string]int{"loss-chart-dot": seed.done, "reward-chart-dot": seed.done, "reward-chart-band": 1,
		"loss-chart-band": 0, "step-row": seed.done + 1, "run-row": 1, "checkpoint-row": len(seed.samplers) + 2,
		"sample-row": 14, "serving-row": 1, "serve-base": 1, "rollback-note": 1}
	for id, want := range counts {
		if got := count(p.body, id); got != want {
			t.Errorf("%d elements %s, want %d", got, id, want)
		}
	}
	for _, want := range []string{"forward_backward: service unavailable", "+0.5 ± 0.5", "kl = 0.04", "6.00 s",
		"another base model", "state, to resume training", "3 / 2"} {
		if !strings.Contains(p.body, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if strings.Contains(p.body, itoa(promptMarker)) {
		t.Error("the page shows a sample's tokens")
	}
	// Every recorded sampler checkpoint but the serving one has a button.
	if n := len(regexp.MustCompile(`data-testid="serve-\d+"`).FindAllString(p.body, -1)); n != len(seed.samplers)-1 {
		t.Errorf("%d serve buttons, want %d", n, len(seed.samplers)-1)
	}
}

// TestTrainingChartsOrderAndBand checks the chart geometry: oldest step
// left, the band's upper edge then its lower edge back.
func TestTrainingChartsOrderAndBand(t *testing.T) {
	t.Parallel()
	steps := []store.TrainingStep{ // newest first, as the store returns them
		{Step: 3, Status: store.StepFailed, Loss: 0, RewardMean: math.NaN(), RewardStd: math.NaN()},
		{Step: 2, Status: store.StepDone, Loss: 0.5, RewardMean: 1, RewardStd: 0},
		{Step: 1, Status: store.StepDone, Loss: 1, RewardMean: -1, RewardStd: math.NaN()},
	}
	loss := lossLine(lossPoints(steps))
	if diff := cmp.Diff([]string{"1", "2"}, tickLabels(loss.XTicks)); diff != "" {
		t.Errorf("loss x ticks (-want +got):\n%s", diff)
	}
	if len(loss.Dots) != 2 || loss.Band != "" || coord(t, loss.Dots[0].Y) >= coord(t, loss.Dots[1].Y) {
		t.Errorf("loss chart: %d dots, band %q, dots %v: want step 1's loss 1 above step 2's 0.5", len(loss.Dots), loss.Band, loss.Dots)
	}
	reward := rewardLine(rewardPoints(steps))
	if len(reward.Dots) != 2 || reward.ZeroY == "" {
		t.Fatalf("reward chart: %d dots, zero %q", len(reward.Dots), reward.ZeroY)
	}
	band := strings.Fields(reward.Band)
	if len(band) != 4 || band[0] != reward.Dots[0].X+","+reward.Dots[0].Y || band[3] != band[0] {
		t.Errorf("band %q around dots %v: a zero or unknown spread sits on the line", reward.Band, reward.Dots)
	}
	if !strings.Contains(reward.Summary, "+1 ± 0 at step 2") {
		t.Errorf("reward summary %q", reward.Summary)
	}
	if empty := lossLine(nil); len(empty.Dots) != 0 || empty.Path != "" {
		t.Errorf("no steps drew %+v", empty)
	}
}

func coord(t *testing.T, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func tickLabels(ts []Tick) []string {
	var out []string
	for _, t := range ts {
		out = append(out, t.Label)
	}
	return out
}

func TestNiceTicks(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		lo, hi float64
		want   []string
	}{
		{"unit reward", -1, 1, []string{"-1.0", "-0.5", "0", "0.5", "1.0"}},
		{"small loss", 0.12, 0.31, []string{"0.10", "0.15", "0.20", "0.25", "0.30", "0.35"}},
		{"large", 3, 180, []string{"0", "50", "100", "150", "200"}},
		{"flat", 2, 2, []string{"1.8", "1.9", "2.0", "2.1", "2.2"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ticks, step := niceTicks(tc.lo, tc.hi)
			var got []string
			for _, v := range ticks {
				got = append(got, tickLabel(v, step))
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("ticks of %v..%v (-want +got):\n%s", tc.lo, tc.hi, diff)
			}
			if ticks[0] > tc.lo || ticks[len(ticks)-1] < tc.hi {
				t.Errorf("ticks %v do not cover %v..%v", ticks, tc.lo, tc.hi)
			}
		})
	}
}

// TestTrainingRollback posts the rollback form: refused without the CSRF
// token, refused for a path that cannot be served, and otherwise handed
// to the app with the path, followed by the flash.
func TestTrainingRollback(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	seed := seedTraining(t, e.db)
	c := e.login(t)
	token := e.csrf(t, c)
	if p := e.do(t, c, "POST", "/training/serve", url.Values{"path": {seed.samplers[1]}}, nil); p.status != http.StatusForbidden {
		t.Errorf("without the CSRF token: status %d", p.status)
	}
	if got := e.ctl.servedPaths(); len(got) != 0 {
		t.Fatalf("a refused POST reached the app: %q", got)
	}
	refused := []struct {
		name, path, want string
	}{
		{"unknown", "tinker://nowhere/sampler_weights/1", "is not a recorded checkpoint"},
		{"state", seed.state, "only sampler checkpoints can be served"},
		{"other base model", seed.other, "trained from base model Qwen/Qwen3-4B, but rl.model is " + seedModel},
		{"empty", "", "no checkpoint was chosen"},
	}
	for _, tc := range refused {
		p := e.do(t, c, "POST", "/training/serve", url.Values{"path": {tc.path}, "_csrf": {token}}, nil)
		if msg := testidText(p.body, "rollback-error"); p.status != http.StatusUnprocessableEntity || !strings.Contains(msg, tc.want) {
			t.Errorf("%s: status %d, message %q, want %q", tc.name, p.status, msg, tc.want)
		}
	}
	if got := e.ctl.servedPaths(); len(got) != 0 {
		t.Fatalf("refused paths reached the app: %q", got)
	}
	p := e.do(t, c, "POST", "/training/serve", url.Values{"path": {seed.samplers[1]}, "_csrf": {token}}, nil)
	if p.status != http.StatusSeeOther || p.header.Get("Location") != "/training" {
		t.Fatalf("rollback: status %d, location %q: %.300s", p.status, p.header.Get("Location"), p.body)
	}
	if flash := testidText(e.get(t, c, "/training").body, "flash"); flash != "Serving "+seed.samplers[1]+" (rolled back)." {
		t.Errorf("flash %q", flash)
	}
	e.do(t, c, "POST", "/training/serve", url.Values{"base": {"1"}, "path": {seed.samplers[0]}, "_csrf": {token}}, nil)
	if diff := cmp.Diff([]string{seed.samplers[1], ""}, e.ctl.servedPaths()); diff != "" {
		t.Errorf("paths handed to the app (-want +got):\n%s", diff)
	}
}

// TestTrainingPageEmpty shows a fresh install in skills_only: no record,
// and the page says no trained model is served — not "not used" beside a
// green "serving the base model".
func TestTrainingPageEmpty(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.login(t)
	p := e.get(t, c, "/training")
	if p.status != http.StatusOK {
		t.Fatalf("status %d", p.status)
	}
	for _, id := range []string{"no-loss", "no-reward", "no-steps", "no-runs", "no-checkpoints", "no-samples", "serving-none",
		"policy-off", "no-evolutions"} {
		if count(p.body, id) != 1 {
			t.Errorf("page lacks %s", id)
		}
	}
	for _, id := range []string{"serving-base", "serving-checkpoint"} {
		if count(p.body, id) != 0 {
			t.Errorf("skills_only page shows %s", id)
		}
	}
	if got := testidText(p.body, "policy-state"); got != "off" {
		t.Errorf("policy state %q, want off", got)
	}
}

// browserRollback opens the training page in the browser and clicks
// "Serve this checkpoint" on an earlier sampler checkpoint (TestBrowser).
func browserRollback(t *testing.T, ctx context.Context, e *env, sh *shots, seed trainingSeed) {
	ck, err := e.db.CheckpointByPath(context.Background(), seed.samplers[1])
	if err != nil {
		t.Fatal(err)
	}
	run(t, ctx, "training page", chromedp.Navigate(e.base+"/training"), chromedp.WaitVisible(tid("reward-chart")))
	sh.take(ctx, "training")
	run(t, ctx, "serve an earlier checkpoint", chromedp.ScrollIntoView(tid("checkpoints")),
		chromedp.Click(tid("serve-"+i64(ck.ID))), chromedp.WaitVisible(tid("flash")))
	if flash := testidText(html(t, ctx), "flash"); flash != "Serving "+seed.samplers[1]+" (rolled back)." {
		t.Errorf("flash %q", flash)
	}
	if got := e.ctl.servedPaths(); len(got) == 0 || got[len(got)-1] != seed.samplers[1] {
		t.Errorf("paths handed to the app: %q", got)
	}
	sh.take(ctx, "training-rolled-back")
}
