package evolve_test

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/metaclaw/metaclaw/app/learner/evolve"
	"github.com/metaclaw/metaclaw/app/learner/internal/learntest"
	"github.com/metaclaw/metaclaw/proxy/fakeupstream"
	"github.com/metaclaw/metaclaw/store"
)

func TestParseAsks(t *testing.T) {
	t.Parallel()
	tests := []struct {
		answer string
		want   int    // asks kept
		err    string // part of the error
	}{
		{`{"asks": ["a b", "c d", "e f"]}`, 3, ""},
		{"Here they are:\n```json\n{\"asks\": [\"a b\", \"c d\", \"e f\", \"  \", \"A B\"]}\n```", 3, ""},
		{`{"asks": ["a b", "c d"]}`, 0, "fewer than 3"},
		{`{"asks": "a b"}`, 0, "not {"},
		{`I cannot help with that.`, 0, "not {"},
		{`{"operations": []}`, 0, "fewer than 3"},
	}
	for _, tt := range tests {
		got, err := evolve.ParseAsks(tt.answer)
		if len(got) != tt.want || tt.err == "" && err != nil || tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)) {
			t.Errorf("ParseAsks(%q) = %q, %v; want %d asks, error %q", tt.answer, got, err, tt.want, tt.err)
		}
	}
}

// TestWriteAsks: the model is asked, one skill a call, for the asks of
// each enabled skill without them, over the real chat-completions wire;
// a useless answer fails that skill alone, an unreachable model stops
// the run, and skills that have asks are left alone.
func TestWriteAsks(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	f.up.SetRecording(true)
	if err := f.db.SetSkillAsks(ctx, "old-habit", 1, []string{"kept as it is"}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.db.PutSkill(ctx, store.SkillInput{Name: "third", Description: "When a third thing happens.", Body: "Do a third thing."}); err != nil {
		t.Fatal(err)
	}
	f.up.Enqueue(fakeupstream.TextReply("```json\n{\"asks\": [\"my test fails on CI but not locally\", \"pytest says 1 failed\", \"el test falla\"]}\n```"))
	f.up.Enqueue(fakeupstream.TextReply(`Sorry, no.`))
	res, err := f.ev.WriteAsks(ctx, 0, nil)
	if err != nil || res.Written != 1 || len(res.Failed) != 1 || res.Failed[0].Name != "third" || res.Left != 1 {
		t.Fatalf("WriteAsks = %+v, %v", res, err)
	}
	sk, _ := f.db.Skill(ctx, "debug-failing-test")
	if !slices.Equal(sk.Asks, []string{"my test fails on CI but not locally", "pytest says 1 failed", "el test falla"}) {
		t.Errorf("asks = %q", sk.Asks)
	}
	if sk, _ := f.db.Skill(ctx, "old-habit"); !slices.Equal(sk.Asks, []string{"kept as it is"}) {
		t.Errorf("a skill with asks was rewritten: %q", sk.Asks)
	}
	reqs := f.up.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model calls, want 2 (one a skill without asks)", len(reqs))
	}
	p := learntest.PromptOf(reqs[0].Body)
	if !strings.Contains(p.User, "name: debug-failing-test") || !strings.Contains(p.User, "Reproduce it locally") ||
		!strings.Contains(p.User, `{"asks": [`) {
		t.Errorf("the prompt does not show the skill and the answer's form:\n%s", p.User)
	}

	// A skill the caller skips (it failed before) is not asked again; a
	// model that cannot be reached stops the run with an error.
	res, err = f.ev.WriteAsks(ctx, 0, func(sk store.Skill) bool { return sk.Name == "third" })
	if err != nil || res.Written != 0 || len(f.up.Requests()) != 2 {
		t.Errorf("skipped skill: %+v, %v, %d calls", res, err, len(f.up.Requests()))
	}
	f.up.SetDefault(fakeupstream.ErrorReply(http.StatusUnauthorized, "bad key"))
	res, err = f.ev.WriteAsks(ctx, 0, nil)
	if err == nil || !strings.Contains(err.Error(), "third") || res.Left != 1 {
		t.Errorf("unreachable model: %+v, %v", res, err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := f.ev.WriteAsks(cctx, 0, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

// TestAsksPromptIsRedacted: a secret in a skill's text does not reach the
// model.
func TestAsksPromptIsRedacted(t *testing.T) {
	t.Parallel()
	p := evolve.AsksPrompt(store.Skill{Name: "call-api", Description: "When calling the API.",
		Body: "Use Authorization: Bearer sk-live-4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c and retry.", Asks: []string{"an old ask"}})
	if strings.Contains(p, "sk-live-4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c") || strings.Contains(p, "an old ask") || !strings.Contains(p, "name: call-api") {
		t.Errorf("prompt:\n%s", p)
	}
}

func TestParseAsksIn(t *testing.T) {
	t.Parallel()
	langs := []string{"de", "es"}
	tests := []struct {
		answer string
		want   map[string]int // asks kept by language
		err    string
	}{
		{`{"de": ["a b", "c d", "e f"], "es": ["g h", "i j", "k l", "m n"]}`, map[string]int{"de": 3, "es": 4}, ""},
		{"```json\n{\"de\": [\"a b\", \"c d\", \"e f\"], \"es\": [\"g h\"], \"fr\": [\"x y\", \"z w\", \"u v\"]}\n```", map[string]int{"de": 3}, ""},
		{`{"de": ["a b"], "es": []}`, nil, "in none of de, es"},
		{`{"asks": ["a b", "c d", "e f"]}`, nil, "in none of"},
		{`{"de": "a b"}`, nil, "not {"},
		{`Lo siento.`, nil, "not {"},
	}
	for _, tt := range tests {
		got, err := evolve.ParseAsksIn(tt.answer, langs)
		n := map[string]int{}
		for l, a := range got {
			n[l] = len(a)
		}
		if len(n) != len(tt.want) || tt.err == "" && err != nil || tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)) {
			t.Errorf("ParseAsksIn(%q) = %v, %v; want %v, error %q", tt.answer, n, err, tt.want, tt.err)
			continue
		}
		for l, c := range tt.want {
			if n[l] != c {
				t.Errorf("ParseAsksIn(%q): %d asks in %s, want %d", tt.answer, n[l], l, c)
			}
		}
	}
}

// TestWriteAsksIn: for each enabled skill that lacks asks in one of the
// languages, one call asks for all it lacks, naming them and the
// answer's form; what comes back is stored by language, a language
// already there is not asked for again, and a useless answer fails that
// skill alone.
func TestWriteAsksIn(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	f.up.SetRecording(true)
	if err := f.db.SetSkillAsksIn(ctx, "old-habit", 1, "de", []string{"Commit-Nachricht bitte", "wie schreibe ich das", "noch eine"}); err != nil {
		t.Fatal(err)
	}
	// Skills in name order: debug-failing-test lacks both, old-habit
	// only Spanish.
	f.up.Enqueue(fakeupstream.TextReply(`{"de": ["mein Test schlägt fehl", "pytest sagt 1 failed", "warum ist CI rot"], "es": ["mi test falla", "pytest dice 1 failed", "por qué falla en CI"]}`))
	f.up.Enqueue(fakeupstream.TextReply(`No puedo.`))
	res, err := f.ev.WriteAsksIn(ctx, []string{"de", "es"}, 0, nil)
	if err != nil || res.Written != 1 || len(res.Failed) != 1 || res.Failed[0].Name != "old-habit" {
		t.Fatalf("WriteAsksIn = %+v, %v", res, err)
	}
	sk, _ := f.db.Skill(ctx, "debug-failing-test")
	if !slices.Equal(sk.AsksIn["de"], []string{"mein Test schlägt fehl", "pytest sagt 1 failed", "warum ist CI rot"}) || len(sk.AsksIn["es"]) != 3 {
		t.Errorf("asks in = %q", sk.AsksIn)
	}
	reqs := f.up.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model calls, want 2", len(reqs))
	}
	first, second := learntest.PromptOf(reqs[0].Body), learntest.PromptOf(reqs[1].Body)
	if !strings.Contains(first.User, "German (de), Spanish (es)") || !strings.Contains(first.User, `{"de": ["...", "..."], "es": ["...", "..."]}`) ||
		!strings.Contains(first.User, "name: debug-failing-test") {
		t.Errorf("the first prompt does not name the languages, the answer's form and the skill:\n%s", first.User)
	}
	if strings.Contains(second.User, "German") || !strings.Contains(second.User, "Spanish (es)") {
		t.Errorf("old-habit has German asks; the second prompt should ask for Spanish only:\n%s", second.User)
	}
	if sk, _ := f.db.Skill(ctx, "old-habit"); len(sk.AsksIn["de"]) != 3 || len(sk.AsksIn["es"]) != 0 {
		t.Errorf("old-habit's asks in = %q", sk.AsksIn)
	}

	// Every language there: nothing to ask.
	res, err = f.ev.WriteAsksIn(ctx, []string{"de"}, 0, nil)
	if err != nil || res.Written != 0 || len(f.up.Requests()) != 2 {
		t.Errorf("nothing lacking: %+v, %v, %d calls", res, err, len(f.up.Requests()))
	}

	// An answer in one of two languages: that one is kept, and the skill
	// counts as failed (so the other is asked for a few times only).
	if _, _, err := f.db.PutSkill(ctx, store.SkillInput{Name: "third", Description: "When a third thing happens.", Body: "Do a third thing."}); err != nil {
		t.Fatal(err)
	}
	f.up.Enqueue(fakeupstream.TextReply(`{"de": ["ein drittes Ding", "noch ein drittes", "das dritte Mal"], "es": ["solo una"]}`))
	res, err = f.ev.WriteAsksIn(ctx, []string{"de", "es"}, 0, func(sk store.Skill) bool { return sk.Name != "third" })
	if err != nil || res.Written != 0 || len(res.Failed) != 1 || !strings.Contains(res.Failed[0].Why, "fewer than 3 asks in es") {
		t.Errorf("a partial answer: %+v, %v", res, err)
	}
	if sk, _ := f.db.Skill(ctx, "third"); len(sk.AsksIn["de"]) != 3 || sk.AsksIn["es"] != nil {
		t.Errorf("third's asks in = %q", sk.AsksIn)
	}
}
