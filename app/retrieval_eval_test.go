package app

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/metaclaw/metaclaw/app/learner"
	"github.com/metaclaw/metaclaw/app/learner/evalsets"
	"github.com/metaclaw/metaclaw/app/learner/memory"
	"github.com/metaclaw/metaclaw/app/learner/retrieval"
	"github.com/metaclaw/metaclaw/app/learner/skills"
	"github.com/metaclaw/metaclaw/proxy"
	"github.com/metaclaw/metaclaw/proxy/learning"
	"github.com/metaclaw/metaclaw/store"
	"github.com/metaclaw/metaclaw/store/config"
)

// The retrieval evaluation feeds every labelled turn of a set through the
// path a real turn takes — the request body reduced by the proxy's own
// parsing (proxy.Conversation), then the app's skill injector — and every
// memory question through the memory injector, and reports the figures
// docs/retrieval.md quotes. Run it on any set with
//
//	METACLAW_EVAL_SET=app/learner/evalsets/dev go test ./app -run TestRetrievalEval -v
//
// TestRetrievalDev and TestRetrievalHeldout hold the figures as floors.

func loadSet(t *testing.T, dir string) *evalsets.Set {
	t.Helper()
	set, err := evalsets.Load(dir)
	if err != nil {
		t.Fatalf("load %s: %v", dir, err)
	}
	return set
}

func evalDB(t *testing.T) *store.DB {
	t.Helper()
	db, err := store.Open(filepath.Join(t.TempDir(), "metaclaw.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// evalSkills imports the set's library into a fresh database and runs its
// turns through the skill injector the app builds from the default
// configuration.
func evalSkills(t *testing.T, set *evalsets.Set) skillReport {
	t.Helper()
	return evalSkillsWith(t, set, skills.OptionsFrom(config.Defaults().Skills), nil)
}

// evalSkillsWith is evalSkills with the retriever's options and an
// embedder made for its database (newEmb nil: keyword search); it waits
// for the library (and its vectors) before the first turn.
func evalSkillsWith(t *testing.T, set *evalsets.Set, opts skills.Options, newEmb func(*store.DB) skills.Embedder) skillReport {
	t.Helper()
	ctx := context.Background()
	db := evalDB(t)
	rep, err := skills.ImportDir(ctx, db, set.SkillsDir)
	if err != nil {
		t.Fatalf("import %s: %v", set.SkillsDir, err)
	}
	out := skillReport{Skills: len(rep.Added), Refused: len(rep.Errors)}
	for _, fe := range rep.Errors {
		t.Logf("skill refused: %v", fe)
	}
	out.Asked = setAsks(t, db, set)
	var emb skills.Embedder
	if newEmb != nil {
		emb = newEmb(db)
	}
	inj := skills.NewRetriever(db, opts, emb)
	defer inj.Close()
	if err := inj.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	var all, clean, noisy, other skillTally
	for _, turn := range set.Turns {
		conv, err := proxy.Conversation(turn.API, turn.Request)
		if err != nil {
			t.Fatalf("turn %s: %v", turn.ID, err)
		}
		var res learning.Injection
		// As the proxy does, an agent's side request (a title, a summary)
		// gets nothing.
		if learning.SideRequest(conv) == "" {
			if res, err = inj.Inject(ctx, learning.InjectRequest{API: turn.API, Messages: conv}); err != nil {
				t.Fatalf("turn %s: %v", turn.ID, err)
			}
		}
		got := injectedSkills(res.IDs)
		tokens := skills.EstimateTokens(res.Text)
		all.add(got, turn.Relevant, turn.Acceptable, tokens)
		if turn.Noisy {
			noisy.add(got, turn.Relevant, turn.Acceptable, tokens)
		} else {
			clean.add(got, turn.Relevant, turn.Acceptable, tokens)
		}
		if l := retrieval.Read(conv).Language(); l != "en" && l != "" {
			other.add(got, turn.Relevant, turn.Acceptable, tokens)
		}
		if os.Getenv("METACLAW_EVAL_TURNS") != "" {
			logTurn(t, inj, turn, conv, got)
		}
	}
	out.All, out.Clean, out.Noisy, out.Other = all.figures(), clean.figures(), noisy.figures(), other.figures()
	return out
}

// setAsks gives the set's skills their asks (asks.jsonl), as the learner
// would have them written after the import, unless METACLAW_EVAL_ASKS=0;
// it returns how many skills got asks.
func setAsks(t *testing.T, db *store.DB, set *evalsets.Set) int {
	t.Helper()
	if os.Getenv("METACLAW_EVAL_ASKS") == "0" {
		return 0
	}
	ctx := context.Background()
	n := 0
	for _, a := range set.Asks {
		sk, err := db.Skill(ctx, a.Skill)
		if err != nil {
			t.Fatalf("asks.jsonl: %v", err)
		}
		if err := db.SetSkillAsks(ctx, sk.Name, sk.Version, skills.NormAsks(a.Asks)); err != nil {
			t.Fatal(err)
		}
		n++
	}
	if os.Getenv("METACLAW_EVAL_ASKS_IN") == "0" {
		return n
	}
	langs := evalAskLanguages()
	for _, a := range set.AsksIn {
		sk, err := db.Skill(ctx, a.Skill)
		if err != nil {
			t.Fatalf("asks_in.jsonl: %v", err)
		}
		for lang, asks := range a.Asks {
			if langs != nil && !langs[lang] {
				continue
			}
			if err := db.SetSkillAsksIn(ctx, sk.Name, sk.Version, lang, skills.NormAsks(asks)); err != nil {
				t.Fatal(err)
			}
		}
	}
	return n
}

// evalAskLanguages are the languages whose asks_in.jsonl asks are given
// (METACLAW_EVAL_ASKS_LANGS, "de es"; nil: all of them).
func evalAskLanguages() map[string]bool {
	v := os.Getenv("METACLAW_EVAL_ASKS_LANGS")
	if v == "" {
		return nil
	}
	m := map[string]bool{}
	for _, l := range strings.Fields(v) {
		m[l] = true
	}
	return m
}

// injectedSkills reads skill names from injected ids ("skill:name@3").
func injectedSkills(ids []string) []string {
	var out []string
	for _, id := range ids {
		if rest, ok := strings.CutPrefix(id, "skill:"); ok {
			name, _, _ := strings.Cut(rest, "@")
			out = append(out, name)
		}
	}
	return out
}

// evalClock is the memory service's clock, set to each question's time.
type evalClock struct{ t time.Time }

func (c *evalClock) now() time.Time { return c.t }

// evalMemory imports every exchange of each person's sessions as one
// memory dated by its session (through `memory import`'s path), then asks
// each question through the memory injector at the question's time, with
// room for 10 memories.
func evalMemory(t *testing.T, set *evalsets.Set) *memoryReport {
	t.Helper()
	return evalMemoryWith(t, set, nil)
}

// evalMemoryWith is evalMemory with more settings (the retrieval mode and
// the embeddings endpoint, say); with embeddings every person's memories
// have their vectors before the first question.
func evalMemoryWith(t *testing.T, set *evalsets.Set, settings map[string]string) *memoryReport {
	t.Helper()
	ctx := context.Background()
	db := evalDB(t)
	cfg := config.Defaults()
	all := map[string]string{"memory.max_injected_units": "10", "memory.max_injected_tokens": "0"}
	for k, v := range settings {
		all[k] = v
	}
	for k, v := range all {
		if err := cfg.Set(k, v); err != nil {
			t.Fatal(err)
		}
	}
	clock := &evalClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	svc := learner.BuildMemory(learner.Deps{DB: db, Config: cfg, Now: clock.now})
	defer svc.Retriever().Close()
	units := importConversations(t, svc, set.Conversations)
	ms, err := db.Memories(ctx, store.MemoryFilter{})
	if err != nil {
		t.Fatal(err)
	}
	rep := &memoryReport{Units: len(ms)}
	ids := map[string]string{} // memory id → evidence unit
	for _, m := range ms {
		ids[fmt.Sprint(m.ID)] = units[m.Scope+"\x00"+m.Content]
	}
	for _, c := range set.Conversations {
		if err := svc.Retriever().Warm(ctx, personScope(c.Person)); err != nil {
			t.Fatal(err)
		}
	}
	inj := svc
	for _, q := range set.Questions {
		clock.t = q.AskedAt
		res, err := inj.Inject(ctx, learning.InjectRequest{Scope: personScope(q.Person), Messages: []learning.Message{{Role: "user", Text: q.Question}}})
		if err != nil {
			t.Fatalf("question %s: %v", q.ID, err)
		}
		var ranked []string
		for _, id := range res.IDs {
			ranked = append(ranked, ids[strings.TrimPrefix(id, "memory:")])
		}
		var want []string
		for _, ev := range q.Evidence {
			want = append(want, unitOf(ev.SessionID, ev.Turn))
		}
		rep.tally("all").add(ranked, want)
		rep.tally(q.Kind).add(ranked, want)
		if testing.Verbose() && os.Getenv("METACLAW_EVAL_TURNS") != "" {
			t.Logf("%s %q got %v want %v", q.ID, q.Question, ranked, want)
		}
	}
	return rep
}

func personScope(p string) string { return "person:" + p }

// unitOf names the exchange a turn belongs to: a user turn and the
// assistant's answer after it make one memory.
func unitOf(session string, turn int) string { return fmt.Sprintf("%s#%d", session, turn/2) }

// importConversations writes the sessions as a memory export (one fact
// per exchange, valid from the session's date) and imports it; it returns
// the evidence unit of each imported memory by scope and content.
func importConversations(t *testing.T, svc *memory.Service, convs []evalsets.Conversation) map[string]string {
	t.Helper()
	units := map[string]string{}
	f := memory.ExportFile{Version: memory.ExportVersion, Exported: time.Now()}
	for _, c := range convs {
		for i := 0; i < len(c.Turns); i += 2 {
			text := c.Turns[i].Text
			if i+1 < len(c.Turns) {
				text += "\n" + c.Turns[i+1].Text
			}
			scope := personScope(c.Person)
			units[scope+"\x00"+text] = unitOf(c.SessionID, i)
			f.Memories = append(f.Memories, memory.ExportedMemory{Scope: scope, Type: store.MemoryFact, Content: text,
				Importance: 0.5, Confidence: 0.9, SessionID: c.SessionID, CreatedAt: c.Date, UpdatedAt: c.Date, ValidFrom: c.Date})
		}
	}
	data, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := svc.Import(context.Background(), bytes.NewReader(data), "")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("memory import: %+v", rep)
	return units
}

// TestRetrievalEval prints the figures of the set named by
// METACLAW_EVAL_SET.
func TestRetrievalEval(t *testing.T) {
	dir := os.Getenv("METACLAW_EVAL_SET")
	if dir == "" {
		t.Skip("set METACLAW_EVAL_SET to a set's folder (e.g. app/learner/evalsets/dev) to print its figures")
	}
	if !filepath.IsAbs(dir) {
		dir = filepath.Join("..", dir)
	}
	set := loadSet(t, dir)
	t.Logf("%d turns, %d sessions, %d questions\n%s\n%s", len(set.Turns), len(set.Conversations), len(set.Questions),
		evalSkills(t, set), evalMemory(t, set))
}

// logTurn shows why a turn got what it got (METACLAW_EVAL_TURNS=1; =miss
// shows only the turns with a miss or a wrong skill).
func logTurn(t *testing.T, inj *skills.Retriever, turn evalsets.SkillTurn, conv []learning.Message, got []string) {
	rel, acc := set(turn.Relevant), set(turn.Acceptable)
	bad := false
	for _, g := range got {
		bad = bad || !rel[g] && !acc[g]
	}
	for _, w := range turn.Relevant {
		bad = bad || !set(got)[w]
	}
	if os.Getenv("METACLAW_EVAL_TURNS") == "miss" && !bad {
		return
	}
	sel, _ := inj.Select(context.Background(), conv)
	var b strings.Builder
	fmt.Fprintf(&b, "%s [%s] got %v want %v acc %v\n  query %q\n", turn.ID, turn.Agent, got, turn.Relevant, turn.Acceptable, sel.Query)
	for i, c := range sel.Considered {
		if i == 6 {
			break
		}
		fmt.Fprintf(&b, "  %-34s score %5.2f cov %.2f rel %.2f %v %s\n", c.Skill.Name, c.Score, c.Coverage, c.Relative, c.Matched, c.Reason)
	}
	t.Log(b.String())
}
