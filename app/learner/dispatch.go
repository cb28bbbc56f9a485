package learner

import (
	"context"
	"math"

	"github.com/metaclaw/metaclaw/proxy/learning"
	"github.com/metaclaw/metaclaw/store"
	"github.com/metaclaw/metaclaw/store/config"
)

// sessionState is what the dispatcher remembers of an open session, so
// that it need not re-read the session's turns on every event.
type sessionState struct {
	lastMain  int64 // id of the latest main turn seen
	mainCount int   // main turns so far
	fresh     int   // main turns that brought the person's words, seen by this run
}

// judgeJob asks for turn to be scored with next as evidence (0: session
// end), or with whole for the session's requests to be scored at its end
// (judgeSession).
type judgeJob struct {
	session    string
	turn, next int64
	whole      bool
}

// evolveJob asks for the evolver to run on a session.
type evolveJob struct {
	session, why string
}

// dispatch handles events until ctx ends.
func (l *Learner) dispatch(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case ev := <-l.events:
			switch ev.Kind {
			case learning.TurnRecorded:
				l.onTurn(ctx, ev)
			case learning.SessionEnded:
				l.onSessionEnd(ctx, ev)
			default:
				l.log.Debug("learner: unknown event", "kind", ev.Kind)
			}
			l.work.end("") // after the jobs it queued began
		}
	}
}

// onTurn scores the session's previous main turn with this one as
// evidence (when every turn is judged), and evolves every N main turns
// that brought the person's words.
func (l *Learner) onTurn(ctx context.Context, ev learning.Event) {
	if ev.TurnType == store.TurnSide {
		return
	}
	if ev.TurnType == "" {
		t, err := l.db.TurnByID(ctx, ev.TurnID)
		if err != nil || t.Type != store.TurnMain {
			return
		}
	}
	st, err := l.session(ctx, ev.SessionID, ev.TurnID)
	if err != nil {
		l.log.Error("learner: read session", "session", ev.SessionID, "error", err)
		return
	}
	prev := st.lastMain
	if ev.TurnID <= prev {
		return // already seen
	}
	st.lastMain = ev.TurnID
	st.mainCount++
	cfg, _, _ := l.current()
	if prev != 0 && cfg.JudgeMode() == config.JudgeEveryTurn {
		l.enqueueJudge(judgeJob{session: ev.SessionID, turn: prev, next: ev.TurnID})
	}
	if !ev.Fresh {
		return
	}
	st.fresh++
	if n := cfg.Skills.EvolveEveryTurns; cfg.Skills.AutoEvolve && n > 0 && st.fresh%n == 0 {
		l.enqueueEvolve(ev.SessionID, "every_n_turns")
	}
}

// onSessionEnd scores the session's last main turn, then evolves.
func (l *Learner) onSessionEnd(ctx context.Context, ev learning.Event) {
	st, err := l.session(ctx, ev.SessionID, math.MaxInt64)
	delete(l.sessions, ev.SessionID)
	defer l.markEnded(ev.SessionID)
	if err != nil {
		l.log.Error("learner: read session", "session", ev.SessionID, "error", err)
		return
	}
	cfg, _, _ := l.current()
	switch {
	case st.lastMain == 0:
	case cfg.JudgeMode() == config.JudgeEveryTurn:
		l.enqueueJudge(judgeJob{session: ev.SessionID, turn: st.lastMain})
	case cfg.JudgeMode() == config.JudgeSessionEnd:
		l.enqueueJudge(judgeJob{session: ev.SessionID, whole: true})
	}
	if cfg.Skills.AutoEvolve && st.mainCount > 0 {
		l.enqueueEvolve(ev.SessionID, "session_end")
	}
}

// session returns the state of a session, reading it from the database
// (main turns before the turn id before) the first time it is seen.
func (l *Learner) session(ctx context.Context, id string, before int64) (*sessionState, error) {
	if st, ok := l.sessions[id]; ok {
		return st, nil
	}
	turns, err := l.db.SessionTurnHeads(ctx, id)
	if err != nil {
		return nil, err
	}
	st := &sessionState{}
	for _, t := range turns {
		if t.Type == store.TurnMain && t.ID < before {
			st.lastMain = max(st.lastMain, t.ID)
			st.mainCount++
		}
	}
	l.sessions[id] = st
	return st, nil
}

func (l *Learner) enqueueJudge(job judgeJob) {
	if _, j, _ := l.current(); j == nil {
		return
	}
	if l.isPaused("judging", "session", job.session, "turn", job.turn) {
		return
	}
	l.pending.begin(job.session)
	l.work.begin("")
	select {
	case l.judgeJobs <- job:
	default:
		l.pending.end(job.session)
		l.work.end("")
		l.drop("judge queue full", "session", job.session, "turn", job.turn)
	}
}

func (l *Learner) enqueueEvolve(session, why string) {
	if _, _, ev := l.current(); ev == nil {
		return
	}
	if l.isPaused("skill evolution", "session", session) {
		return
	}
	l.mu.Lock()
	already := l.queued[session]
	l.queued[session] = true
	l.mu.Unlock()
	if already {
		return // the evolution waiting will see this session's latest turns
	}
	l.work.begin("")
	select {
	case l.evolveJobs <- evolveJob{session: session, why: why}:
	default:
		l.work.end("")
		l.unqueue(session)
		l.drop("evolution queue full", "session", session)
	}
}

func (l *Learner) unqueue(session string) {
	l.mu.Lock()
	delete(l.queued, session)
	l.mu.Unlock()
}
