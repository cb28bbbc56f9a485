package control

import (
	"context"
	"time"

	"github.com/metaclaw/metaclaw/app/learner/trainer"
	"github.com/metaclaw/metaclaw/proxy"
	"github.com/metaclaw/metaclaw/store"
	"github.com/metaclaw/metaclaw/store/config"
)

// TrainStep serves the reference's POST /v1/admin/train_step: it asks the
// trainer for a step through the database, as `metaclaw train-step` does,
// and waits for its answer.
type TrainStep struct {
	DB     *store.DB
	Config func() config.Config // in force
}

var _ proxy.TrainStepper = TrainStep{}

// trainStepPoll is how often TrainStep looks for the trainer's answer.
const trainStepPoll = 500 * time.Millisecond

// TrainStep runs one training step now; proxy.ErrNoTrainer when the mode
// does not train.
func (t TrainStep) TrainStep(ctx context.Context) (proxy.TrainStepResult, error) {
	cfg := t.Config()
	if m := cfg.Resolve().Mode; m != config.ModeRL && m != config.ModeMadmax {
		return proxy.TrainStepResult{}, proxy.ErrNoTrainer
	}
	token, err := trainer.RequestTrainStep(ctx, t.DB, time.Now())
	if err != nil {
		return proxy.TrainStepResult{}, err
	}
	ans, err := trainer.AwaitTrainStep(ctx, t.DB, token, trainStepPoll)
	if err != nil {
		return proxy.TrainStepResult{}, err
	}
	return stepResult(ans), nil
}

// stepResult puts a step's answer in the reference's shape.
func stepResult(ans trainer.StepAnswer) proxy.TrainStepResult {
	if ans.Error != "" {
		return proxy.TrainStepResult{Status: "error", Message: ans.Error}
	}
	return proxy.TrainStepResult{Status: "ok", Step: ans.Step, Samples: ans.Samples, MeanReward: ans.RewardMean,
		Loss: ans.Loss, SamplerPath: ans.SamplerPath}
}
