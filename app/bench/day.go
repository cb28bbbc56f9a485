package bench

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/metaclaw/metaclaw/store"
)

// closingMessage ends a day's session when the last round left no
// feedback to send (the session must end for MetaClaw to learn from it).
const closingMessage = "That is all for today, thank you."

// dayRun is one arm playing one day.
type dayRun struct {
	r       *runner
	spec    ArmSpec
	run     *armRun
	as      *ArmState
	day     *Day
	index   int
	ws      string
	session string
	agent   Agent
	sent    int  // messages the replay has passed, sent before or now
	learn   bool // the day ends MetaClaw's session and is learnt from
}

// playDay plays a day for an arm — every round, the feedback, and in
// MetaClaw arms (but after the last day) the day's learning — resuming
// after the messages sent before an interruption.
func (r *runner) playDay(ctx context.Context, spec ArmSpec, i int) error {
	run, err := r.arm(ctx, spec)
	if err != nil {
		return err
	}
	d := &dayRun{r: r, spec: spec, run: run, as: r.st.Arms[spec.Name], day: &r.days[i], index: i,
		learn: spec.MetaClaw && i < len(r.days)-1}
	d.session = fmt.Sprintf("bench-%s-%s-%s", r.st.ID, slug(spec.Name), d.day.ID)
	dir := filepath.Join(r.opts.Work, "arms", slug(spec.Name), d.day.ID)
	d.ws = filepath.Join(dir, "workspace")
	if d.as.Sent == 0 {
		if err := os.RemoveAll(dir); err != nil {
			return err
		}
		if err := PrepareWorkspace(r.b.WorkspaceSrc, r.b.EvalDir, d.day.ID, d.ws); err != nil {
			return err
		}
	}
	if d.agent, err = r.newAgent(d, dir); err != nil {
		return err
	}
	defer d.agent.Close()
	ended := false
	for gi := range d.day.Groups {
		last := gi == len(d.day.Groups)-1
		if ended, err = d.playGroup(ctx, &d.day.Groups[gi], last); err != nil {
			return err
		}
	}
	r.takeUsage(d)
	if d.learn {
		if !ended {
			d.note("the session of " + d.day.ID + " could not be ended; MetaClaw learnt nothing from it")
		} else {
			notes, _ := run.learn(ctx, d.session)
			for _, n := range notes {
				d.note(n)
			}
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		r.takeUsage(d)
	}
	d.as.DaysDone, d.as.Sent = i+1, 0
	return r.st.save(r.opts.Work)
}

func (r *runner) newAgent(d *dayRun, dir string) (Agent, error) {
	seed, err := r.b.Seed(d.day)
	if err != nil {
		return nil, err
	}
	spec := DaySpec{Workspace: d.ws, Seed: seed, SeedFile: r.b.SeedPath(d.day), AgentID: d.day.Agent, SessionID: d.session,
		Endpoint: d.run.endpoint, Headers: map[string]string{"X-Session-Id": d.session, BenchHeader: "agent"},
		StateDir: dir, Done: d.as.Sent, Shell: r.shell, MaxSteps: r.opts.MaxSteps}
	if r.opts.Agent == AgentOpenClaw {
		return NewOpenClaw(r.opts.OpenClaw, spec)
	}
	return NewBuiltin(spec)
}

// takeUsage adds what the relay counted for the arm: the learning calls,
// and the agent's calls when the agent cannot count them itself.
func (r *runner) takeUsage(d *dayRun) {
	agent, learning := r.relay.Take(d.spec.Name)
	if r.opts.Agent == AgentOpenClaw {
		addUsage(&d.as.Agent, agent)
	}
	addUsage(&d.as.Learning, learning)
}

func (d *dayRun) note(n string) {
	d.as.Notes = append(d.as.Notes, n)
	d.r.log.Warn(n, "arm", d.spec.Name)
	fmt.Fprintf(d.r.opts.Progress, "  %s: %s\n", d.spec.Name, n)
}

// playGroup plays a group's rounds, then sends the feedback on its last
// round. It reports whether the message that ends the session went out.
func (d *dayRun) playGroup(ctx context.Context, g *Group, lastGroup bool) (bool, error) {
	prev := ""
	for ri := range g.Rounds {
		fb, err := d.playRound(ctx, &g.Rounds[ri], prev)
		if err != nil {
			return false, err
		}
		prev = fb
	}
	end := d.learn && lastGroup
	msg := FeedbackMessage(prev)
	switch {
	case prev == "" && !end:
		return false, nil
	case prev == "":
		msg = closingMessage
	}
	if !end && d.sent < d.as.Sent {
		d.sent++ // sent before the interruption
		return false, nil
	}
	ans, err := d.agent.Send(ctx, msg, true, end)
	if ctx.Err() != nil {
		return false, ctx.Err()
	}
	if errors.Is(err, ErrProvider) {
		return false, err
	}
	addUsage(&d.as.Agent, ans.Usage)
	if end {
		// Not counted as sent: a run resumed before the day's learning
		// finished ends the session again.
		return err == nil, d.r.st.save(d.r.opts.Work)
	}
	d.sent++
	d.as.Sent = d.sent
	return false, d.r.st.save(d.r.opts.Work)
}

// playRound plays one round (or replays a scored one) and returns the
// feedback it earned.
func (d *dayRun) playRound(ctx context.Context, rd *Round, prev string) (string, error) {
	if br, ok := d.as.round(d.day.ID, rd.ID); ok {
		d.sent++
		return FeedbackText(rd, Result{Score: br.Score, Passed: br.Passed, Selected: br.Selected, Format: br.Format}), nil
	}
	for _, u := range rd.Update {
		if err := ApplyUpdate(u, d.ws, d.r.b.EvalDir, d.day.Eval); err != nil {
			d.note(fmt.Sprintf("%s %s: %v (skipped)", d.day.ID, rd.ID, err))
		}
	}
	ans, sendErr := d.agent.Send(ctx, Message(prev, rd.Question), false, false)
	if ctx.Err() != nil {
		return "", ctx.Err()
	}
	if errors.Is(sendErr, ErrProvider) {
		return "", sendErr
	}
	res := d.score(ctx, rd, ans.Text)
	br := store.BenchRound{Day: d.day.ID, Round: rd.ID, Type: rd.Type, Score: res.Score, Passed: res.Passed,
		Selected: res.Selected, Format: res.Format}
	if rd.Type == MultiChoice {
		br.Expected = rd.Eval.Answer
	}
	if sendErr != nil {
		br.Error = sendErr.Error()
	}
	d.as.Rounds = append(d.as.Rounds, br)
	addUsage(&d.as.Agent, ans.Usage)
	d.sent++
	d.as.Sent = d.sent
	if err := d.r.st.save(d.r.opts.Work); err != nil {
		return "", err
	}
	d.progress(br)
	return FeedbackText(rd, res), nil
}

func (d *dayRun) score(ctx context.Context, rd *Round, answer string) Result {
	if rd.Type == FileCheck {
		res := CheckFile(ctx, d.r.shell, &rd.Eval, d.ws)
		d.r.log.Info("file check", "arm", d.spec.Name, "day", d.day.ID, "round", rd.ID, "passed", res.Passed,
			"output", tail(res.Output, 300))
		return res
	}
	return ScoreMultiChoice(rd, answer)
}

// progress prints a round's line: where the run is, the round's score and
// every arm's running accuracy.
func (d *dayRun) progress(br store.BenchRound) {
	what := fmt.Sprintf("%.2f", br.Score)
	if br.Type == FileCheck {
		what = map[bool]string{true: "passed", false: "failed"}[br.Passed]
	} else if !br.Format {
		what += " (no \\bbox)"
	}
	if br.Error != "" {
		what += " [agent error: " + tail(br.Error, 80) + "]"
	}
	var acc []string
	for _, a := range d.r.opts.Arms {
		st := d.r.st.Arms[a.Name]
		if s := summarize("", st.Rounds); s.Rounds > 0 {
			acc = append(acc, fmt.Sprintf("%s %.3f (%d)", a.Name, s.Accuracy, s.Rounds))
		}
	}
	fmt.Fprintf(d.r.opts.Progress, "[%s %d/%d] %-13s %-4s %-12s %-12s running accuracy: %s\n", d.day.ID, d.index+1, len(d.r.days),
		d.spec.Name, br.Round, br.Type, what, strings.Join(acc, " · "))
}
