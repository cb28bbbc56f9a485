package learner

import (
	"bytes"
	"context"
	"errors"
	"sync"
	"time"

	"github.com/metaclaw/metaclaw/app/learner/evolve"
	"github.com/metaclaw/metaclaw/app/learner/internal/transcript"
	"github.com/metaclaw/metaclaw/app/learner/judge"
	"github.com/metaclaw/metaclaw/app/learner/usage"
	"github.com/metaclaw/metaclaw/store"
)

// judgeWorker scores turns until ctx ends; work is the context of the
// calls themselves, which outlives ctx by the drain timeout.
func (l *Learner) judgeWorker(ctx, work context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case job := <-l.judgeJobs:
			if ctx.Err() != nil {
				l.pending.end(job.session)
				l.work.end("")
				return
			}
			l.runJudge(work, job)
			l.work.end("")
		}
	}
}

func (l *Learner) runJudge(ctx context.Context, job judgeJob) {
	defer l.pending.end(job.session)
	if l.isPaused("judging", "session", job.session, "turn", job.turn) {
		return
	}
	_, j, _ := l.current()
	if j == nil {
		return
	}
	if job.whole {
		l.judgeSession(ctx, j, job.session)
		return
	}
	turn, next, err := l.loadTurns(ctx, job)
	if err != nil {
		l.judgeFailed.Add(1)
		l.log.Error("learner: read turn to judge", "session", job.session, "turn", job.turn, "error", err)
		return
	}
	if next != nil && bytes.Equal(turn.Request, next.Request) {
		return // the same request again (a retry, a tool loop resending it): the later one is judged
	}
	l.scoreTurn(ctx, j, turn, next)
}

// scoreTurn asks the judge about turn (next: its evidence, nil at session
// end) and stores the score.
func (l *Learner) scoreTurn(ctx context.Context, j *judge.Judge, turn store.Turn, next *store.Turn) {
	if turn.Status >= 400 || turn.Error != "" {
		return // the upstream failed; there is no answer to judge
	}
	sc, err := j.Score(ctx, turn, next)
	if errors.Is(err, judge.ErrNothingToJudge) {
		return
	}
	l.meter.Outcome(usage.Judge, err)
	if err == nil {
		err = l.db.PutScore(ctx, sc)
	}
	if err != nil {
		l.judgeFailed.Add(1)
		l.log.Warn("learner: judge failed", "session", turn.SessionID, "turn", turn.ID, "error", err)
		return
	}
	l.judged.Add(1)
	l.log.Debug("learner: turn judged", "session", turn.SessionID, "turn", turn.ID, "score", sc.Score,
		"votes", sc.Votes, "failed_votes", sc.Failed, "evidence", sc.Evidence)
}

// judgeSession scores, at a session's end, only what the evolver reads:
// the final answer to each of the person's latest requests (at most
// evolve.MaxTurns among the latest evolve.MaxReadTurns main turns), each
// with the person's next request as evidence. A tool loop or a retry that
// repeats a request is judged once, by its last answer.
func (l *Learner) judgeSession(ctx context.Context, j *judge.Judge, session string) {
	turns, err := l.db.RecentSessionTurns(ctx, session, store.TurnMain, evolve.MaxReadTurns)
	if err != nil {
		l.judgeFailed.Add(1)
		l.log.Error("learner: read session to judge", "session", session, "error", err)
		return
	}
	for _, p := range finalAnswers(turns, evolve.MaxTurns) {
		if ctx.Err() != nil {
			return
		}
		if _, err := l.db.TurnScore(ctx, p.turn.ID); err == nil {
			continue // scored already (the session ended before)
		}
		l.scoreTurn(ctx, j, p.turn, p.next)
	}
}

// answerPick is a turn to judge and its evidence.
type answerPick struct {
	turn store.Turn
	next *store.Turn // the first turn of the next request; nil: the session's end
}

// finalAnswers groups turns (in session order) into runs of the same
// instruction and returns the last turn of the latest n runs, each with
// the first turn of the run after it.
func finalAnswers(turns []store.Turn, n int) []answerPick {
	var starts []int
	prev := "\x00"
	for i, t := range turns {
		ins := ""
		if conv, err := transcript.Open(t.Request); err == nil {
			ins = conv.Instruction()
		}
		if i == 0 || ins != prev {
			starts = append(starts, i)
		}
		prev = ins
	}
	var out []answerPick
	for k := range starts {
		end := len(turns)
		p := answerPick{}
		if k+1 < len(starts) {
			end = starts[k+1]
			p.next = &turns[end]
		}
		p.turn = turns[end-1]
		out = append(out, p)
	}
	return out[max(0, len(out)-n):]
}

func (l *Learner) loadTurns(ctx context.Context, job judgeJob) (store.Turn, *store.Turn, error) {
	turn, err := l.db.TurnByID(ctx, job.turn)
	if err != nil || job.next == 0 {
		return turn, nil, err
	}
	next, err := l.db.TurnByID(ctx, job.next)
	return turn, &next, err
}

// evolveWorker runs evolutions one at a time until ctx ends.
func (l *Learner) evolveWorker(ctx, work context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case job := <-l.evolveJobs:
			l.unqueue(job.session)
			l.runEvolve(ctx, work, job)
			l.work.end("")
		}
	}
}

func (l *Learner) runEvolve(ctx, work context.Context, job evolveJob) {
	// Let the session's judging finish first, so that its scores count.
	if !l.pending.wait(ctx, job.session, judgeWaitForEvolve) && ctx.Err() == nil {
		l.log.Warn("learner: evolving before the session's judging finished", "session", job.session)
	}
	if ctx.Err() != nil {
		return // shutting down: start nothing new
	}
	if l.isPaused("skill evolution", "session", job.session) {
		return
	}
	_, _, ev := l.current()
	if ev == nil {
		return
	}
	res, err := ev.Evolve(work, job.session)
	if err != nil {
		l.meter.Outcome(usage.Evolver, err)
		l.evolveFailed.Add(1)
		l.log.Warn("learner: skill evolution failed", "session", job.session, "trigger", job.why, "error", err)
		return
	}
	switch res.Status {
	case evolve.StatusApplied:
		l.evolutions.Add(1)
		if _, err := l.CheckSamples(work); err != nil {
			l.log.Warn("learner: check training samples after evolution", "error", err)
		}
	case evolve.StatusRejected:
		l.rejected.Add(1)
		l.meter.Outcome(usage.Evolver, &usage.AnswerError{Err: errors.New("evolver output rejected: " + res.Reason), Excerpt: res.Excerpt})
		return
	case evolve.StatusEmpty:
		l.empty.Add(1)
	}
	if res.Status != evolve.StatusSkipped {
		l.meter.Outcome(usage.Evolver, nil)
	}
}

// checkLeftSamples checks the samples an earlier run left unchecked (it
// stopped between an evolution and the check).
func (l *Learner) checkLeftSamples(ctx context.Context) {
	if _, err := l.CheckSamples(ctx); err != nil && ctx.Err() == nil {
		l.log.Warn("learner: check training samples", "error", err)
	}
}

// discardJobs empties the job queues after the workers stopped, so that a
// later Serve starts clean. Events stay queued.
func (l *Learner) discardJobs() {
	for {
		select {
		case job := <-l.judgeJobs:
			l.pending.end(job.session)
			l.work.end("")
		case job := <-l.evolveJobs:
			l.unqueue(job.session)
			l.work.end("")
		default:
			return
		}
	}
}

// inflight counts work in progress per key and lets others wait for a key
// to fall idle.
type inflight struct {
	mu sync.Mutex // guards m
	m  map[string]*flight
}

type flight struct {
	n    int
	idle chan struct{} // closed when n drops to 0
}

func (f *inflight) begin(key string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.m == nil {
		f.m = map[string]*flight{}
	}
	fl := f.m[key]
	if fl == nil {
		fl = &flight{idle: make(chan struct{})}
		f.m[key] = fl
	}
	fl.n++
}

func (f *inflight) end(key string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fl := f.m[key]
	if fl == nil {
		return
	}
	if fl.n--; fl.n <= 0 {
		close(fl.idle)
		delete(f.m, key)
	}
}

// wait waits until key is idle, ctx ends or d passes; it reports whether
// key is idle.
func (f *inflight) wait(ctx context.Context, key string, d time.Duration) bool {
	f.mu.Lock()
	fl := f.m[key]
	f.mu.Unlock()
	if fl == nil {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-fl.idle:
		return true
	case <-ctx.Done():
	case <-t.C:
	}
	return false
}
