package learner

import (
	"context"
	"strconv"
	"time"

	"github.com/metaclaw/metaclaw/store"
)

// How the learner has skills' asks written (evolve.WriteAsks): when it
// starts, whenever skills change, and every asksEvery, at most
// asksPerRun skills a run; a skill version whose answer failed
// asksTries times is left until the app restarts.
const (
	asksEvery  = 10 * time.Minute
	asksPerRun = 20
	asksTries  = 3
	asksSettle = 3 * time.Second // Options.AsksSettle's default
)

// asksWorker writes the asks of skills that have none until ctx ends (a
// call in flight then is abandoned: the next start writes those asks).
func (l *Learner) asksWorker(ctx context.Context) {
	failed := map[string]int{} // "name@version" → failed answers
	timer := time.NewTimer(l.opts.AsksSettle)
	defer timer.Stop()
	for {
		change := l.db.SkillsChange()
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
		more := l.writeAsks(ctx, failed)
		timer.Reset(asksEvery)
		if more {
			timer.Reset(l.opts.AsksSettle)
		}
	}
}

// writeAsks runs one WriteAsks when the configuration asks for it and
// learning is not paused; it reports whether skills are left that the
// next run should take at once.
func (l *Learner) writeAsks(ctx context.Context, failed map[string]int) bool {
	cfg, _, ev := l.current()
	if ev == nil || !cfg.Skills.WriteAsks || l.isPaused("writing skills' asks") {
		return false
	}
	key := func(sk store.Skill) string { return sk.Name + "@" + strconv.Itoa(sk.Version) }
	res, err := ev.WriteAsks(ctx, asksPerRun, func(sk store.Skill) bool { return failed[key(sk)] >= asksTries })
	for _, f := range res.Failed {
		failed[f.Name+"@"+strconv.Itoa(f.Version)]++
		l.log.Debug("learner: no asks from the model's answer", "skill", f.Name, "why", f.Why)
	}
	switch {
	case err != nil && ctx.Err() == nil:
		l.log.Warn("learner: writing skills' asks stopped", "written", res.Written, "left", res.Left, "error", err)
		return false
	case res.Written > 0 || len(res.Failed) > 0:
		l.log.Info("learner: skills' asks written", "written", res.Written, "failed", len(res.Failed), "left", res.Left)
	}
	return err == nil && res.Written > 0 && res.Left > len(res.Failed)
}
