package app

import (
	"context"
	"fmt"
	"testing"

	"github.com/metaclaw/metaclaw/store/testutil"
	"github.com/openai/openai-go/v3"
)

// agentSession plays one agent session against the proxy as a coding agent
// does: requests of the person, each followed by a tool loop (the agent's
// tool calls and their results, resent with the whole history every turn),
// one request retried unchanged, the last turn ending the session. It
// returns the number of main turns sent.
func agentSession(t testing.TB, agent *agentClient, session string, requests, loop int) int {
	t.Helper()
	var msgs []openai.ChatCompletionMessageParamUnion
	msgs = append(msgs, openai.SystemMessage("You are a coding agent. Use the tools."))
	turns := 0
	send := func(done bool) {
		t.Helper()
		if err := agent.ask(session, done, msgs...); err != nil {
			t.Fatal(err)
		}
		turns++
	}
	for r := range requests {
		msgs = append(msgs, openai.UserMessage(fmt.Sprintf("request %d: fix the failing test number %d in payments_test.go", r, r)))
		send(false)
		if r == requests/2 {
			send(false) // the agent retries the same request
		}
		for i := range loop {
			id := fmt.Sprintf("call_%d_%d", r, i)
			msgs = append(msgs, openai.ChatCompletionMessageParamUnion{OfAssistant: &openai.ChatCompletionAssistantMessageParam{
				ToolCalls: []openai.ChatCompletionMessageToolCallUnionParam{{OfFunction: &openai.ChatCompletionMessageFunctionToolCallParam{
					ID: id, Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: "run_tests", Arguments: `{"path":"."}`}}}}}},
				openai.ToolMessage(fmt.Sprintf("FAIL payments_test.go:%d expected 3 got 4", 10+i), id))
			send(r == requests-1 && i == loop-1)
		}
		msgs = append(msgs, openai.AssistantMessage("Done."))
	}
	return turns
}

// learnerCalls are the model calls learning made, by kind.
type learnerCalls struct{ judge, evolver, extract int64 }

func (c learnerCalls) total() int64 { return c.judge + c.evolver + c.extract }

// runLearningWorkload starts the app with default settings in skills_only
// against a fake that plays agent, judge, evolver and extractor, plays
// sessions agent sessions, waits until learning is done with them, and
// returns the main turns sent and the learner's calls.
func runLearningWorkload(t testing.TB, sessions int, paused bool) (int, learnerCalls) {
	t.Helper()
	_, base, b := startBrain(t)
	b.judge.Store("The agent's step was partly right.\nScore: 0") // every session has something to evolve from
	a, url := startAppWith(t, base, nil)
	if paused {
		if err := a.SetPaused(true); err != nil {
			t.Fatal(err)
		}
	}
	agent := newAgent(t, url)
	turns := 0
	for s := range sessions {
		turns += agentSession(t, agent, fmt.Sprintf("bench-%d", s), 8, 4)
	}
	if !paused {
		testutil.Eventually(t, "learning to finish the sessions", func() bool {
			evos, _ := a.DB().Evolutions(context.Background(), sessions)
			return len(evos) == sessions && b.extractCalls.Load() >= int64(sessions)
		})
	}
	return turns, learnerCalls{judge: b.judgeCalls.Load(), evolver: b.evolverCalls.Load(), extract: b.extractCalls.Load()}
}

// TestLearnerCallsPerTurn holds learning's cost with default settings in
// skills_only to at most 0.3 extra model calls per main turn of an agent's
// sessions (tool loops, a retry): judged once per request at session end,
// extracted and evolved once per session.
func TestLearnerCallsPerTurn(t *testing.T) {
	const sessions = 4
	turns, calls := runLearningWorkload(t, sessions, false)
	perTurn := float64(calls.total()) / float64(turns)
	t.Logf("%d main turns, %d learner calls (judge %d, evolver %d, extraction %d): %.3f per turn",
		turns, calls.total(), calls.judge, calls.evolver, calls.extract, perTurn)
	if perTurn > 0.3 {
		t.Errorf("%.3f learner calls per main turn, want at most 0.3", perTurn)
	}
	if calls.judge != 8*sessions || calls.evolver != sessions || calls.extract != sessions {
		t.Errorf("calls %+v; want one vote per request (%d), one evolution and one extraction per session", calls, 8*sessions)
	}
}
