package evolve_test

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/metaclaw/metaclaw/app/learner/evolve"
	"github.com/metaclaw/metaclaw/app/learner/internal/learntest"
	"github.com/metaclaw/metaclaw/app/learner/llm"
	"github.com/metaclaw/metaclaw/proxy/fakeupstream"
	"github.com/metaclaw/metaclaw/store"
)

type Msg = learntest.Msg

// fixture is a library of two skills and a session of three scored main
// turns (1, -1, 0) and one side turn.
type fixture struct {
	db    *store.DB
	up    *fakeupstream.Server
	ev    *evolve.Evolver
	turns []store.Turn
}

const debugBody = "1. Read the failing test's output.\n2. Reproduce it locally.\n3. Fix the cause, not the symptom."

func newFixture(t *testing.T, scores ...int) *fixture {
	t.Helper()
	ctx := context.Background()
	db := learntest.OpenDB(t)
	up, base := learntest.StartFake(t)
	for _, in := range []store.SkillInput{
		{Name: "debug-failing-test", Description: "When a test fails and the cause is unclear.", Category: "coding",
			Tags: []string{"testing"}, Body: debugBody, Source: "starter"},
		{Name: "old-habit", Description: "When writing commit messages for small changes.", Category: "coding",
			Body: "Always write commit messages in the past tense and in French.", Source: "starter"},
	} {
		if _, _, err := db.PutSkill(ctx, in); err != nil {
			t.Fatal(err)
		}
	}
	turns := learntest.Record(t, db,
		store.Turn{SessionID: "s1", Request: learntest.OpenAIRequest(Msg{Role: "user", Text: "List the files in the repo"}), ResponseText: "a.go b.go"},
		store.Turn{SessionID: "s1", Request: learntest.OpenAIRequest(Msg{Role: "user", Text: "Why does TestParse fail?"}),
			ResponseText: "It is probably flaky; rerun it.", Injected: `["skill:debug-failing-test@1","memory:m1"]`},
		store.Turn{SessionID: "s1", Type: store.TurnSide, Request: learntest.OpenAIRequest(Msg{Role: "user", Text: "title this chat"}), ResponseText: "Tests"},
		store.Turn{SessionID: "s1", Request: learntest.OpenAIRequest(Msg{Role: "user", Text: "It is not flaky, look at the parser"}),
			ResponseText: "The parser drops the last token.", ToolCalls: `[{"id":"c","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"parse.go\"}"}}]`},
	)
	mains := []store.Turn{turns[0], turns[1], turns[3]}
	for i, s := range scores {
		if err := db.PutScore(ctx, store.Score{TurnID: mains[i].ID, Score: s, Votes: []int{s}, Evidence: "next_turn",
			Reasons: []string{"reason for turn " + string(rune('A'+i))}}); err != nil {
			t.Fatal(err)
		}
	}
	c := llm.New(llm.Endpoint{BaseURL: base + "/v1", APIKey: "k", Model: "evolver-model"})
	return &fixture{db: db, up: up, ev: evolve.New(evolve.Options{DB: db, Client: c}), turns: mains}
}

func (f *fixture) reply(t *testing.T, ops ...map[string]any) {
	t.Helper()
	if ops == nil {
		ops = []map[string]any{}
	}
	b, err := json.Marshal(map[string]any{"operations": ops})
	if err != nil {
		t.Fatal(err)
	}
	f.up.Enqueue(fakeupstream.TextReply("```json\n" + string(b) + "\n```"))
}

func (f *fixture) skills(t *testing.T) []store.Skill {
	t.Helper()
	s, err := f.db.Skills(context.Background(), true)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func (f *fixture) lastEvolution(t *testing.T) store.Evolution {
	t.Helper()
	evos, err := f.db.Evolutions(context.Background(), 1)
	if err != nil || len(evos) != 1 {
		t.Fatalf("evolutions: %v %v", evos, err)
	}
	return evos[0]
}

func (f *fixture) prompt(t *testing.T) string {
	t.Helper()
	reqs := f.up.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests to the evolver, want 1", len(reqs))
	}
	return learntest.PromptOf(reqs[0].Body).User
}

var newSkill = map[string]any{"op": "add", "name": "trace-root-cause", "description": "When a bug report blames flakiness without evidence.",
	"category": "coding", "tags": []string{"Debugging", "bugs", "debugging"}, "body": "Do not call a failure flaky until it passes and fails on the same code. Read the code path first.",
	"reason": "The agent dismissed a real bug as flaky."}

func TestEvolveApplies(t *testing.T) {
	t.Parallel()
	f := newFixture(t, 1, -1, 0)
	add := clone(newSkill)
	add["turns"] = []int64{f.turns[1].ID}
	f.reply(t, add,
		map[string]any{"op": "update", "name": "debug-failing-test", "description": "When a test fails and the cause is unclear.",
			"body": debugBody + "\n4. Never blame flakiness before reading the code.", "reason": "It let the agent guess.", "turns": []int64{f.turns[1].ID, f.turns[2].ID}},
		map[string]any{"op": "retire", "name": "old-habit", "reason": "Nobody wants French commits."})
	res, err := f.ev.Evolve(context.Background(), "s1")
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != evolve.StatusApplied || res.Generation != 1 || len(res.Ops) != 3 {
		t.Fatalf("result = %+v", res)
	}
	if diff := cmp.Diff([]int64{f.turns[1].ID, f.turns[2].ID}, res.TurnIDs); diff != "" {
		t.Errorf("shown turns (-want +got):\n%s", diff)
	}
	ctx := context.Background()
	if gen, _ := f.db.SkillGeneration(ctx); gen != 1 {
		t.Errorf("generation = %d, want 1", gen)
	}
	versions, err := f.db.SkillVersions(ctx, "trace-root-cause")
	if err != nil {
		t.Fatal(err)
	}
	want := store.SkillVersion{Version: 1, Description: "When a bug report blames flakiness without evidence.", Category: "coding",
		Tags: []string{"debugging", "bugs"}, Body: add["body"].(string), Source: "evolver", SessionID: "s1",
		TurnIDs: []int64{f.turns[1].ID}, Generation: 1, Note: "The agent dismissed a real bug as flaky."}
	if diff := cmp.Diff([]store.SkillVersion{want}, versions, cmpopts.IgnoreFields(store.SkillVersion{}, "CreatedAt")); diff != "" {
		t.Errorf("new skill versions (-want +got):\n%s", diff)
	}
	dbg, _ := f.db.Skill(ctx, "debug-failing-test")
	if dbg.Version != 2 || dbg.Source != "evolver" || dbg.Category != "coding" || !strings.Contains(dbg.Body, "Never blame") {
		t.Errorf("updated skill = %+v", dbg)
	}
	if diff := cmp.Diff([]string{"testing"}, dbg.Tags); diff != "" {
		t.Errorf("update without tags must keep them: %s", diff)
	}
	old, _ := f.db.Skill(ctx, "old-habit")
	if !old.Retired || old.Enabled {
		t.Errorf("retired skill = %+v", old)
	}
	if evo := f.lastEvolution(t); evo.Status != "applied" || evo.Generation != 1 || evo.SessionID != "s1" || !strings.Contains(evo.Ops, "trace-root-cause") {
		t.Errorf("evolution log = %+v", evo)
	}
	p := f.prompt(t)
	for _, s := range []string{"Why does TestParse fail?", "It is not flaky", `score="-1"`, "reason for turn B", "Reproduce it locally",
		"read_file", "<library_names>"} {
		if !strings.Contains(p, s) {
			t.Errorf("prompt lacks %q", s)
		}
	}
	for _, s := range []string{"List the files", "title this chat"} {
		if strings.Contains(p, s) {
			t.Errorf("prompt has %q (a well-scored or side turn)", s)
		}
	}
}

func clone(m map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		out[k] = v
	}
	return out
}

func TestNearDuplicateAddBecomesUpdate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		add  map[string]any
	}{
		{"same name after normalisation", map[string]any{"op": "add", "name": "debug-failing-tests",
			"description": "When tests fail for unclear reasons.", "body": "Read the output, reproduce, then fix the cause.", "tags": []string{"debugging"}}},
		{"similar content", map[string]any{"op": "add", "name": "fix-broken-tests",
			"description": "When a test fails and the cause is unclear.", "tags": []string{"debugging"},
			"body": "1. Read the failing test's output.\n2. Reproduce it locally.\n3. Fix the cause, not the symptom.\n4. Rerun."}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, 1, -1, 0)
			f.reply(t, tt.add)
			res, err := f.ev.Evolve(context.Background(), "s1")
			if err != nil {
				t.Fatal(err)
			}
			if res.Status != evolve.StatusApplied || len(res.Ops) != 1 || res.Ops[0].Op != "update" ||
				res.Ops[0].Name != "debug-failing-test" || res.Ops[0].MergedFrom != tt.add["name"] {
				t.Fatalf("result = %+v", res)
			}
			if len(f.skills(t)) != 2 {
				t.Errorf("a skill was added: %v", f.skills(t))
			}
			s, _ := f.db.Skill(context.Background(), "debug-failing-test")
			if s.Version != 2 || s.Body != tt.add["body"] {
				t.Errorf("merged skill = %+v", s)
			}
			if diff := cmp.Diff([]string{"debugging", "testing"}, s.Tags); diff != "" {
				t.Errorf("tags (-want +got):\n%s", diff)
			}
			v, _ := f.db.SkillVersions(context.Background(), "debug-failing-test")
			if !strings.Contains(v[1].Note, "near-duplicate") {
				t.Errorf("note = %q", v[1].Note)
			}
		})
	}
}

func TestEvolveRejects(t *testing.T) {
	t.Parallel()
	op := func(kv ...any) map[string]any {
		m := clone(newSkill)
		for i := 0; i+1 < len(kv); i += 2 {
			if kv[i+1] == nil {
				delete(m, kv[i].(string))
			} else {
				m[kv[i].(string)] = kv[i+1]
			}
		}
		return m
	}
	distinct := func(i int) map[string]any {
		words := []string{"alpha", "bravo", "charlie", "delta", "echo", "foxtrot"}
		w := words[i]
		return op("name", "lesson-"+w, "description", "When the "+w+" case happens.",
			"body", "Handle "+w+" by doing the "+w+" thing carefully, with "+w+" checks.")
	}
	tests := []struct {
		name   string
		answer string
		ops    []map[string]any
		why    string
	}{
		{name: "malformed json", answer: `{"operations": [{"op": "add", "name": `, why: "unparsable"},
		{name: "prose only", answer: "I would add a skill about testing.", why: "unparsable"},
		{name: "no operations member", answer: `{"ops": []}`, why: "no \"operations\""},
		{name: "operations not an array", answer: `{"operations": {"op": "add"}}`, why: "malformed"},
		{name: "turns of wrong type", ops: []map[string]any{op("turns", "all")}, why: "malformed"},
		{name: "bad name", ops: []map[string]any{op("name", "Trace Root Cause")}, why: "kebab-case"},
		{name: "name too long", ops: []map[string]any{op("name", strings.Repeat("a", 65))}, why: "kebab-case"},
		{name: "too many operations", ops: []map[string]any{distinct(0), distinct(1), distinct(2), distinct(3), distinct(4), distinct(5)}, why: "at most 5"},
		{name: "unknown op", ops: []map[string]any{op("op", "delete")}, why: "unknown op"},
		{name: "update of unknown skill", ops: []map[string]any{op("op", "update", "name", "no-such-skill")}, why: "unknown skill"},
		{name: "retire of unknown skill", ops: []map[string]any{{"op": "retire", "name": "no-such-skill"}}, why: "unknown skill"},
		{name: "description too short", ops: []map[string]any{op("description", "When.")}, why: "description"},
		{name: "body too short", ops: []map[string]any{op("body", "Be careful.")}, why: "body"},
		{name: "body too long", ops: []map[string]any{op("body", strings.Repeat("word ", 900))}, why: "body"},
		{name: "too many tags", ops: []map[string]any{op("tags", []string{"a", "b", "c", "d", "e", "f", "g", "h", "i"})}, why: "tags"},
		{name: "turn of another session", ops: []map[string]any{op("turns", []int64{999})}, why: "not of this session"},
		{name: "two ops on one skill", ops: []map[string]any{{"op": "retire", "name": "old-habit"}, {"op": "retire", "name": "old-habit"}}, why: "more than one"},
		{name: "duplicate adds", ops: []map[string]any{op(), op("name", "trace-root-causes")}, why: "duplicate each other"},
		{name: "near-duplicate adds", ops: []map[string]any{op(), op("name", "find-real-cause")}, why: "duplicate each other"},
		{name: "one bad among good", ops: []map[string]any{op(), {"op": "retire", "name": "old-habit"}, op("name", "x", "description", "")}, why: "description"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, 1, -1, 0)
			before := f.skills(t)
			if tt.answer != "" {
				f.up.Enqueue(fakeupstream.TextReply(tt.answer))
			} else {
				f.reply(t, tt.ops...)
			}
			res, err := f.ev.Evolve(context.Background(), "s1")
			if err != nil {
				t.Fatal(err)
			}
			if res.Status != evolve.StatusRejected || !strings.Contains(res.Reason, tt.why) || res.Generation != 0 {
				t.Fatalf("result = %+v, want rejected because %q", res, tt.why)
			}
			if gen, _ := f.db.SkillGeneration(context.Background()); gen != 0 {
				t.Errorf("generation = %d, want 0", gen)
			}
			if diff := cmp.Diff(before, f.skills(t)); diff != "" {
				t.Errorf("skills changed (-before +after):\n%s", diff)
			}
			if evo := f.lastEvolution(t); evo.Status != "rejected" || evo.Error != res.Reason || evo.Generation != 0 {
				t.Errorf("evolution log = %+v", evo)
			}
		})
	}
}

func TestEvolveEmpty(t *testing.T) {
	t.Parallel()
	f := newFixture(t, 1, -1, 0)
	f.reply(t)
	res, err := f.ev.Evolve(context.Background(), "s1")
	if err != nil || res.Status != evolve.StatusEmpty {
		t.Fatalf("Evolve = %+v, %v", res, err)
	}
	if evo := f.lastEvolution(t); evo.Status != "empty" || evo.Ops != "[]" {
		t.Errorf("evolution log = %+v", evo)
	}
}

func TestEvolveWholeSessionWithoutScores(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.reply(t)
	res, err := f.ev.Evolve(context.Background(), "s1")
	if err != nil || res.Status != evolve.StatusEmpty || len(res.TurnIDs) != 3 {
		t.Fatalf("Evolve = %+v, %v", res, err)
	}
	p := f.prompt(t)
	for _, s := range []string{"no judge scores", "List the files", "Why does TestParse fail?", "It is not flaky"} {
		if !strings.Contains(p, s) {
			t.Errorf("prompt lacks %q", s)
		}
	}
}

func TestEvolveSkipsWhenNothingWentWrong(t *testing.T) {
	t.Parallel()
	f := newFixture(t, 1, 1, 1)
	res, err := f.ev.Evolve(context.Background(), "s1")
	if err != nil || res.Status != evolve.StatusSkipped {
		t.Fatalf("Evolve = %+v, %v", res, err)
	}
	if n := len(f.up.Requests()); n != 0 {
		t.Errorf("%d requests to the evolver", n)
	}
	if evos, _ := f.db.Evolutions(context.Background(), 5); len(evos) != 0 {
		t.Errorf("evolutions logged: %+v", evos)
	}
}

func TestEvolveModelFailure(t *testing.T) {
	t.Parallel()
	f := newFixture(t, -1)
	f.up.SetDefault(fakeupstream.ErrorReply(http.StatusUnauthorized, "bad key"))
	if _, err := f.ev.Evolve(context.Background(), "s1"); err == nil {
		t.Fatal("want an error")
	}
	if evos, _ := f.db.Evolutions(context.Background(), 5); len(evos) != 0 {
		t.Errorf("evolutions logged: %+v", evos)
	}
}

func TestEvolveRedacts(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	learntest.Record(t, f.db, store.Turn{SessionID: "s1",
		Request:      learntest.OpenAIRequest(Msg{Role: "user", Text: "connect with postgres://app:Sup3rS3cret@db/x and OPENAI_API_KEY=sk-proj-abcdefghijklmnop0123"}),
		ResponseText: "Using token ghp_abcdefghijklmnopqrstuvwxyz0123456789"})
	f.reply(t)
	if _, err := f.ev.Evolve(context.Background(), "s1"); err != nil {
		t.Fatal(err)
	}
	body := learntest.Bodies(f.up)[0]
	for _, s := range []string{"Sup3rS3cret", "sk-proj-abcdefghijklmnop0123", "ghp_abcdefghijklmnopqrstuvwxyz0123456789"} {
		if strings.Contains(body, s) {
			t.Errorf("secret %q reached the evolver", s)
		}
	}
}

// TestEvolveAgainShowsEveryInstruction evolves a session twice with a turn
// recorded between: the second prompt holds the instructions of the turns
// read the first time (kept, not read again) and of the new one.
func TestEvolveAgainShowsEveryInstruction(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.reply(t)
	if _, err := f.ev.Evolve(context.Background(), "s1"); err != nil {
		t.Fatal(err)
	}
	learntest.Record(t, f.db, store.Turn{SessionID: "s1", Request: learntest.OpenAIRequest(Msg{Role: "user", Text: "Fix the parser then"}),
		ResponseText: "Fixed: the loop now keeps the last token."})
	f.reply(t)
	res, err := f.ev.Evolve(context.Background(), "s1")
	if err != nil || len(res.TurnIDs) != 4 {
		t.Fatalf("second Evolve = %+v, %v", res, err)
	}
	reqs := f.up.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests to the evolver, want 2", len(reqs))
	}
	p := learntest.PromptOf(reqs[1].Body).User
	for _, s := range []string{"List the files", "Why does TestParse fail?", "It is not flaky", "Fix the parser then"} {
		if !strings.Contains(p, s) {
			t.Errorf("second prompt lacks %q", s)
		}
	}
}

// The evolver follows the one category rule (skills.FileCategory):
// data_analysis is data-analysis, common_mistakes is kept, and an unknown
// category is filed under general, kept as a tag, with a note on the
// version, instead of refusing the evolution.
func TestEvolveCategoryRule(t *testing.T) {
	t.Parallel()
	f := newFixture(t, 1, -1, 0)
	add := func(name, category, desc, body string) map[string]any {
		m := clone(newSkill)
		m["name"], m["category"], m["description"], m["body"] = name, category, desc, body
		return m
	}
	f.reply(t, add("trace-root-cause", "cooking", newSkill["description"].(string), newSkill["body"].(string)),
		add("check-row-counts", "data_analysis", "When a dataset is loaded from a CSV export for analysis.",
			"Count the rows and the missing values of every column before computing any statistic."),
		add("no-guessing-paths", "Common_Mistakes", "When an answer needs a file path that nobody has given.",
			"List the directory or ask; never write a path that looks plausible but was not seen."))
	res, err := f.ev.Evolve(context.Background(), "s1")
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != evolve.StatusApplied {
		t.Fatalf("result = %+v, want applied", res)
	}
	ctx := context.Background()
	for name, want := range map[string]string{"trace-root-cause": "general", "check-row-counts": "data-analysis", "no-guessing-paths": "common_mistakes"} {
		s, err := f.db.Skill(ctx, name)
		if err != nil || s.Category != want {
			t.Errorf("%s: category %q (%v), want %q", name, s.Category, err, want)
		}
	}
	s, _ := f.db.Skill(ctx, "trace-root-cause")
	versions, err := f.db.SkillVersions(ctx, "trace-root-cause")
	if err != nil || len(versions) != 1 {
		t.Fatalf("versions %v, %v", versions, err)
	}
	if !slices.Contains(s.Tags, "cooking") || !strings.Contains(versions[0].Note, `category "cooking" is not one of`) ||
		!strings.Contains(versions[0].Note, "filed under general") {
		t.Errorf("unknown category: tags %v, version note %q", s.Tags, versions[0].Note)
	}
}
