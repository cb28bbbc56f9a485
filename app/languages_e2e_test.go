package app

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/metaclaw/metaclaw/app/learner/skills"
	"github.com/metaclaw/metaclaw/proxy/fakeupstream"
	"github.com/metaclaw/metaclaw/store"
	"github.com/metaclaw/metaclaw/store/testutil"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

// languagesBrain plays agent, judge, evolver and the asks' writer: the
// asks in other languages it writes fit the bicycle skill only.
func languagesBrain(r *http.Request, body []byte) fakeupstream.Reply {
	s := string(body)
	switch {
	case strings.Contains(s, "process reward model"):
		return fakeupstream.TextReply(`{"score": 1, "reason": "fine"}`)
	case strings.Contains(s, "skill library of a person"):
		return fakeupstream.TextReply(`{"operations": []}`)
	case strings.Contains(s, "For each of these languages") && strings.Contains(s, "name: fix-bike-puncture"):
		return fakeupstream.TextReply(`{"it": ["la camera d'aria della bici si sgonfia ogni notte", "ho bucato la gomma della bicicletta, come la riparo?", "la ruota posteriore perde aria"]}`)
	case strings.Contains(s, "For each of these languages"):
		return fakeupstream.TextReply(`{"it": ["una richiesta qualunque", "un'altra domanda generica", "ancora una cosa da fare"]}`)
	case strings.Contains(s, "example requests"):
		return fakeupstream.TextReply(`{"asks": ["my bike tyre keeps going flat", "how do I patch an inner tube", "rear wheel loses air overnight"]}`)
	}
	return fakeupstream.TextReply("Va bene.")
}

// TestAsksInOtherLanguagesEndToEnd runs a person who writes in Italian
// through the real app (proxy, skills injector, learner, evolver's model on
// the fake upstream): their first requests do not find the skill their
// words describe, the app notes the language, the learner has the skills'
// asks written in Italian, and the next Italian request as the upstream
// received it carries the skill.
func TestAsksInOtherLanguagesEndToEnd(t *testing.T) {
	up := fakeupstream.New()
	base, err := up.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer up.Close()
	up.SetDefault(fakeupstream.Reply{Func: languagesBrain})
	a, url := startApp(t, base)
	db := a.DB()
	ctx := context.Background()
	if _, _, err := db.PutSkill(ctx, store.SkillInput{Name: "fix-bike-puncture", Category: "home",
		Description: "Use when a bicycle tyre is flat or keeps losing pressure.",
		Body:        "1. Find the leak by pumping the tube and listening.\n2. Patch it with a vulcanising patch, or fit a new tube."}); err != nil {
		t.Fatal(err)
	}
	client := openai.NewClient(option.WithBaseURL(url+"/v1"), option.WithAPIKey("k"), option.WithMaxRetries(0))
	// ask sends one request and returns the agent's request as the
	// upstream received it.
	ask := func(session, text string) string {
		t.Helper()
		before := len(up.Requests())
		if _, err := client.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{Model: "m",
			Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage(text)}}, option.WithHeader("X-Session-Id", session)); err != nil {
			t.Fatal(err)
		}
		for _, r := range up.Requests()[before:] {
			if strings.Contains(string(r.Body), text) && !strings.Contains(string(r.Body), "process reward model") {
				return string(r.Body)
			}
		}
		t.Fatalf("the upstream did not get %q", text)
		return ""
	}
	const skillLine = "vulcanising patch"
	for _, text := range []string{"la camera d'aria della mia bici si sgonfia di nuovo, cosa posso fare?",
		"e per la ruota anteriore è lo stesso, perde aria ogni notte", "grazie, e quale toppa devo comprare per la gomma?"} {
		if got := ask("s1", text); strings.Contains(got, skillLine) {
			t.Fatalf("found before its Italian asks: the test proves nothing\n%.1500s", got)
		}
	}
	if err := a.WriteSkillAsks(ctx); err != nil {
		t.Fatal(err)
	}
	if seen, _ := db.LanguagesSeen(ctx); seen["it"] != 3 {
		t.Fatalf("languages seen = %v, want it 3", seen)
	}
	sk, _ := db.Skill(ctx, "fix-bike-puncture")
	if len(sk.AsksIn["it"]) != 3 || len(sk.Asks) != 3 {
		t.Fatalf("asks %q, in other languages %q", sk.Asks, sk.AsksIn)
	}
	next := "la gomma della bici si è bucata di nuovo stamattina, come la riparo?"
	testutil.Eventually(t, "the retriever's snapshot with the Italian asks", func() bool {
		sel, err := a.learn.Skills.Select(ctx, []skills.Message{{Role: "user", Text: "ho bucato la gomma, come riparo la camera d'aria?"}})
		return err == nil && slices.ContainsFunc(sel.Skills, func(s store.Skill) bool { return s.Name == "fix-bike-puncture" })
	})
	if got := ask("s2", next); !strings.Contains(got, skillLine) {
		t.Errorf("the Italian request lacks the skill:\n%.2000s", got)
	}
}
