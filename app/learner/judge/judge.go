// Package judge is the process reward model (PRM): it scores one main turn
// of a session with m independent votes of a judge model. Each vote reads
// the person's instruction, the agent's response (text and tool calls) and
// the evidence of what happened next — the next turn of the session, or
// the end of the session — and answers {"score": -1|0|1, "reason": "..."}.
// The score is the majority of the votes that succeeded (ties 0); a vote
// that fails is counted apart, never as 0. Everything sent to the judge is
// redacted first.
//
// The learner service imports it; it imports store, the learner's llm and
// redact packages and its internal helpers.
package judge

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/metaclaw/metaclaw/app/learner/llm"
	"github.com/metaclaw/metaclaw/store"
)

// Evidence kinds, stored in store.Score.Evidence.
const (
	EvidenceNextTurn   = "next_turn"
	EvidenceSessionEnd = "session_end"
	// EvidenceResponseOnly is a response judged on its own: an extra
	// response the trainer drew for the same prompt, which no later turn
	// ever followed (see ScoreResponse).
	EvidenceResponseOnly = "response_only"
)

// Defaults.
const (
	DefaultVoteTimeout = 3 * time.Minute
	// Temperature of each vote: high enough that votes are independent
	// samples, low enough that they stay on the rubric.
	Temperature = 0.7
	// maxAnswerTokens leaves room for models that think before answering.
	maxAnswerTokens = 1024
)

// Completer is what the judge needs of a model client (*llm.Client).
type Completer interface {
	Complete(ctx context.Context, system, user string, opts llm.Options) (string, error)
}

var _ Completer = (*llm.Client)(nil)

// Options configure a Judge.
type Options struct {
	Client      Completer
	Model       string        // recorded as the score's JudgeModel
	Votes       int           // m, the votes per turn; below 1 means 1
	Concurrency int           // votes asked at once; 0 means all of them
	VoteTimeout time.Duration // one vote, retries included; 0 = DefaultVoteTimeout
}

// Judge scores turns. It is safe for concurrent use.
type Judge struct {
	opts Options
}

// ErrNothingToJudge is returned for a turn without a response (no text
// and no tool calls, as when the upstream failed).
var ErrNothingToJudge = errors.New("turn has no response to judge")

// New returns a judge.
func New(opts Options) *Judge {
	opts.Votes = max(opts.Votes, 1)
	if opts.Concurrency <= 0 || opts.Concurrency > opts.Votes {
		opts.Concurrency = opts.Votes
	}
	if opts.VoteTimeout <= 0 {
		opts.VoteTimeout = DefaultVoteTimeout
	}
	return &Judge{opts: opts}
}

// Votes returns the number of votes per turn.
func (j *Judge) Votes() int { return j.opts.Votes }

// Score asks the votes about turn, with next as evidence (nil when the
// session ended after turn), and returns the score to store. It returns an
// error, and no score, when no vote succeeded.
func (j *Judge) Score(ctx context.Context, turn store.Turn, next *store.Turn) (store.Score, error) {
	ev := BuildEvidence(turn, next)
	if ev.Empty() {
		return store.Score{}, fmt.Errorf("judge turn %d: %w", turn.ID, ErrNothingToJudge)
	}
	return j.score(ctx, turn.ID, ev)
}

// score asks the votes about the evidence of a turn's response.
func (j *Judge) score(ctx context.Context, turnID int64, ev Evidence) (store.Score, error) {
	results := j.vote(ctx, ev.Prompt())
	sc := store.Score{TurnID: turnID, JudgeModel: j.opts.Model, Evidence: ev.Kind}
	var firstErr error
	for _, r := range results {
		if r.err != nil {
			sc.Failed++
			if firstErr == nil {
				firstErr = r.err
			}
			continue
		}
		sc.Votes = append(sc.Votes, r.vote.Score)
		sc.Reasons = append(sc.Reasons, r.vote.Reason)
	}
	if len(sc.Votes) == 0 {
		return store.Score{}, fmt.Errorf("judge turn %d: all %d votes failed: %w", turnID, len(results), firstErr)
	}
	sc.Score = Majority(sc.Votes)
	return sc, nil
}

// ScoreResponse scores a response to turn's prompt other than the one the
// turn recorded: text and toolCalls (a JSON array as in store.Turn.ToolCalls,
// "" when none) replace the turn's answer, and there is no evidence of what
// happened next (EvidenceResponseOnly). The trainer uses it to judge the
// responses of a group (the served one included) alike, since the next turn
// only ever reacted to the served response. The score's TurnID is the
// turn's.
func (j *Judge) ScoreResponse(ctx context.Context, turn store.Turn, text, toolCalls string) (store.Score, error) {
	ev := BuildEvidence(store.Turn{Request: turn.Request, ResponseText: text, ToolCalls: toolCalls}, nil)
	ev.Kind = EvidenceResponseOnly
	if ev.Empty() {
		return store.Score{}, fmt.Errorf("judge response to turn %d: %w", turn.ID, ErrNothingToJudge)
	}
	return j.score(ctx, turn.ID, ev)
}

type voteResult struct {
	vote Vote
	err  error
}

// vote asks the votes concurrently, at most Concurrency at a time, and
// returns their results in order.
func (j *Judge) vote(ctx context.Context, prompt string) []voteResult {
	results := make([]voteResult, j.opts.Votes)
	sem := make(chan struct{}, j.opts.Concurrency)
	var wg sync.WaitGroup
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				results[i].err = ctx.Err()
				return
			}
			defer func() { <-sem }()
			results[i].vote, results[i].err = j.askOnce(ctx, prompt)
		}()
	}
	wg.Wait()
	return results
}

func (j *Judge) askOnce(ctx context.Context, prompt string) (Vote, error) {
	ctx, cancel := context.WithTimeout(ctx, j.opts.VoteTimeout)
	defer cancel()
	text, err := j.opts.Client.Complete(ctx, systemPrompt, prompt,
		llm.Options{Temperature: Temperature, MaxTokens: maxAnswerTokens, JSON: true})
	if err != nil {
		return Vote{}, err
	}
	return ParseVote(text)
}

// Majority returns the most common vote; a tie between the most common
// values, or no votes, gives 0.
func Majority(votes []int) int {
	counts := map[int]int{}
	for _, v := range votes {
		counts[v]++
	}
	best, bestN, tie := 0, 0, false
	for _, v := range []int{-1, 0, 1} {
		switch n := counts[v]; {
		case n > bestN:
			best, bestN, tie = v, n, false
		case n == bestN && n > 0:
			tie = true
		}
	}
	if tie {
		return 0
	}
	return best
}
