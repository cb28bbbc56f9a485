package app

import (
	"context"
	"encoding/json"
	"net/http"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/metaclaw/metaclaw/app/learner/skills"
	"github.com/metaclaw/metaclaw/proxy/fakeupstream"
	"github.com/metaclaw/metaclaw/store"
	"github.com/metaclaw/metaclaw/store/config"
	"github.com/metaclaw/metaclaw/store/testutil"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

const newSkillBody = "1. Read the project's python_requires or .python-version first.\n2. Pin the interpreter with pyenv local X.Y and record it in the README."

// brain makes the fake upstream play agent, judge and evolver.
type brain struct {
	evolverReply atomic.Value // string
}

func (b *brain) reply(r *http.Request, body []byte) fakeupstream.Reply {
	s := string(body)
	switch {
	case strings.Contains(s, "process reward model"):
		return fakeupstream.TextReply(`{"score": -1, "reason": "the user had to correct the python version"}`)
	case strings.Contains(s, "skill library of a person"):
		return fakeupstream.TextReply(b.evolverReply.Load().(string))
	}
	return fakeupstream.TextReply("Use Python 3.8.")
}

func evolverOps() string {
	ops := map[string]any{"operations": []map[string]any{{
		"op": "add", "name": "pin-python-version", "category": "coding", "tags": []string{"python", "pyenv"},
		"description": "Use when choosing or pinning the Python interpreter version for a project or virtualenv.",
		"body":        newSkillBody, "reason": "the agent suggested an outdated Python",
	}}}
	b, _ := json.Marshal(ops)
	return string(b)
}

// TestSkillEvolutionEndToEnd runs sessions through the real app (proxy,
// recorder, judge, evolver, skills injector) against a fake upstream that
// also plays judge and evolver: the session ends, its turns are scored,
// the evolver's JSON becomes a new skill, and the next session's request
// as the upstream received it carries that skill. Malformed evolver output
// changes nothing.
func TestSkillEvolutionEndToEnd(t *testing.T) {
	up := fakeupstream.New()
	base, err := up.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer up.Close()
	b := &brain{}
	b.evolverReply.Store(evolverOps())
	up.SetDefault(fakeupstream.Reply{Func: b.reply})

	a, url := startApp(t, base)
	db := a.DB()
	client := openai.NewClient(option.WithBaseURL(url+"/v1"), option.WithAPIKey("k"), option.WithMaxRetries(0))
	ask := func(session, text string, done bool) {
		t.Helper()
		opts := []option.RequestOption{option.WithHeader("X-Session-Id", session)}
		if done {
			opts = append(opts, option.WithHeader("X-Session-Done", "true"))
		}
		_, err := client.Chat.Completions.New(context.Background(), openai.ChatCompletionNewParams{Model: "m",
			Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage(text)}}, opts...)
		if err != nil {
			t.Fatal(err)
		}
	}
	ask("s1", "which python version should my new project use?", false)
	ask("s1", "no, 3.8 is end of life. pick a supported python version", true)

	testutil.Eventually(t, "the evolver's skill", func() bool { _, err := db.Skill(context.Background(), "pin-python-version"); return err == nil })
	turns, _ := db.SessionTurns(context.Background(), "s1")
	for _, tr := range turns {
		sc, err := db.TurnScore(context.Background(), tr.ID)
		// skills_only judges at session end, one vote per answer.
		if err != nil || sc.Score != -1 || len(sc.Votes) != 1 {
			t.Errorf("turn %d score = %+v, %v", tr.TurnNum, sc, err)
		}
	}
	s, _ := db.Skill(context.Background(), "pin-python-version")
	vs, _ := db.SkillVersions(context.Background(), s.Name)
	if s.Source != "evolver" || vs[0].SessionID != "s1" || vs[0].Generation != 1 {
		t.Errorf("new skill provenance: %+v %+v", s, vs[0])
	}

	// The next session's request carries the new skill, once the
	// retriever's snapshot has it (a turn never waits for a refresh; the
	// refresh starts as the evolution commits).
	testutil.Eventually(t, "the retriever's snapshot", func() bool {
		sel, err := a.learn.Skills.Select(context.Background(), []skills.Message{{Role: "user", Text: "pin the python version with pyenv"}})
		return err == nil && slices.ContainsFunc(sel.Skills, func(s store.Skill) bool { return s.Name == "pin-python-version" })
	})
	before := len(up.Requests())
	ask("s2", "set up pyenv and pin the python version for this repo", false)
	var agentReq string
	for _, r := range up.Requests()[before:] {
		if !strings.Contains(string(r.Body), "process reward model") {
			agentReq = string(r.Body)
		}
	}
	if !strings.Contains(agentReq, "pin-python-version") || !strings.Contains(agentReq, "pyenv local X.Y") {
		t.Errorf("the next session's request lacks the evolved skill:\n%.2000s", agentReq)
	}

	// Malformed evolver output changes nothing.
	gen, _ := db.SkillGeneration(context.Background())
	all, _ := db.Skills(context.Background(), true)
	b.evolverReply.Store(`{"operations": [{"op": "add", "name": "Not A Name", "body": "x"}]`)
	ask("s3", "which python version again?", true)
	testutil.Eventually(t, "a rejected evolution", func() bool {
		evos, _ := db.Evolutions(context.Background(), 10)
		return len(evos) > 0 && evos[0].Status == "rejected"
	})
	gen2, _ := db.SkillGeneration(context.Background())
	all2, _ := db.Skills(context.Background(), true)
	if gen2 != gen || len(all2) != len(all) {
		t.Errorf("malformed output changed the library: generation %d→%d, skills %d→%d", gen, gen2, len(all), len(all2))
	}
}

func startApp(t *testing.T, upstream string) (*App, string) {
	t.Helper()
	home := t.TempDir()
	db, err := store.Open(filepath.Join(home, "metaclaw.db"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = config.Save(context.Background(), db, map[string]string{
		"llm.provider": "custom", "llm.api_base": upstream + "/v1", "llm.api_key": "sk-test", "llm.model_id": "fake-model",
		"mode": "skills_only", "proxy.port": strconv.Itoa(freePort(t)), "proxy.model_mapping": "always",
	})
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	a, err := New(Options{Home: home, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Stop() })
	return a, a.ProxyURL()
}

func freePort(t testing.TB) int {
	t.Helper()
	ln, err := netListen()
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := ln.Addr().String()
	p, _ := strconv.Atoi(port[strings.LastIndex(port, ":")+1:])
	return p
}
