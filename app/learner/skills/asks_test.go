package skills

import (
	"context"
	"encoding/json"
	"io/fs"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/metaclaw/metaclaw/assets"
	"github.com/metaclaw/metaclaw/proxy/learning"
	"github.com/metaclaw/metaclaw/store"
	"github.com/metaclaw/metaclaw/store/config"
)

// tlsLibrary is the starter bank and a TLS renewal skill without asks,
// with a retriever over them.
func tlsLibrary(t *testing.T) (*store.DB, store.Skill, *Retriever) {
	t.Helper()
	db := openDB(t)
	ctx := context.Background()
	if _, err := InstallStarter(ctx, db, assets.Skills()); err != nil {
		t.Fatal(err)
	}
	sk, _, err := db.PutSkill(ctx, store.SkillInput{Name: "tls-certificate-renewal", Description: "Renew an expiring TLS certificate.",
		Category: "devops", Tags: []string{"tls", "certbot"}, Body: "Check the expiry with openssl, run certbot renew, reload the server."})
	if err != nil {
		t.Fatal(err)
	}
	r := NewRetriever(db, OptionsFrom(config.Defaults().Skills), nil)
	t.Cleanup(r.Close)
	return db, sk, r
}

// TestAsksFindASkill: a request in words only a skill's asks use finds the
// skill once it has them — the snapshot takes new asks without a new
// version — and only then.
func TestAsksFindASkill(t *testing.T) {
	t.Parallel()
	db, sk, r := tlsLibrary(t)
	ctx := context.Background()
	msgs := []learning.Message{{Role: "user", Text: "safari tells my shop's visitors the connection isn't private since this morning"}}
	has := func() bool {
		if err := r.Refresh(ctx); err != nil {
			t.Fatal(err)
		}
		sel, err := r.Select(ctx, msgs)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range sel.Considered {
			t.Logf("%s %.2f cov %.2f %v %s", c.Skill.Name, c.Score, c.Coverage, c.Matched, c.Reason)
		}
		return slices.ContainsFunc(sel.Skills, func(s store.Skill) bool { return s.Name == sk.Name })
	}
	if has() {
		t.Fatal("found without asks: the request shares no word with the skill's text, so the test proves nothing")
	}
	if err := db.SetSkillAsks(ctx, sk.Name, sk.Version, []string{"my browser says the connection isn't private",
		"visitors of my shop see a security warning", "el navegador dice que la conexión no es privada"}); err != nil {
		t.Fatal(err)
	}
	if !has() {
		t.Error("not found through its asks")
	}
	sel, _ := r.Select(ctx, msgs)
	for _, c := range sel.Considered {
		if c.Skill.Name == sk.Name && (!slices.Contains(c.ViaAsks, "private") || !strings.Contains(MatchedText(c), "(through its asks: ")) {
			t.Errorf("the explanation does not say the words came through its asks: %q / %q", c.ViaAsks, MatchedText(c))
		}
	}
}

// TestStarterAsksReachOldLibraries: a library installed before the starter
// bank had asks gets the bank's asks once, for the starter skills still as
// the bank has them; an edited one keeps its content and gets none.
func TestStarterAsksReachOldLibraries(t *testing.T) {
	t.Parallel()
	db := openDB(t)
	ctx := context.Background()
	file := func(name, body, asks string) *fstest.MapFile {
		return &fstest.MapFile{Data: []byte("---\nname: " + name + "\ndescription: When " + name + ".\n" + asks + "---\n" + body + "\n")}
	}
	old := fstest.MapFS{"a/SKILL.md": file("a", "Do a.", ""), "b/SKILL.md": file("b", "Do b.", "")}
	if rep, err := InstallStarter(ctx, db, old); err != nil || len(rep.Added) != 2 {
		t.Fatalf("install = %+v, %v", rep, err)
	}
	if _, _, err := db.PutSkill(ctx, store.SkillInput{Name: "b", Description: "When b.", Body: "Do b, edited."}); err != nil {
		t.Fatal(err)
	}
	// Make the database look installed by a version without this pass.
	if err := db.SetMeta(ctx, metaStarterAsks, ""); err != nil {
		t.Fatal(err)
	}
	bank := fstest.MapFS{"a/SKILL.md": file("a", "Do a.", "asks: [first ask, second ask]\n"),
		"b/SKILL.md": file("b", "Do b.", "asks: [b ask]\n")}
	if _, err := InstallStarter(ctx, db, bank); err != nil {
		t.Fatal(err)
	}
	a, _ := db.Skill(ctx, "a")
	b, _ := db.Skill(ctx, "b")
	if !slices.Equal(a.Asks, []string{"first ask", "second ask"}) || a.Version != 1 || b.Asks != nil || b.Body != "Do b, edited." {
		t.Errorf("a = %+v\nb = %+v", a, b)
	}
	if err := db.SetSkillAsks(ctx, "a", 1, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := InstallStarter(ctx, db, bank); err != nil {
		t.Fatal(err)
	}
	if a, _ := db.Skill(ctx, "a"); a.Asks != nil {
		t.Errorf("the pass ran twice: %q", a.Asks)
	}
}

// TestAskEvidence: the first skill to fit, when it has asks, needs one ask
// holding MinAskTerms of the request's terms unless its score reaches
// AskScore; a skill without asks, and a later skill, are not held to it.
func TestAskEvidence(t *testing.T) {
	t.Parallel()
	r := &Retriever{opts: Options{Evidence: DefaultEvidence}}
	ev := DefaultEvidence
	withAsks := store.Skill{Name: "s", Asks: []string{"one ask", "another ask"}}
	mid := (ev.MinScore + ev.AskScore) / 2 // above the floor, below AskScore
	tests := []struct {
		name    string
		c       Candidate
		fits    int
		refused bool
	}{
		{"words spread over its asks", Candidate{Skill: withAsks, Score: mid, BestAsk: ev.MinAskTerms - 1}, 0, true},
		{"words in one ask", Candidate{Skill: withAsks, Score: mid, BestAsk: ev.MinAskTerms}, 0, false},
		{"a score that stands alone", Candidate{Skill: withAsks, Score: ev.AskScore, BestAsk: 0}, 0, false},
		{"no asks to hold it to", Candidate{Skill: store.Skill{Name: "s"}, Score: mid}, 0, false},
		{"a later skill", Candidate{Skill: withAsks, Score: ev.MinScoreNext, BestAsk: 0}, 1, false},
	}
	for _, tt := range tests {
		c := tt.c
		c.HeadTerms, c.Coverage, c.Relative = 2, 0.5, 1
		r.keywordRule(&c, false, tt.fits)
		if refused := c.Reason != ""; refused != tt.refused {
			t.Errorf("%s: reason %q, want refused %v", tt.name, c.Reason, tt.refused)
		}
		if tt.refused && !strings.Contains(c.Reason, "no ask of it holds") {
			t.Errorf("%s: reason %q does not name the asks", tt.name, c.Reason)
		}
		if tt.fits == 0 && len(c.Skill.Asks) > 0 && !strings.Contains(c.Threshold, "an ask holding") {
			t.Errorf("%s: threshold %q does not say the asks rule", tt.name, c.Threshold)
		}
	}
}

// TestAsksInOtherLanguages: a request in German finds a skill through its
// German asks, and says so; without them it does not, and an English
// request is not matched through them. Requests through the proxy that
// end with the person's words count towards the languages seen; a tool
// loop's next step and English ones do not.
func TestAsksInOtherLanguages(t *testing.T) {
	t.Parallel()
	db, sk, r := tlsLibrary(t)
	ctx := context.Background()
	german := []learning.Message{{Role: "user", Text: "Seit heute Morgen sagt der Browser, dass die Verbindung zu meinem Shop nicht sicher ist"}}
	english := []learning.Message{{Role: "user", Text: "seit is a word I keep seeing in the shop's verbindung logs"}}
	selectFor := func(msgs []learning.Message) (Selection, *Candidate) {
		t.Helper()
		if err := r.Refresh(ctx); err != nil {
			t.Fatal(err)
		}
		sel, err := r.Select(ctx, msgs)
		if err != nil {
			t.Fatal(err)
		}
		for i, c := range sel.Considered {
			if c.Skill.Name == sk.Name {
				return sel, &sel.Considered[i]
			}
		}
		return sel, nil
	}
	if sel, c := selectFor(german); c != nil || sel.Language != "de" {
		t.Fatalf("found without asks in German (%+v), or not read as German (%q): the test proves nothing", c, sel.Language)
	}
	if err := db.SetSkillAsksIn(ctx, sk.Name, sk.Version, "de", []string{"der Browser sagt, die Verbindung ist nicht sicher",
		"Zertifikat abgelaufen, was tun?", "seit heute Morgen Sicherheitswarnung im Shop"}); err != nil {
		t.Fatal(err)
	}
	sel, c := selectFor(german)
	if c == nil || !slices.ContainsFunc(sel.Skills, func(s store.Skill) bool { return s.Name == sk.Name }) {
		t.Fatalf("not injected through its German asks: %+v", sel.Considered)
	}
	if !slices.Contains(c.ViaAsks, "verbindung") || c.BestAsk < 2 {
		t.Errorf("the candidate does not say its words came through its asks: via %q, best ask %d", c.ViaAsks, c.BestAsk)
	}
	if sel, c := selectFor(english); sel.Language != "en" || c != nil {
		t.Errorf("an English request matched the German asks: language %q, %+v", sel.Language, c)
	}

	// Through the proxy: three German requests and an English one, a tool
	// loop's step in between.
	for _, msgs := range [][]learning.Message{german, english,
		{{Role: "user", Text: "Wie erneuere ich das Zertifikat mit certbot?"}},
		{{Role: "user", Text: "Wie erneuere ich das Zertifikat mit certbot?"}, {Role: "assistant", Text: "Ich schaue nach."}, {Role: "tool", Text: "certbot 2.1"}},
		{{Role: "user", Text: "Und wie lade ich nginx danach neu, ohne dass der Shop ausfällt?"}},
	} {
		if _, err := r.Inject(ctx, learning.InjectRequest{Messages: msgs}); err != nil {
			t.Fatal(err)
		}
	}
	r.Close() // stores the counts
	if seen, err := db.LanguagesSeen(ctx); err != nil || len(seen) != 1 || seen["de"] != 3 {
		t.Errorf("languages seen = %v, %v; want de 3", seen, err)
	}
}

func TestAsksInLines(t *testing.T) {
	t.Parallel()
	five := func(l string) []string {
		return []string{l + "1", l + "2", l + "3", l + "4", l + "5"}
	}
	if got := AsksInLines(nil); got != nil {
		t.Errorf("none: %q", got)
	}
	if got := AsksInLines(map[string][]string{"es": five("es"), "de": five("de")}); !slices.Equal(got, append(five("de"), five("es")...)) {
		t.Errorf("two languages: %q", got)
	}
	// Five languages share the 16 lines the index tells apart: 3 each.
	in := map[string][]string{}
	for _, l := range []string{"pt", "it", "fr", "es", "de"} {
		in[l] = five(l)
	}
	got := AsksInLines(in)
	if len(got) != 15 || got[0] != "de1" || got[3] != "es1" || got[14] != "pt3" {
		t.Errorf("five languages: %q", got)
	}
}

// TestStarterAsksIn: the starter bank ships five asks in each of the
// other languages for every one of its skills; a library's starter skills
// still as shipped take those of the wanted languages without a model
// call, once, and an edited one takes none.
func TestStarterAsksIn(t *testing.T) {
	t.Parallel()
	db := openDB(t)
	ctx := context.Background()
	bank := assets.Skills()
	rep, err := InstallStarter(ctx, db, bank)
	if err != nil {
		t.Fatal(err)
	}
	edited := rep.Added[0]
	sk, _ := db.Skill(ctx, edited)
	if _, _, err := db.PutSkill(ctx, store.SkillInput{Name: sk.Name, Description: sk.Description, Category: sk.Category, Tags: sk.Tags,
		Body: sk.Body + "\n\nAlso check the logs.", Source: "web"}); err != nil {
		t.Fatal(err)
	}
	n, err := StarterAsksIn(ctx, db, bank, []string{"it", "pt"})
	if err != nil || n != len(rep.Added)-1 {
		t.Fatalf("StarterAsksIn = %d, %v; want %d (every starter skill but the edited one)", n, err, len(rep.Added)-1)
	}
	all, _ := db.Skills(ctx, false)
	for _, s := range all {
		switch {
		case s.Name == edited:
			if len(s.AsksIn) != 0 {
				t.Errorf("the edited %s took the bank's asks: %q", s.Name, s.AsksIn)
			}
		case len(s.AsksIn["it"]) != 5 || len(s.AsksIn["pt"]) != 5 || len(s.AsksIn) != 2:
			t.Errorf("%s: asks in %q, want five in it and pt", s.Name, s.AsksIn)
		}
	}
	if n, err := StarterAsksIn(ctx, db, bank, []string{"it", "pt"}); err != nil || n != 0 {
		t.Errorf("a second pass gave %d, %v", n, err)
	}
	if n, _ := StarterAsksIn(ctx, db, bank, nil); n != 0 {
		t.Errorf("no language: %d", n)
	}
	// The bank's file covers every starter skill in every language.
	data, err := fs.ReadFile(bank, starterAsksInFile)
	if err != nil {
		t.Fatal(err)
	}
	var shipped map[string]map[string][]string
	if err := json.Unmarshal(data, &shipped); err != nil {
		t.Fatal(err)
	}
	for _, name := range rep.Added {
		for _, l := range config.AskLanguages {
			if len(shipped[name][l]) != 5 {
				t.Errorf("the bank ships %d asks in %s for %s", len(shipped[name][l]), l, name)
			}
		}
	}
	if len(shipped) != len(rep.Added) {
		t.Errorf("the bank ships asks in other languages for %d skills, has %d", len(shipped), len(rep.Added))
	}
}
