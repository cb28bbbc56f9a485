package store

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestSkillAsksIn(t *testing.T) {
	t.Parallel()
	db := openTest(t)
	ctx := context.Background()
	in := SkillInput{Name: "tls-renewal", Description: "Renew a TLS certificate.", Body: "Run certbot renew."}
	if _, _, err := db.PutSkill(ctx, in); err != nil {
		t.Fatal(err)
	}
	stamp, _ := db.SkillsStamp(ctx)
	de := []string{"der Browser sagt, meine Seite ist nicht sicher", "Zertifikat abgelaufen", "https geht nicht mehr"}
	es := []string{"el navegador dice que mi web no es segura", "certificado caducado", "https ya no funciona"}
	time.Sleep(2 * time.Millisecond) // the stamp counts milliseconds
	must(t, db.SetSkillAsksIn(ctx, "tls-renewal", 1, "de", de))
	must(t, db.SetSkillAsksIn(ctx, "tls-renewal", 1, "es", es))
	s, _ := db.Skill(ctx, "tls-renewal")
	if !slices.Equal(s.AsksIn["de"], de) || !slices.Equal(s.AsksIn["es"], es) || len(s.AsksIn) != 2 || s.Asks != nil {
		t.Errorf("after SetSkillAsksIn: %+v", s)
	}
	if st, _ := db.SkillsStamp(ctx); st == stamp {
		t.Error("SetSkillAsksIn did not move the stamp: readers would not reload")
	}
	if all, _ := db.Skills(ctx, false); len(all) != 1 || !slices.Equal(all[0].AsksIn["es"], es) {
		t.Errorf("Skills: %+v", all)
	}
	hits, err := db.SearchSkills(ctx, "certificate", 5)
	if err != nil || len(hits) != 1 || !slices.Equal(hits[0].AsksIn["de"], de) {
		t.Errorf("SearchSkills = %+v, %v", hits, err)
	}
	// No asks: none in that language.
	must(t, db.SetSkillAsksIn(ctx, "tls-renewal", 1, "es", nil))
	if s, _ := db.Skill(ctx, "tls-renewal"); len(s.AsksIn) != 1 || s.AsksIn["es"] != nil {
		t.Errorf("after removing es: %q", s.AsksIn)
	}
	if err := db.SetSkillAsksIn(ctx, "tls-renewal", 2, "de", de); !errors.Is(err, ErrNotFound) {
		t.Errorf("asks in for a version that is not current: %v", err)
	}
	if err := db.SetSkillAsksIn(ctx, "tls-renewal", 1, "German", de); err == nil || !strings.Contains(err.Error(), "not a language code") {
		t.Errorf("a language that is not a code: %v", err)
	}
	// A new version starts without them: they were written for the old text.
	in.Body = "Run certbot renew, then reload nginx."
	if s, changed, err := db.PutSkill(ctx, in); err != nil || !changed || s.Version != 2 || s.AsksIn != nil {
		t.Errorf("new version: %+v, %v, %v", s, changed, err)
	}
}

func TestLanguagesSeen(t *testing.T) {
	t.Parallel()
	db := openTest(t)
	ctx := context.Background()
	if seen, err := db.LanguagesSeen(ctx); err != nil || len(seen) != 0 {
		t.Fatalf("LanguagesSeen before any = %v, %v", seen, err)
	}
	must(t, db.AddLanguagesSeen(ctx, map[string]int{"de": 2, "es": 1}))
	must(t, db.AddLanguagesSeen(ctx, map[string]int{"de": 1, "xx yy": 5, "fr": 0}))
	seen, err := db.LanguagesSeen(ctx)
	if err != nil || len(seen) != 2 || seen["de"] != 3 || seen["es"] != 1 {
		t.Errorf("LanguagesSeen = %v, %v", seen, err)
	}
}

func TestLanguage(t *testing.T) {
	t.Parallel()
	tests := []struct{ text, want string }{
		{"How do I write a commit message for these changes?", "en"},
		{"pod keeps restarting, kubectl says CrashLoopBackOff. what do I check first", "en"},
		{"add a --verbose flag to the export command that prints each file path as it's written", "en"},
		{"tell me a joke about programmers", "en"},
		{"the new kita wants us to sign the Betreuungsvertrag by Friday, anything weird in it?", "en"},
		{"Unsere AWS-Rechnung ist diesen Monat von 300 auf 2.900 Dollar gestiegen und niemand weiß warum.", "de"},
		{"¿Cuántos minutos hay que hervir un huevo para que quede pasado por agua?", "es"},
		{"meu passaporte vence em março e viajo em abril. Como faço para renovar a tempo?", "pt"},
		{"Il mio volo da Bari a Milano è stato cancellato due ore prima della partenza", "it"},
		{"Peux-tu m'aider à faire un budget mensuel ? Je gagne 2 400 € net", "fr"},
		// Too little to tell.
		{"ok", "en"},
		{"👍", ""},
		{"CrashLoopBackOff", ""},
		{"danke dir, hat super geklappt!", ""},
	}
	for _, tt := range tests {
		if got := Language(tt.text); got != tt.want {
			t.Errorf("Language(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
	// Only the first 2 KB are read.
	if got := Language(strings.Repeat("x", 3000) + " der die das und ist ich nicht"); got != "" {
		t.Errorf("Language past 2 KB = %q", got)
	}
}
