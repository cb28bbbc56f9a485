package memory

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/metaclaw/metaclaw/app/learner/llm"
	"github.com/metaclaw/metaclaw/proxy/fakeupstream"
	"github.com/metaclaw/metaclaw/store"
)

func openDB(tb testing.TB) *store.DB {
	tb.Helper()
	db, err := store.Open(filepath.Join(tb.TempDir(), "metaclaw.db"))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	return db
}

// clock is a settable test clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// fakeModel is the extraction model: a fake OpenAI-compatible provider on
// 127.0.0.1 whose answer to an extraction request is computed by answer
// from the request's user message. It records the user messages it got.
type fakeModel struct {
	up     *fakeupstream.Server
	client *llm.Client
	mu     sync.Mutex
	users  []string
	fail   bool
}

func newFakeModel(t *testing.T, answer func(user string) string) *fakeModel {
	t.Helper()
	fm := &fakeModel{up: fakeupstream.New()}
	base, err := fm.up.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fm.up.Close() })
	fm.up.SetDefault(fakeupstream.Reply{Func: func(_ *http.Request, body []byte) fakeupstream.Reply {
		var req struct {
			Messages []struct {
				Role    string `json:"role"`
				Content string `json:"content"`
			} `json:"messages"`
		}
		json.Unmarshal(body, &req)
		user := ""
		for _, m := range req.Messages {
			if m.Role == "user" {
				user = m.Content
			}
		}
		fm.mu.Lock()
		fm.users = append(fm.users, user)
		fail := fm.fail
		fm.mu.Unlock()
		if fail {
			return fakeupstream.Reply{Status: 503, ErrorMessage: "model overloaded", RetryAfter: "0.01"}
		}
		return fakeupstream.Reply{Text: answer(user)}
	}})
	fm.client = llm.New(llm.Endpoint{BaseURL: base + "/v1", APIKey: "sk-test", Model: "extractor", Timeout: 5 * time.Second})
	return fm
}

func (fm *fakeModel) setFail(v bool) {
	fm.mu.Lock()
	fm.fail = v
	fm.mu.Unlock()
}

func (fm *fakeModel) requests() []string {
	fm.mu.Lock()
	defer fm.mu.Unlock()
	return append([]string(nil), fm.users...)
}

// answerJSON renders candidates as the model's JSON answer.
func answerJSON(cands ...Candidate) string {
	type item struct {
		Type       string  `json:"type"`
		Topic      string  `json:"topic"`
		Content    string  `json:"content"`
		Importance float64 `json:"importance"`
		Supersedes []int64 `json:"supersedes,omitempty"`
	}
	items := []item{}
	for _, c := range cands {
		items = append(items, item{c.Type, c.Topic, c.Content, c.Importance, c.Supersedes})
	}
	b, _ := json.Marshal(map[string]any{"memories": items})
	return string(b)
}

// chatRequest is a recorded OpenAI chat request: a system prompt (with
// whatever the proxy injected), earlier exchanges and the user's message.
func chatRequest(system string, history []string, user string) []byte {
	msgs := []map[string]any{{"role": "system", "content": system}}
	for i, h := range history {
		role := "user"
		if i%2 == 1 {
			role = "assistant"
		}
		msgs = append(msgs, map[string]any{"role": role, "content": h})
	}
	msgs = append(msgs, map[string]any{"role": "user", "content": user})
	b, _ := json.Marshal(map[string]any{"model": "m", "messages": msgs})
	return b
}

// recordSession stores a conversation as the proxy would: one main turn
// per user message, each request carrying the history so far.
func recordSession(t *testing.T, db *store.DB, id, scope, system string, at time.Time, users, answers []string) []*store.Turn {
	t.Helper()
	var turns []*store.Turn
	var history []string
	for i, u := range users {
		turns = append(turns, &store.Turn{SessionID: id, Scope: scope, API: "openai", Request: chatRequest(system, history, u),
			ResponseText: answers[i], CreatedAt: at.Add(time.Duration(i) * time.Minute)})
		history = append(history, u, answers[i])
	}
	if err := db.RecordTurns(context.Background(), turns); err != nil {
		t.Fatal(err)
	}
	return turns
}

func contents(ms []Scored) []string {
	var out []string
	for _, m := range ms {
		out = append(out, m.Content)
	}
	return out
}

func hasText(list []string, sub string) bool {
	for _, s := range list {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

func currentContents(t *testing.T, db *store.DB, scope string) []string {
	t.Helper()
	ms, err := db.Memories(context.Background(), store.MemoryFilter{Scope: scope})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range ms {
		out = append(out, m.Content)
	}
	return out
}

func sortStrings() cmp.Option {
	return cmpopts.SortSlices(func(a, b string) bool { return a < b })
}

func readFile(p string) ([]byte, error) { return os.ReadFile(p) }

// newService makes a service whose retriever's background work ends
// before the test's database closes and its folder is removed (a build
// still reading then left files behind: "directory not empty").
func newService(tb testing.TB, o Options) *Service {
	tb.Helper()
	s := New(o)
	tb.Cleanup(s.Retriever().Close)
	return s
}
