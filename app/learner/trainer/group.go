package trainer

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/metaclaw/metaclaw/app/learner/judge"
	"github.com/metaclaw/metaclaw/app/learner/tinker"
	"github.com/metaclaw/metaclaw/store"
	"github.com/metaclaw/metaclaw/store/config"
)

// batch is what a step trains on: each prompt's group, and the samples to
// mark skipped, with why, because they can never be trained.
type batch struct {
	groups [][]Member
	skip   map[int64]string
}

func (b *batch) skipSample(id int64, reason string) {
	if b.skip == nil {
		b.skip = map[int64]string{}
	}
	b.skip[id] = reason
}

// gather builds the groups of heads (waiting served samples). With group
// size 1 each head is a group of one, rewarded by its turn's score.
// Otherwise each group is completed with extra responses and judged.
func (t *Trainer) gather(ctx context.Context, cfg config.Config, heads []store.Sample) (*batch, error) {
	b := &batch{}
	n := t.groupSize(cfg)
	for _, h := range heads {
		if n <= 1 {
			b.groups = append(b.groups, []Member{{Sample: h, Reward: *h.Reward, Usable: true}})
			continue
		}
		g, err := t.fillGroup(ctx, cfg, h, n, b)
		if err != nil {
			return nil, err
		}
		b.groups = append(b.groups, g)
	}
	return b, nil
}

// fillGroup draws the group's missing extra responses, stores them, and
// judges every member not judged with its group yet.
func (t *Trainer) fillGroup(ctx context.Context, cfg config.Config, head store.Sample, n int, b *batch) ([]Member, error) {
	all, err := t.db.GroupSamples(ctx, head.GroupID)
	if err != nil {
		return nil, err
	}
	var members []store.Sample
	for _, s := range all {
		if s.Status == store.SampleWaiting {
			members = append(members, s)
		}
	}
	if missing := n - len(all); missing > 0 {
		extras, err := t.drawExtras(ctx, cfg, head, missing)
		if err != nil {
			return nil, err
		}
		members = append(members, extras...)
	}
	turn, err := t.db.TurnByID(ctx, head.TurnID)
	if head.TurnID == 0 || errors.Is(err, store.ErrNotFound) {
		for _, m := range members {
			b.skipSample(m.ID, "its turn was deleted: nothing to judge the responses against")
		}
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return t.judgeGroup(ctx, turn, members, b), nil
}

// drawExtras samples n more responses to head's prompt from the policy
// being served and stores them in head's group.
func (t *Trainer) drawExtras(ctx context.Context, cfg config.Config, head store.Sample, n int) ([]store.Sample, error) {
	path, err := t.db.ServingCheckpoint(ctx)
	if err != nil {
		return nil, err
	}
	if c, err := t.db.CheckpointByPath(ctx, path); path != "" && (err != nil || c.BaseModel != cfg.RL.Model) {
		path = "" // not ours, or another model's: sample the base model
	}
	ss, err := t.sampler(ctx, cfg.RL.Model, path)
	if err != nil {
		return nil, err
	}
	params := tinker.DefaultSamplingParams(cfg.RL.MaxTokens)
	params.StopTokens = t.opts.Codec.StopTokens()
	res, err := t.client.Sample(ctx, ss, head.PromptTokens, params, n)
	if errors.Is(err, tinker.ErrSequenceBroken) {
		delete(t.samp, cfg.RL.Model+"|"+path)
	}
	if err != nil {
		return nil, fmt.Errorf("sample extra responses for sample %d: %w", head.ID, err)
	}
	var extras []*store.Sample
	for _, seq := range res.Sequences {
		if len(seq.Tokens) == 0 || len(seq.Logprobs) != len(seq.Tokens) {
			continue // nothing to train on, or no log-probs to weigh it by
		}
		extras = append(extras, &store.Sample{SessionID: head.SessionID, GroupID: head.GroupID, Kind: store.SampleExtra,
			PromptTokens: head.PromptTokens, SampledTokens: seq.Tokens, SampledLogprobs: seq.Logprobs,
			BaseModel: cfg.RL.Model, Checkpoint: orBase(path, cfg.RL.Model), SkillGeneration: head.SkillGeneration, Trainable: true})
	}
	if err := t.db.InsertSamples(ctx, extras); err != nil {
		return nil, err
	}
	out := make([]store.Sample, len(extras))
	for i, s := range extras {
		out[i] = *s
	}
	return out, nil
}

// judgeGroup judges the members not yet judged with their group, at once,
// and returns every member with its reward. A member whose response cannot
// be read or is empty is skipped for good; one the judge failed on is left
// out of this step only.
func (t *Trainer) judgeGroup(ctx context.Context, turn store.Turn, members []store.Sample, b *batch) []Member {
	out := make([]Member, len(members))
	reasons := make([]string, len(members))
	var wg sync.WaitGroup
	for i, s := range members {
		out[i].Sample = s
		if s.RewardSource == store.RewardFromGroup && s.Reward != nil {
			out[i].Reward, out[i].Usable = *s.Reward, true
			continue
		}
		wg.Go(func() { out[i], reasons[i] = t.judgeMember(ctx, turn, s) })
	}
	wg.Wait()
	for i, r := range reasons {
		if r != "" {
			b.skipSample(out[i].Sample.ID, r)
		}
	}
	return out
}

// judgeMember judges one response on its own and stores its reward. The
// reason is set when the sample can never be judged.
func (t *Trainer) judgeMember(ctx context.Context, turn store.Turn, s store.Sample) (Member, string) {
	m := Member{Sample: s}
	text, calls, err := t.opts.Codec.DecodeResponse(s.SampledTokens)
	if err != nil {
		return m, fmt.Sprintf("response cannot be decoded: %v", err)
	}
	sc, err := t.opts.Judge.ScoreResponse(ctx, turn, text, calls)
	if errors.Is(err, judge.ErrNothingToJudge) {
		return m, "empty response: nothing to judge"
	}
	if err != nil {
		t.log.Warn("judge failed on a sampled response; left out of this step", "sample", s.ID, "error", err)
		return m, ""
	}
	if err := t.db.SetSampleReward(ctx, s.ID, float64(sc.Score), store.RewardFromGroup); err != nil {
		t.log.Warn("store a sample's reward", "sample", s.ID, "error", err)
		return m, ""
	}
	m.Reward, m.Usable = float64(sc.Score), true
	return m, ""
}
