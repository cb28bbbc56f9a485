package judge_test

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/metaclaw/metaclaw/app/learner/internal/learntest"
	"github.com/metaclaw/metaclaw/app/learner/judge"
	"github.com/metaclaw/metaclaw/app/learner/llm"
	"github.com/metaclaw/metaclaw/proxy/fakeupstream"
	"github.com/metaclaw/metaclaw/store"
)

type Msg = learntest.Msg

func newJudge(t *testing.T, votes int, replies ...fakeupstream.Reply) (*judge.Judge, *fakeupstream.Server) {
	t.Helper()
	up, base := learntest.StartFake(t)
	for _, r := range replies {
		up.Enqueue(r)
	}
	c := llm.New(llm.Endpoint{BaseURL: base + "/v1", APIKey: "k", Model: "judge-model"})
	return judge.New(judge.Options{Client: c, Model: "judge-model", Votes: votes}), up
}

func answer(s string) fakeupstream.Reply { return fakeupstream.TextReply(s) }

var (
	good  = answer(`{"score": 1, "reason": "did it"}`)
	bad   = answer(`{"score": -1, "reason": "wrong"}`)
	meh   = answer(`{"score": 0, "reason": "partial"}`)
	junk  = answer("I cannot decide.")
	turnA = store.Turn{ID: 7, Request: learntest.OpenAIRequest(Msg{Role: "system", Text: "be nice"}, Msg{Role: "user", Text: "Rename foo to bar in main.go"}),
		ResponseText: "Renamed foo to bar."}
)

func TestScoreVotes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		votes   int
		replies []fakeupstream.Reply
		score   int
		counted []int
		failed  int
	}{
		{"unanimous", 3, []fakeupstream.Reply{good, good, good}, 1, []int{1, 1, 1}, 0},
		{"majority bad", 3, []fakeupstream.Reply{bad, good, bad}, -1, []int{-1, -1, 1}, 0},
		{"three-way tie", 3, []fakeupstream.Reply{bad, good, meh}, 0, []int{-1, 0, 1}, 0},
		{"two-way tie", 2, []fakeupstream.Reply{bad, good}, 0, []int{-1, 1}, 0},
		{"failed vote not counted as 0", 3, []fakeupstream.Reply{good, junk, good}, 1, []int{1, 1}, 1},
		{"failed vote leaves a tie", 3, []fakeupstream.Reply{good, bad, fakeupstream.ErrorReply(http.StatusBadRequest, "no")}, 0, []int{-1, 1}, 1},
		{"out of range fails", 3, []fakeupstream.Reply{answer(`{"score": 2}`), bad, answer(`{"score": 0.5}`)}, -1, []int{-1}, 2},
		{"fenced and prose", 2, []fakeupstream.Reply{answer("```json\n{\"score\": 1, \"reason\": \"ok\"}\n```"), answer(`Verdict: {"score": "+1"} done`)}, 1, []int{1, 1}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			j, _ := newJudge(t, tt.votes, tt.replies...)
			sc, err := j.Score(context.Background(), turnA, nil)
			if err != nil {
				t.Fatal(err)
			}
			votes := slices.Clone(sc.Votes)
			slices.Sort(votes)
			if sc.Score != tt.score || sc.Failed != tt.failed || !slices.Equal(votes, tt.counted) {
				t.Errorf("score %d votes %v failed %d; want %d %v %d", sc.Score, votes, sc.Failed, tt.score, tt.counted, tt.failed)
			}
			if sc.TurnID != 7 || sc.JudgeModel != "judge-model" || sc.Evidence != judge.EvidenceSessionEnd || len(sc.Reasons) != len(sc.Votes) {
				t.Errorf("score = %+v", sc)
			}
		})
	}
}

func TestScoreNoVoteSucceeded(t *testing.T) {
	t.Parallel()
	j, _ := newJudge(t, 3, junk, answer(`{"reason": "no score"}`), answer(`{"score": 1`))
	if sc, err := j.Score(context.Background(), turnA, nil); err == nil {
		t.Fatalf("Score = %+v, want an error", sc)
	}
}

func TestScoreNothingToJudge(t *testing.T) {
	t.Parallel()
	j, up := newJudge(t, 3)
	empty := turnA
	empty.ResponseText = ""
	if _, err := j.Score(context.Background(), empty, nil); !errors.Is(err, judge.ErrNothingToJudge) {
		t.Fatalf("err = %v", err)
	}
	if n := len(up.Requests()); n != 0 {
		t.Errorf("%d requests sent", n)
	}
}

func TestEvidence(t *testing.T) {
	t.Parallel()
	toolTurn := store.Turn{ID: 1, Request: learntest.AnthropicRequest(Msg{Role: "system", Text: "sys"}, Msg{Role: "user", Text: "Run the tests"}),
		ResponseText: "Running them.", ToolCalls: `[{"id":"c1","type":"function","function":{"name":"bash","arguments":"{\"cmd\":\"go test ./...\"}"}}]`}
	continued := store.Turn{ID: 2, Request: learntest.AnthropicRequest(Msg{Role: "user", Text: "Run the tests"},
		Msg{Role: "assistant", Text: "Running them.", Tool: "bash"}, Msg{Role: "tool", Text: "ok  all tests passed"})}
	newMsg := store.Turn{ID: 3, Request: learntest.OpenAIRequest(Msg{Role: "user", Text: "Run the tests"},
		Msg{Role: "assistant", Text: "Running them."}, Msg{Role: "user", Text: "No, that is wrong, use make test"})}
	repeated := store.Turn{ID: 4, Request: learntest.AnthropicRequest(Msg{Role: "user", Text: "Run the tests"})}
	tests := []struct {
		name      string
		next      *store.Turn
		kind      string
		inPrompt  []string
		notPrompt []string
	}{
		{"session end", nil, judge.EvidenceSessionEnd, []string{`kind="session_end"`, "Run the tests", "bash {\"cmd\":\"go test ./...\"}"}, nil},
		{"next user message", &newMsg, judge.EvidenceNextTurn, []string{`kind="next_user_message"`, "No, that is wrong, use make test"}, []string{"session ended"}},
		{"agent carried on", &continued, judge.EvidenceNextTurn, []string{`kind="tool_results"`, "all tests passed"}, nil},
		{"same message again", &repeated, judge.EvidenceNextTurn, []string{`kind="repeated_message"`}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			j, up := newJudge(t, 1, good)
			sc, err := j.Score(context.Background(), toolTurn, tt.next)
			if err != nil {
				t.Fatal(err)
			}
			if sc.Evidence != tt.kind {
				t.Errorf("Evidence = %q, want %q", sc.Evidence, tt.kind)
			}
			p := learntest.PromptOf(up.Requests()[0].Body)
			if !strings.Contains(p.System, `{"score": -1 | 0 | 1`) {
				t.Errorf("system prompt lacks the answer format:\n%s", p.System)
			}
			for _, s := range tt.inPrompt {
				if !strings.Contains(p.User, s) {
					t.Errorf("prompt lacks %q:\n%s", s, p.User)
				}
			}
			for _, s := range tt.notPrompt {
				if strings.Contains(p.User, s) {
					t.Errorf("prompt has %q:\n%s", s, p.User)
				}
			}
		})
	}
}

func TestSecretsNeverReachTheJudge(t *testing.T) {
	t.Parallel()
	secrets := []string{"sk-ant-api03-SECRETSECRETSECRET0123", "hunter2", "AKIAIOSFODNN7EXAMPLE", "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
		"wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"}
	turn := store.Turn{ID: 9,
		Request:      learntest.OpenAIRequest(Msg{Role: "user", Text: "Deploy with key sk-ant-api03-SECRETSECRETSECRET0123 and password=hunter2"}),
		ResponseText: "Set AWS id AKIAIOSFODNN7EXAMPLE.",
		ToolCalls:    `[{"id":"c","type":"function","function":{"name":"bash","arguments":"{\"cmd\":\"export AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\"}"}}]`}
	next := store.Turn{ID: 10, Request: learntest.OpenAIRequest(Msg{Role: "user", Text: "also use ghp_abcdefghijklmnopqrstuvwxyz0123456789"})}
	j, up := newJudge(t, 3, good, good, good)
	if _, err := j.Score(context.Background(), turn, &next); err != nil {
		t.Fatal(err)
	}
	bodies := learntest.Bodies(up)
	if len(bodies) != 3 {
		t.Fatalf("%d requests", len(bodies))
	}
	for _, b := range bodies {
		for _, s := range secrets {
			if strings.Contains(b, s) {
				t.Errorf("secret %q reached the judge", s)
			}
		}
		if !strings.Contains(b, "[REDACTED]") {
			t.Error("no redaction marker in the prompt")
		}
	}
}

func TestParseVote(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want judge.Vote
		err  bool
	}{
		{in: `{"score": -1, "reason": " off-task "}`, want: judge.Vote{Score: -1, Reason: "off-task"}},
		{in: "```json\n{\"score\": 0}\n```", want: judge.Vote{Score: 0}},
		{in: `Sure! {"score": "1", "reason": "ok"}`, want: judge.Vote{Score: 1, Reason: "ok"}},
		{in: `{"score": 1.0}`, want: judge.Vote{Score: 1}},
		{in: `{"score": 3}`, err: true},
		{in: `{"score": -0.5}`, err: true},
		{in: `{"score": "good"}`, err: true},
		{in: `{"score": null}`, err: true},
		{in: `{"reason": "x"}`, err: true},
		{in: "The agent renamed the symbol as asked.\nScore: 1", want: judge.Vote{Score: 1, Reason: "The agent renamed the symbol as asked."}},
		{in: "First I thought Score: 1 but the user corrected it.\nScore: -1", want: judge.Vote{Score: -1, Reason: "First I thought Score: 1 but the user corrected it."}},
		{in: "**Score:** 0", want: judge.Vote{Score: 0}},
		{in: "score = +1", want: judge.Vote{Score: 1}},
		{in: "It failed. \\boxed{-1}", want: judge.Vote{Score: -1, Reason: "It failed."}},
		{in: "Right answer: \\boxed{1}.", want: judge.Vote{Score: 1, Reason: "Right answer:"}},
		{in: "Score: 2", err: true},
		{in: "I cannot decide.", err: true},
	}
	for _, tt := range tests {
		got, err := judge.ParseVote(tt.in)
		if (err != nil) != tt.err {
			t.Errorf("ParseVote(%q) err = %v, want error %v", tt.in, err, tt.err)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" && !tt.err {
			t.Errorf("ParseVote(%q) (-want +got):\n%s", tt.in, diff)
		}
	}
}

func TestMajority(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		votes []int
		want  int
	}{
		{nil, 0}, {[]int{1}, 1}, {[]int{-1}, -1}, {[]int{1, 1, -1}, 1}, {[]int{-1, -1, 1}, -1}, {[]int{1, -1}, 0},
		{[]int{1, 0, -1}, 0}, {[]int{0, 0, 1}, 0}, {[]int{1, 1, 0, 0, -1}, 0}, {[]int{1, 1, 0, -1, -1, -1}, -1},
	} {
		if got := judge.Majority(tt.votes); got != tt.want {
			t.Errorf("Majority(%v) = %d, want %d", tt.votes, got, tt.want)
		}
	}
}

func TestScoreResponse(t *testing.T) {
	t.Parallel()
	j, up := newJudge(t, 3, bad, bad, good)
	sc, err := j.ScoreResponse(context.Background(), turnA, "I renamed bar to foo instead.", "")
	if err != nil {
		t.Fatal(err)
	}
	if sc.Score != -1 || sc.TurnID != turnA.ID || sc.Evidence != judge.EvidenceResponseOnly {
		t.Errorf("score = %+v; want -1 for turn %d with response_only evidence", sc, turnA.ID)
	}
	p := learntest.PromptOf(up.Requests()[0].Body)
	for _, s := range []string{"Rename foo to bar in main.go", "I renamed bar to foo instead.", `kind="none"`} {
		if !strings.Contains(p.User, s) {
			t.Errorf("prompt lacks %q:\n%s", s, p.User)
		}
	}
	if strings.Contains(p.User, turnA.ResponseText) || strings.Contains(p.User, "session ended") {
		t.Errorf("prompt shows the recorded answer or a session end:\n%s", p.User)
	}
	if _, err := j.ScoreResponse(context.Background(), turnA, " ", ""); !errors.Is(err, judge.ErrNothingToJudge) {
		t.Errorf("empty response: %v, want ErrNothingToJudge", err)
	}
}
