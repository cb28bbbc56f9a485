// Package backend makes the client of the training service rl.backend
// names: Tinker's protocol for tinker, mint and auto (package tinker), and
// Weaver's own REST API for weaver (package weaver). Both clients have the
// same methods and types, so the trainer and the policy work with either.
// The app and the learner's services import this package.
package backend

import (
	"context"
	"time"

	"github.com/metaclaw/metaclaw/app/learner/tinker"
	"github.com/metaclaw/metaclaw/app/learner/weaver"
)

// Client is a started training-service client: the session and its
// heartbeat, training models, sampler checkpoints and sampling.
type Client interface {
	Start(ctx context.Context) error
	StartRetrying(ctx context.Context, onFail func(err error, next time.Duration)) bool
	Serve(ctx context.Context) error
	Close() error
	SessionID() string
	Heartbeat() tinker.HeartbeatStatus

	CreateModel(ctx context.Context, baseModel string, lora tinker.LoRAConfig) (tinker.Model, error)
	ForwardBackward(ctx context.Context, m tinker.Model, data []tinker.Datum, lossFn string, lossCfg map[string]float64) (tinker.FwdBwdResult, error)
	OptimStep(ctx context.Context, m tinker.Model, p tinker.AdamParams) (tinker.OptimResult, error)
	SaveWeights(ctx context.Context, m tinker.Model, name string) (string, error)
	SaveWeightsForSampler(ctx context.Context, m tinker.Model, name string) (string, error)
	LoadWeights(ctx context.Context, m tinker.Model, path string, withOptimizer bool) error
	GetInfo(ctx context.Context, modelID string) (tinker.ModelInfo, error)

	CreateSamplingSession(ctx context.Context, baseModel, modelPath string) (tinker.SamplingSession, error)
	Sample(ctx context.Context, ss tinker.SamplingSession, prompt []int, p tinker.SamplingParams, numSamples int) (tinker.SampleResult, error)
}

var (
	_ Client = (*tinker.Client)(nil)
	_ Client = (*weaver.Client)(nil)
)

// New returns the client for o.Backend (resolved as tinker.ResolveBackend
// does: "auto" picks weaver when the base URL's host names weaver). It does
// no I/O.
func New(o tinker.Options) (Client, error) {
	if tinker.ResolveBackend(o.Backend, o.APIKey, o.BaseURL) != tinker.BackendWeaver {
		return tinker.New(o)
	}
	return weaver.New(weaver.Options{BaseURL: o.BaseURL, APIKey: o.APIKey, Tags: o.Tags, HTTPClient: o.HTTPClient,
		Logger: o.Logger, HeartbeatInterval: o.HeartbeatInterval, Now: o.Now})
}
