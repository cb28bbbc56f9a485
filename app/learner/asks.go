package learner

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/metaclaw/metaclaw/app/learner/evolve"
	"github.com/metaclaw/metaclaw/app/learner/skills"
	"github.com/metaclaw/metaclaw/assets"
	"github.com/metaclaw/metaclaw/store"
	"github.com/metaclaw/metaclaw/store/config"
)

// How the learner has skills' asks written (evolve.WriteAsks), and then
// their asks in the person's other languages (evolve.WriteAsksIn,
// skills.ask_languages): when it starts, whenever skills change, and
// every asksEvery, at most asksPerRun skills a run and a fifth of
// learning.max_calls_per_day a day for both (so that a big import does
// not spend the judge's budget); a skill version whose answer failed
// asksTries times is left until the app restarts.
const (
	asksEvery    = 10 * time.Minute
	asksPerRun   = 20
	asksTries    = 3
	asksSettle   = 3 * time.Second // Options.AsksSettle's default
	asksDayShare = 5               // asks take at most 1/asksDayShare of the daily calls
)

// asksState is what the asks worker keeps between runs.
type asksState struct {
	failed map[string]int // "name@version" → failed answers
	day    string         // the local day the calls below were made on
	calls  int            // calls made that day
	capLog string         // the day the cap was last logged
}

// asksWorker writes the asks of skills that have none until ctx ends (a
// call in flight then is abandoned: the next start writes those asks).
func (l *Learner) asksWorker(ctx context.Context) {
	timer := time.NewTimer(l.opts.AsksSettle)
	defer timer.Stop()
	change := l.db.SkillsChange()
	for {
		select {
		case <-ctx.Done():
			return
		case <-change:
			select {
			case <-ctx.Done():
				return
			case <-time.After(l.opts.AsksSettle):
			}
		case <-timer.C:
		}
		// Taken before the run reads the skills, so that one changed
		// while it runs wakes the next (the run's own writes do too: that
		// run finds nothing to ask for).
		change = l.db.SkillsChange()
		l.asksMu.Lock()
		more := l.writeAsks(ctx, &l.asks)
		l.asksMu.Unlock()
		timer.Reset(asksEvery)
		if more {
			timer.Reset(l.opts.AsksSettle)
		}
	}
}

// WriteAsks has the asks of every skill that has none written now, as the
// background worker would (skills.write_asks, not while paused, within the
// day's share of calls), and returns when none is left or no more can be
// written: a benchmark's day ends with its skills' asks as a person's would
// be minutes later. The background worker waits meanwhile, so no skill's
// asks are asked for twice.
func (l *Learner) WriteAsks(ctx context.Context) {
	l.asksMu.Lock()
	defer l.asksMu.Unlock()
	for more := true; more && ctx.Err() == nil; {
		more = l.writeAsks(ctx, &l.asks)
	}
}

// writeAsks runs one WriteAsks when the configuration asks for it,
// learning is not paused and the day's share of calls is not spent; it
// reports whether skills are left that the next run should take at once.
func (l *Learner) writeAsks(ctx context.Context, st *asksState) bool {
	cfg, _, ev := l.current()
	if ev == nil || !cfg.Skills.WriteAsks || l.isPaused("writing skills' asks") {
		return false
	}
	today := l.now().Format(time.DateOnly)
	if st.day != today {
		st.day, st.calls = today, 0
	}
	limit := asksPerRun
	if perDay := cfg.Learning.MaxCallsPerDay / asksDayShare; cfg.Learning.MaxCallsPerDay > 0 {
		limit = min(limit, max(perDay, 1)-st.calls)
		if limit <= 0 {
			if st.capLog != today {
				st.capLog = today
				l.log.Info("learner: writing skills' asks waits for tomorrow: a fifth of learning.max_calls_per_day is spent on them today",
					"calls", st.calls)
			}
			return false
		}
	}
	key := func(sk store.Skill) string { return sk.Name + "@" + strconv.Itoa(sk.Version) }
	res, err := ev.WriteAsks(ctx, limit, func(sk store.Skill) bool { return st.failed[key(sk)] >= asksTries })
	more := l.asksRun(ctx, st, "", res, err)
	if err != nil || res.Left > len(res.Failed) {
		return more
	}
	langs := l.askLanguages(ctx, cfg.Skills.AskLanguages)
	if limit -= res.Written + len(res.Failed); len(langs) == 0 || limit <= 0 {
		return more
	}
	// The starter skills still as the bank has them take its asks in those
	// languages, without a model call.
	if n, err := skills.StarterAsksIn(ctx, l.db, assets.Skills(), langs); err != nil {
		l.log.Warn("learner: the starter bank's asks in other languages", "error", err)
	} else if n > 0 {
		l.log.Info("learner: starter skills given the bank's asks in "+strings.Join(langs, ", "), "skills", n)
	}
	in := "#" + strings.Join(langs, ",")
	res, err = ev.WriteAsksIn(ctx, langs, limit, func(sk store.Skill) bool { return st.failed[key(sk)+in] >= asksTries })
	return l.asksRun(ctx, st, in, res, err) || more
}

// asksRun counts and logs one WriteAsks or WriteAsksIn run (in: "" or
// "#" and its languages) and reports whether skills are left that the next
// run should take at once.
func (l *Learner) asksRun(ctx context.Context, st *asksState, in string, res evolve.AsksResult, err error) bool {
	what := "skills' asks"
	if in != "" {
		what = "skills' asks in " + in[1:]
	}
	st.calls += res.Written + len(res.Failed)
	for _, f := range res.Failed {
		st.failed[f.Name+"@"+strconv.Itoa(f.Version)+in]++
		l.log.Debug("learner: no "+what+" from the model's answer", "skill", f.Name, "why", f.Why)
	}
	switch {
	case err != nil && ctx.Err() == nil:
		l.log.Warn("learner: writing "+what+" stopped", "written", res.Written, "left", res.Left, "error", err)
		return false
	case res.Written > 0 || len(res.Failed) > 0:
		l.log.Info("learner: "+what+" written", "written", res.Written, "failed", len(res.Failed), "left", res.Left)
	}
	return err == nil && res.Written > 0 && res.Left > len(res.Failed)
}

// askLanguages are the languages to write skills' asks in besides
// English (skills.ask_languages, config.WantedAskLanguages).
func (l *Learner) askLanguages(ctx context.Context, setting string) []string {
	seen, err := l.db.LanguagesSeen(ctx)
	if err != nil {
		l.log.Warn("learner: read the requests' languages", "error", err)
		return nil
	}
	return config.WantedAskLanguages(setting, seen)
}
