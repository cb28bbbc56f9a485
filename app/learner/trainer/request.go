package trainer

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"time"

	"github.com/metaclaw/metaclaw/store"
)

// Meta keys through which `metaclaw train-step` asks the running app for a
// step, the way `metaclaw pause` sets the pause flag: the CLI writes a
// request token, Serve notices it at its next poll, runs TrainStep and
// writes the answer.
const (
	MetaTrainStepRequest = "train_step_request"
	MetaTrainStepAnswer  = "train_step_answer"
)

// StepAnswer is the running trainer's answer to a train-step request.
type StepAnswer struct {
	Request     string   `json:"request"`
	StepID      int64    `json:"step_id,omitempty"`
	Step        int      `json:"step,omitempty"`
	Samples     int      `json:"samples,omitempty"`
	Loss        *float64 `json:"loss,omitempty"`
	RewardMean  *float64 `json:"reward_mean,omitempty"`
	SamplerPath string   `json:"sampler_path,omitempty"`
	Error       string   `json:"error,omitempty"`
}

// RequestTrainStep asks the running app for one training step and returns
// the request's token, to wait for with TrainStepAnswer.
func RequestTrainStep(ctx context.Context, db *store.DB, now time.Time) (string, error) {
	token := fmt.Sprintf("%d-%d", now.UnixNano(), os.Getpid())
	if err := db.SetMeta(ctx, MetaTrainStepRequest, token); err != nil {
		return "", fmt.Errorf("request a training step: %w", err)
	}
	return token, nil
}

// TrainStepAnswer returns the answer to the request token; ok is false
// while there is none.
func TrainStepAnswer(ctx context.Context, db *store.DB, token string) (ans StepAnswer, ok bool, err error) {
	v, err := db.Meta(ctx, MetaTrainStepAnswer)
	if err != nil || v == "" {
		return ans, false, err
	}
	if err := json.Unmarshal([]byte(v), &ans); err != nil {
		return ans, false, fmt.Errorf("read the train-step answer: %w", err)
	}
	return ans, ans.Request == token, nil
}

// AwaitTrainStep polls every poll for the answer to the request token
// until it comes; when ctx ends first it returns ctx.Err(). The CLI's
// train-step and the proxy's POST /v1/admin/train_step wait with it.
func AwaitTrainStep(ctx context.Context, db *store.DB, token string, poll time.Duration) (StepAnswer, error) {
	tick := time.NewTicker(poll)
	defer tick.Stop()
	for {
		ans, ok, err := TrainStepAnswer(ctx, db, token)
		if err != nil || ok {
			return ans, err
		}
		select {
		case <-ctx.Done():
			return ans, ctx.Err()
		case <-tick.C:
		}
	}
}

// answerRequest runs a step for a train-step request not answered yet.
func (t *Trainer) answerRequest(ctx context.Context) {
	req, err := t.db.Meta(ctx, MetaTrainStepRequest)
	if err != nil || req == "" {
		return
	}
	t.failMu.Lock()
	seen := t.lastReq == req
	t.lastReq = req
	t.failMu.Unlock()
	if seen {
		return
	}
	if _, answered, _ := TrainStepAnswer(ctx, t.db, req); answered {
		return // answered before a restart
	}
	st, err := t.TrainStep(ctx)
	ans := StepAnswer{Request: req}
	if err != nil {
		ans.Error = err.Error()
	}
	if st.ID != 0 && err == nil {
		ans.StepID, ans.Step, ans.Samples, ans.SamplerPath = st.ID, st.Step, st.SamplesUsed, st.SamplerPath
		ans.Loss, ans.RewardMean = finite(st.Loss), finite(st.RewardMean)
	}
	b, _ := json.Marshal(ans)
	if err := t.db.SetMeta(ctx, MetaTrainStepAnswer, string(b)); err != nil {
		t.log.Error("answer a train-step request", "error", err)
	}
}

func finite(f float64) *float64 {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil
	}
	return &f
}
