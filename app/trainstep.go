package app

import (
	"context"
	"time"

	"github.com/metaclaw/metaclaw/app/learner/trainer"
	"github.com/metaclaw/metaclaw/proxy"
	"github.com/metaclaw/metaclaw/store/config"
)

// trainStepAPI serves the reference's POST /v1/admin/train_step: it asks
// the trainer for a step through the database, as `metaclaw train-step`
// does, and waits for its answer.
type trainStepAPI struct{ a *App }

var _ proxy.TrainStepper = trainStepAPI{}

func (t trainStepAPI) TrainStep(ctx context.Context) (proxy.TrainStepResult, error) {
	cfg := t.a.Config()
	if m := cfg.Resolve().Mode; m != config.ModeRL && m != config.ModeMadmax {
		return proxy.TrainStepResult{}, proxy.ErrNoTrainer
	}
	token, err := trainer.RequestTrainStep(ctx, t.a.db, time.Now())
	if err != nil {
		return proxy.TrainStepResult{}, err
	}
	tick := time.NewTicker(500 * time.Millisecond)
	defer tick.Stop()
	for {
		ans, ok, err := trainer.TrainStepAnswer(ctx, t.a.db, token)
		if err != nil {
			return proxy.TrainStepResult{}, err
		}
		if ok {
			return stepResult(ans), nil
		}
		select {
		case <-ctx.Done():
			return proxy.TrainStepResult{}, ctx.Err()
		case <-tick.C:
		}
	}
}

// stepResult puts a step's answer in the reference's shape.
func stepResult(ans trainer.StepAnswer) proxy.TrainStepResult {
	if ans.Error != "" {
		return proxy.TrainStepResult{Status: "error", Message: ans.Error}
	}
	return proxy.TrainStepResult{Status: "ok", Step: ans.Step, Samples: ans.Samples, MeanReward: ans.RewardMean,
		Loss: ans.Loss, SamplerPath: ans.SamplerPath}
}
