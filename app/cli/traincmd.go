package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/metaclaw/metaclaw/proxy"
	"github.com/metaclaw/metaclaw/store/config"

	"github.com/metaclaw/metaclaw/app/learner/trainer"
	"github.com/metaclaw/metaclaw/store"
)

// trainPoll is how often train-step looks for the running app's answer.
const trainPoll = 500 * time.Millisecond

// trainStepHTTP asks the proxy on port for a step through the reference's
// admin endpoint (aiming-lab/MetaClaw metaclaw/cli.py train_step) and
// prints its answer as the reference's CLI does.
func trainStepHTTP(env *Env, port int, timeout time.Duration) error {
	if port < 1 || port > 65535 {
		return usageError("train-step: --port must be from 1 to 65535")
	}
	_, _, cfg, err := loadConfig()
	if err != nil {
		return err
	}
	req, err := http.NewRequest(http.MethodPost, fmt.Sprintf("http://127.0.0.1:%d/v1/admin/train_step", port), strings.NewReader("{}"))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	if cfg.Proxy.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+cfg.Proxy.APIKey)
	}
	resp, err := (&http.Client{Timeout: timeout}).Do(req)
	if err != nil {
		return fmt.Errorf("cannot reach MetaClaw on port %d: %v; is it running? (metaclaw status)", port, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("train step refused (%d): %s", resp.StatusCode, strings.TrimSpace(string(body)))
	}
	var res proxy.TrainStepResult
	if err := json.Unmarshal(body, &res); err != nil {
		return fmt.Errorf("train step: the answer is not JSON: %s", body)
	}
	if res.Status != "ok" {
		return fmt.Errorf("train step %s: %s", res.Status, res.Message)
	}
	line := fmt.Sprintf("Train step #%d complete: samples=%d", res.Step, res.Samples)
	if res.MeanReward != nil {
		line += fmt.Sprintf(" mean_reward=%.4f", *res.MeanReward)
	}
	fmt.Fprintln(env.Stdout, line)
	return nil
}

// runTrainStep asks the running MetaClaw for one training step now and
// waits for it. The request goes through the database, as `metaclaw pause`
// does: the app's trainer notices it within seconds, runs the step (it
// owns the training model) and writes the answer back.
func runTrainStep(env *Env, args []string) error {
	fs := newFlags(env, "train-step", "[--port N] [--timeout D]")
	timeout := fs.Duration("timeout", 30*time.Minute, "how long to wait for the step")
	port := fs.Int("port", 0, "ask the proxy on this port (its POST /v1/admin/train_step), as the reference's CLI does")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageError("train-step takes no arguments")
	}
	if *port != 0 {
		return trainStepHTTP(env, *port, *timeout)
	}
	dir, err := home()
	if err != nil {
		return err
	}
	switch r := inspect(dir); {
	case r.State != stateRunning:
		return fmt.Errorf("MetaClaw is not running: the running app does the training step; start it (metaclaw start) and ask again")
	case r.Mode != "" && r.Mode != config.ModeRL && r.Mode != config.ModeMadmax:
		return fmt.Errorf("MetaClaw runs in %s mode, which does not train: set mode to rl or madmax (and rl.api_key)", r.Mode)
	}
	db, _, err := openDB()
	if err != nil {
		return err
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	token, err := trainer.RequestTrainStep(ctx, db, time.Now())
	if err != nil {
		return err
	}
	fmt.Fprintln(env.Stdout, "asked the running MetaClaw for a training step; waiting for it…")
	ans, err := waitTrainStep(ctx, db, token)
	if err != nil {
		return err
	}
	return printStepAnswer(env, ans)
}

func waitTrainStep(ctx context.Context, db *store.DB, token string) (trainer.StepAnswer, error) {
	ans, err := trainer.AwaitTrainStep(ctx, db, token, trainPoll)
	if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
		return ans, fmt.Errorf("no answer from the running MetaClaw yet (it keeps the request and trains when it can; see the log)")
	}
	return ans, err
}

func printStepAnswer(env *Env, ans trainer.StepAnswer) error {
	if ans.Error != "" {
		return fmt.Errorf("training step failed: %s", ans.Error)
	}
	line := fmt.Sprintf("training step %d done: %d samples", ans.Step, ans.Samples)
	if ans.Loss != nil {
		line += fmt.Sprintf(", loss %.4g", *ans.Loss)
	}
	if ans.RewardMean != nil {
		line += fmt.Sprintf(", mean reward %.3f", *ans.RewardMean)
	}
	fmt.Fprintln(env.Stdout, line)
	fmt.Fprintln(env.Stdout, "serving:", ans.SamplerPath)
	return nil
}
