package trainer

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/metaclaw/metaclaw/app/learner/opd"
	"github.com/metaclaw/metaclaw/app/learner/tinker"
	"github.com/metaclaw/metaclaw/store"
	"github.com/metaclaw/metaclaw/store/config"
)

// TrainStep runs one training step now, whatever the mode and the
// training window, with the rewarded samples that wait (up to
// rl.batch_size, fewer if fewer wait). It returns the recorded step, or
// ErrNothingToTrain, or ErrPaused while learning is paused.
func (t *Trainer) TrainStep(ctx context.Context) (store.TrainingStep, error) {
	if t.opts.Paused() {
		return store.TrainingStep{}, ErrPaused
	}
	st, err := t.runStep(ctx, true)
	if st == nil {
		return store.TrainingStep{}, err
	}
	return *st, err
}

// runStep trains one batch. Unless force is set it does nothing (nil, nil)
// until rl.batch_size rewarded samples wait.
func (t *Trainer) runStep(ctx context.Context, force bool) (*store.TrainingStep, error) {
	t.stepMu.Lock()
	defer t.stepMu.Unlock()
	cfg, teacher := t.current()
	heads, err := t.waiting(ctx, cfg)
	if err != nil {
		return nil, err
	}
	batchSize := max(cfg.RL.BatchSize, 1)
	switch {
	case len(heads) == 0 && force:
		return nil, ErrNothingToTrain
	case len(heads) == 0 || (!force && len(heads) < batchSize):
		return nil, nil
	}
	if err := t.ensureModel(ctx, cfg); err != nil {
		return nil, err
	}
	st := &store.TrainingStep{RunID: t.run.ID, Step: t.step + 1, RewardMean: math.NaN(), RewardStd: math.NaN()}
	if err := t.db.BeginStep(ctx, st); err != nil {
		return nil, err
	}
	start := t.now()
	if err := t.trainBatch(ctx, cfg, teacher, heads, st, start); err != nil {
		st.Duration = t.now().Sub(start)
		t.failStep(st, err)
		return st, err
	}
	return st, nil
}

// waiting readies the waiting samples (other base models set aside, turn
// scores adopted) and returns up to a batch of them from the current skill
// generation. Samples of an older generation wait until the learner has
// checked whether the evolution changed what their prompt would receive
// (learner.CheckSamples): it marks them stale, with the reason, or moves
// them to the current generation.
func (t *Trainer) waiting(ctx context.Context, cfg config.Config) ([]store.Sample, error) {
	gen, err := t.db.SkillGeneration(ctx)
	if err != nil {
		return nil, err
	}
	if _, err := t.db.SkipOtherModels(ctx, cfg.RL.Model); err != nil {
		return nil, err
	}
	if _, err := t.db.AdoptTurnScores(ctx); err != nil {
		return nil, err
	}
	return t.db.WaitingSamples(ctx, gen, max(cfg.RL.BatchSize, 1))
}

// trainBatch gathers the groups, computes the advantages and trains.
func (t *Trainer) trainBatch(ctx context.Context, cfg config.Config, teacher Teacher, heads []store.Sample,
	st *store.TrainingStep, start time.Time) error {
	b, err := t.gather(ctx, cfg, heads)
	if err != nil {
		return err
	}
	scored := GroupAdvantages(b.groups, t.groupSize(cfg), cfg.RL.AdvantageStd)
	if len(scored) == 0 {
		t.skipLeftovers(ctx, b, nil)
		return errors.New("no prompt of the batch has two judged responses to compare")
	}
	datums, err := t.datums(ctx, cfg, teacher, scored)
	if err != nil {
		return err
	}
	rewards := make([]float64, len(scored))
	ids := make([]int64, len(scored))
	for i, s := range scored {
		rewards[i], ids[i] = s.Reward, s.Sample.ID
	}
	st.RewardMean, st.RewardStd = MeanStd(rewards)
	st.SamplesUsed, st.Datums = len(scored), len(datums)
	if err := t.optimize(ctx, cfg, datums, ids, st, start); err != nil {
		return err
	}
	t.skipLeftovers(ctx, b, ids)
	return nil
}

// datums builds one datum per scored sample, applying the OPD penalty
// when opd.enabled.
func (t *Trainer) datums(ctx context.Context, cfg config.Config, teacher Teacher, scored []Scored) ([]tinker.Datum, error) {
	if cfg.OPD.Enabled && teacher == nil {
		return nil, errors.New("opd.enabled, but the teacher is not usable: set opd.teacher_url and opd.teacher_model")
	}
	out := make([]tinker.Datum, 0, len(scored))
	for _, s := range scored {
		adv := TokenAdvantages(s.Advantage, len(s.Sample.SampledTokens))
		if cfg.OPD.Enabled {
			var err error
			if adv, err = distill(ctx, teacher, s.Sample, adv, cfg.OPD.KLPenaltyCoef); err != nil {
				return nil, fmt.Errorf("opd for sample %d: %w", s.Sample.ID, err)
			}
		}
		d, err := Datum(s.Sample, adv)
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, nil
}

// distill lowers each sampled token's advantage by coef × (student −
// teacher log-prob).
func distill(ctx context.Context, teacher Teacher, s store.Sample, adv []float64, coef float64) ([]float64, error) {
	seq := append(append(make([]int, 0, len(s.PromptTokens)+len(s.SampledTokens)), s.PromptTokens...), s.SampledTokens...)
	lps, err := teacher.Logprobs(ctx, seq)
	if err != nil {
		return nil, err
	}
	if len(lps) != len(seq) {
		return nil, fmt.Errorf("teacher gave %d log-probs for %d tokens: %w", len(lps), len(seq), opd.ErrMisaligned)
	}
	return opd.Penalize(adv, s.SampledLogprobs, lps[len(s.PromptTokens):], coef)
}

// skipLeftovers marks skipped the samples that can never be trained, and
// the members of trained groups that were left out (they would wait
// forever, their group having moved on).
func (t *Trainer) skipLeftovers(ctx context.Context, b *batch, trained []int64) {
	used := map[int64]bool{}
	for _, id := range trained {
		used[id] = true
	}
	reasons := map[string][]int64{}
	for id, r := range b.skip {
		reasons[r] = append(reasons[r], id)
	}
	for _, g := range b.groups {
		if !groupTrained(g, used) {
			continue
		}
		for _, m := range g {
			if !used[m.Sample.ID] && b.skip[m.Sample.ID] == "" {
				r := "left out of its group's step: no usable judge score"
				reasons[r] = append(reasons[r], m.Sample.ID)
			}
		}
	}
	for r, ids := range reasons {
		if err := t.db.SkipSamples(ctx, ids, r); err != nil {
			t.log.Warn("mark samples skipped", "error", err)
		}
	}
}

func groupTrained(g []Member, used map[int64]bool) bool {
	for _, m := range g {
		if used[m.Sample.ID] {
			return true
		}
	}
	return false
}

// failStep records a failed step, even when the caller's context ended.
func (t *Trainer) failStep(st *store.TrainingStep, cause error) {
	ctx, cancel := detached()
	defer cancel()
	if err := t.db.FailStep(ctx, st, cause.Error()); err != nil {
		t.log.Error("record a failed training step", "step", st.Step, "error", err)
	}
}

// detached is a short context for bookkeeping that must happen even when
// the caller gave up.
func detached() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), 30*time.Second)
}
