package proxy

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
)

// The reference's POST /v1/admin/train_step (aiming-lab/MetaClaw
// metaclaw/api_server.py), which external orchestrators call to run one
// training step now.

// TrainStepper runs one training step now, for POST /v1/admin/train_step.
// It returns ErrNoTrainer when this MetaClaw does not train.
type TrainStepper interface {
	TrainStep(ctx context.Context) (TrainStepResult, error)
}

// ErrNoTrainer says the running MetaClaw has no trainer (skills_only, or
// RL not set up).
var ErrNoTrainer = errors.New("trainer not available")

// TrainStepResult is the answer of POST /v1/admin/train_step, in the shape
// of the reference's trainer.train_step_external: status ok, skipped or
// error, with the step's figures.
type TrainStepResult struct {
	Status      string   `json:"status"`
	Message     string   `json:"message,omitempty"`
	Step        int      `json:"step,omitempty"`
	Samples     int      `json:"samples"`
	MeanReward  *float64 `json:"mean_reward,omitempty"`
	Loss        *float64 `json:"loss,omitempty"`
	SamplerPath string   `json:"sampler_path,omitempty"`
}

// adminRoutes registers POST /v1/admin/train_step.
func (s *Server) adminRoutes(v1 fiber.Router) {
	v1.Post("/admin/train_step", s.adminGuard, s.handleTrainStep)
}

// adminGuard requires a JSON body, as the memory routes do; web pages are kept
// away by the guards of every route (guardHost, guardBrowser).
func (s *Server) adminGuard(c *fiber.Ctx) error {
	if len(c.Body()) > 0 && !strings.HasPrefix(c.Get(fiber.HeaderContentType), fiber.MIMEApplicationJSON) {
		return sendError(c, http.StatusUnsupportedMediaType, "invalid_content_type", "send the body as application/json")
	}
	return c.Next()
}

func (s *Server) handleTrainStep(c *fiber.Ctx) error {
	if s.opts.Trainer == nil {
		return sendError(c, http.StatusServiceUnavailable, "trainer_unavailable", "trainer not available: this MetaClaw does not train (mode rl or madmax with rl.api_key)")
	}
	ctx, cancel := context.WithTimeout(s.baseCtx, 10*time.Minute) // the reference waits 600 s
	defer cancel()
	res, err := s.opts.Trainer.TrainStep(ctx)
	switch {
	case errors.Is(err, ErrNoTrainer):
		return sendError(c, http.StatusServiceUnavailable, "trainer_unavailable", err.Error())
	case errors.Is(err, context.DeadlineExceeded):
		return sendError(c, http.StatusGatewayTimeout, "timeout", "train step timed out (600s); the running MetaClaw keeps the request")
	case err != nil:
		return sendError(c, http.StatusInternalServerError, "train_step_failed", "train step failed: "+err.Error())
	}
	return c.JSON(res)
}
