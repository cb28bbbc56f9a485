package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/metaclaw/metaclaw/app"
	"github.com/metaclaw/metaclaw/app/learner/trainer"
	"github.com/metaclaw/metaclaw/store"
	"github.com/metaclaw/metaclaw/store/config"
)

// Arm names.
const (
	ArmBase         = "base"
	ArmSkills       = "skills"
	ArmSkillsMemory = "skills+memory"
	ArmFull         = "full"
)

// ArmSpec says what an arm runs. The settings are applied over a copy of
// the person's configuration in the arm's fresh data directory; they
// follow the reference's benchmark/scripts/config/*.yaml (skills-only.yaml,
// skills-memory.yaml, madmax.yaml): the skill evolver learns from each day's
// session, memory is extracted by the bench's ingest at the end of a day
// (the reference's manual_trigger), and the full arm trains after each day.
type ArmSpec struct {
	Name     string
	Setup    string
	MetaClaw bool              // runs through a MetaClaw instance
	Settings map[string]string // over the person's configuration
	Memory   bool              // ingest memories after each day
	Train    bool              // a training step after each day
}

// ArmSpecs returns the known arms, in report order.
func ArmSpecs() []ArmSpec {
	skills := map[string]string{"mode": config.ModeSkillsOnly, "skills.enabled": "true", "skills.auto_evolve": "true",
		"memory.enabled": "false", "rl.prm_votes": "0"}
	withMemory := merge(skills, map[string]string{"memory.enabled": "true"})
	full := merge(withMemory, map[string]string{"mode": config.ModeRL, "rl.enabled": "true"})
	return []ArmSpec{
		{Name: ArmBase, Setup: "no MetaClaw: the agent calls the provider directly"},
		{Name: ArmSkills, Setup: "MetaClaw skills_only: skills injected, evolved after each day; no memory, no judge",
			MetaClaw: true, Settings: skills},
		{Name: ArmSkillsMemory, Setup: "MetaClaw skills_only with memory: skills evolved and memories extracted after each day",
			MetaClaw: true, Settings: withMemory, Memory: true},
		{Name: ArmFull, Setup: "MetaClaw rl: skills, memory, judge, and a LoRA training step after each day (served by rl.model)",
			MetaClaw: true, Settings: full, Memory: true, Train: true},
	}
}

func merge(a, b map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		out[k] = v
	}
	return out
}

// ParseArms reads --arms: names separated by commas, each at most once.
func ParseArms(s string) ([]ArmSpec, error) {
	known := map[string]ArmSpec{}
	var names []string
	for _, a := range ArmSpecs() {
		known[a.Name], names = a, append(names, a.Name)
	}
	var out []ArmSpec
	seen := map[string]bool{}
	for _, n := range strings.Split(s, ",") {
		n = strings.TrimSpace(n)
		a, ok := known[n]
		switch {
		case n == "":
			continue
		case !ok:
			return nil, fmt.Errorf("unknown arm %q (arms: %s)", n, strings.Join(names, ", "))
		case seen[n]:
			return nil, fmt.Errorf("arm %q named twice", n)
		}
		seen[n] = true
		out = append(out, a)
	}
	if len(out) == 0 {
		return nil, errors.New("no arm to run")
	}
	return out, nil
}

// armRun is an arm in a run: its MetaClaw instance (nil for base) and the
// endpoint its agent calls.
type armRun struct {
	spec     ArmSpec
	home     string
	app      *app.App
	endpoint Endpoint
}

// routedKeys are the base URLs an arm's MetaClaw calls with the person's
// keys: they go through the counting relay. (rl.base_url, the training
// service, does not: its calls are no model calls.)
var routedKeys = []string{"llm.api_base", "rl.prm_url", "rl.evolver_api_base", "memory.extract_api_base", "skills.embedding_api_base"}

// startArm prepares and starts an arm: for base, the relay route to the
// provider; for the others, a MetaClaw instance in the arm's data
// directory, configured as the person is with the arm's settings.
func startArm(ctx context.Context, spec ArmSpec, home string, person config.Config, relay *Relay, version string, log *slog.Logger) (*armRun, error) {
	r := &armRun{spec: spec, home: home}
	if !spec.MetaClaw {
		base, err := relay.Route(spec.Name, person.LLM.APIBase)
		if err != nil {
			return nil, err
		}
		r.endpoint = Endpoint{BaseURL: base, APIKey: person.LLM.APIKey, Model: person.LLM.ModelID}
		return r, nil
	}
	settings, err := armSettings(spec, person, relay)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(home, 0o700); err != nil {
		return nil, err
	}
	db, err := store.Open(filepath.Join(home, "metaclaw.db"))
	if err != nil {
		return nil, err
	}
	_, err = config.Save(ctx, db, settings)
	db.Close()
	if err != nil {
		return nil, fmt.Errorf("arm %s: configure: %w", spec.Name, err)
	}
	a, err := app.New(app.Options{Home: home, Version: version, Logger: log.With("arm", spec.Name)})
	if err != nil {
		return nil, fmt.Errorf("arm %s: %w", spec.Name, err)
	}
	if err := a.Start(ctx); err != nil {
		a.Stop()
		return nil, fmt.Errorf("arm %s: start MetaClaw: %w", spec.Name, err)
	}
	r.app = a
	r.endpoint = Endpoint{BaseURL: a.ProxyURL() + "/v1", APIKey: "metaclaw-bench", Model: person.LLM.ModelID}
	return r, nil
}

// armSettings is the person's configuration with the arm's settings, the
// model calls routed through the relay, and the instance kept to itself:
// loopback on free ports, no proxy key, no training windows or calendar,
// sessions that only end when the bench ends them, one skill evolution per
// day, memory extracted only when the bench asks.
func armSettings(spec ArmSpec, person config.Config, relay *Relay) (map[string]string, error) {
	out := map[string]string{}
	for _, k := range config.Keys() {
		v, err := person.Get(k)
		if err != nil {
			return nil, err
		}
		out[k] = v
	}
	for _, k := range routedKeys {
		if out[k] == "" {
			continue
		}
		routed, err := relay.Route(spec.Name, out[k])
		if err != nil {
			return nil, fmt.Errorf("%s: %w", k, err)
		}
		out[k] = routed
	}
	proxyPort, err := freePort()
	if err != nil {
		return nil, err
	}
	webPort, err := freePort()
	if err != nil {
		return nil, err
	}
	for k, v := range map[string]string{
		"proxy.host": "127.0.0.1", "proxy.port": strconv.Itoa(proxyPort), "proxy.api_key": "", "proxy.forward_client_auth": "false",
		"proxy.session_idle_minutes": "10080", "web.host": "127.0.0.1", "web.port": strconv.Itoa(webPort),
		"scheduler.enabled": "false", "scheduler.calendar.enabled": "false", "skills.evolution_every_n_turns": "0",
		"memory.auto_extract": "false", "rl.resume_from_ckpt": "",
	} {
		out[k] = v
	}
	for k, v := range spec.Settings {
		out[k] = v
	}
	if spec.Train && person.RL.PRMVotes > 0 {
		out["rl.prm_votes"] = strconv.Itoa(person.RL.PRMVotes)
	} else if spec.Train {
		out["rl.prm_votes"] = "3" // the trainer needs the judge's rewards
	}
	return out, nil
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// settleTimeout bounds the wait for a day's learning.
const settleTimeout = 30 * time.Minute

// learn runs the end of a day in a MetaClaw arm, once the session has been
// ended: it waits for the learner (judging, skill evolution), then has the
// memory extracted and a training step run when the arm does those. What
// fails is returned as notes: the run goes on.
func (r *armRun) learn(ctx context.Context, session string) (notes []string, trained bool) {
	ctx, cancel := context.WithTimeout(ctx, settleTimeout)
	defer cancel()
	if err := r.app.SettleSession(ctx, session); err != nil {
		notes = append(notes, fmt.Sprintf("skill evolution of %s did not finish: %v", session, err))
	}
	// The skills the evolution added get their asks now, as a person's
	// would in the minutes after; not at some moment of the next day.
	if err := r.app.WriteSkillAsks(ctx); err != nil {
		notes = append(notes, fmt.Sprintf("skills' asks after %s: %v", session, err))
	}
	if r.spec.Memory {
		if err := r.ingest(ctx, session); err != nil {
			notes = append(notes, fmt.Sprintf("memory extraction of %s failed: %v", session, err))
		}
	}
	if r.spec.Train {
		tr := r.app.Trainer()
		if tr == nil {
			return append(notes, "no training step: the trainer is not running (see the arm's metaclaw.log)"), false
		}
		_, err := tr.TrainStep(ctx)
		switch {
		case err == nil:
			trained = true
		case errors.Is(err, trainer.ErrNothingToTrain):
			notes = append(notes, "no training step after "+session+": no rewarded sample waited")
		default:
			notes = append(notes, fmt.Sprintf("training step after %s failed: %v", session, err))
		}
	}
	return notes, trained
}

// ingest asks the arm's proxy to extract the session's memories, as the
// reference's harness does (POST /v1/memory/ingest).
func (r *armRun) ingest(ctx context.Context, session string) error {
	body, _ := json.Marshal(map[string]string{"session_id": session})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, r.app.ProxyURL()+"/v1/memory/ingest", bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		var e struct {
			Error struct{ Message string } `json:"error"`
		}
		_ = json.NewDecoder(resp.Body).Decode(&e)
		return fmt.Errorf("HTTP %d: %s", resp.StatusCode, e.Error.Message)
	}
	return nil
}

// ended reads what the running arm ended with.
func (r *armRun) ended(ctx context.Context, arm *store.BenchArm) error {
	if r.app == nil {
		return nil
	}
	return endedFrom(ctx, r.app.DB(), arm)
}

// endedFrom reads an arm's skills, memories and training steps.
func endedFrom(ctx context.Context, db *store.DB, arm *store.BenchArm) error {
	skills, err := db.Skills(ctx, false)
	if err != nil {
		return err
	}
	arm.Skills = []store.BenchSkill{}
	for _, s := range skills {
		arm.Skills = append(arm.Skills, store.BenchSkill{Name: s.Name, Description: s.Description, Source: s.Source, Version: s.Version})
	}
	mems, err := db.Memories(ctx, store.MemoryFilter{})
	if err != nil {
		return err
	}
	arm.Memories = []store.BenchMemory{}
	for _, m := range mems {
		arm.Memories = append(arm.Memories, store.BenchMemory{Type: m.Type, Content: m.Content})
	}
	steps, err := db.Steps(ctx, 0, 100000)
	if err != nil {
		return err
	}
	arm.TrainingSteps = 0
	for _, st := range steps {
		if st.Status == store.StepDone {
			arm.TrainingSteps++
		}
	}
	return nil
}

func (r *armRun) stop() error {
	if r.app == nil {
		return nil
	}
	return r.app.Stop()
}
