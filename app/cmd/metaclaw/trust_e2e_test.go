package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/metaclaw/metaclaw/proxy/fakeupstream"
	"github.com/metaclaw/metaclaw/store/testutil"
)

// trustStatus is the part of `status --json` these tests read.
type trustStatus struct {
	Mode           string   `json:"mode"`
	ConfiguredMode string   `json:"configured_mode"`
	Paused         bool     `json:"paused"`
	Problems       []string `json:"problems"`
	Attention      []string `json:"attention"`
	RestartPending []string `json:"restart_pending"`
	Upstream       *struct {
		Counts map[string]int `json:"counts"`
		Total  int            `json:"total"`
	} `json:"upstream"`
	Learning *struct {
		Today []struct {
			Component string `json:"Component"`
			Calls     int    `json:"Calls"`
		} `json:"today"`
		Budget struct {
			Limit, Used int
		} `json:"budget"`
	} `json:"learning"`
	CutsToday *struct {
		Turns int `json:"turns"`
	} `json:"cuts_today"`
	Scheduler *struct {
		Paused bool `json:"paused"`
	} `json:"scheduler"`
}

func (in *instance) trustStatus() trustStatus {
	in.t.Helper()
	r := in.run("status", "--json")
	var s trustStatus
	if err := json.Unmarshal([]byte(r.stdout), &s); err != nil {
		in.t.Fatalf("status --json: %v\n%s", err, r.stdout)
	}
	return s
}

// chat sends one OpenAI chat request to the running proxy.
func (in *instance) chat(t *testing.T, session, body string) int {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, "http://127.0.0.1:"+strconv.Itoa(in.port)+"/v1/chat/completions", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Session-Id", session)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

func eventuallyStatus(t *testing.T, in *instance, what string, ok func(trustStatus) bool) trustStatus {
	t.Helper()
	var s trustStatus
	testutil.Eventually(t, "the status to show "+what, func() bool {
		s = in.trustStatus()
		return ok(s)
	})
	return s
}

// TestStatusShowsWhatHappened runs the real binary against a fake provider
// and reads `metaclaw status` as a person would: the pause at once, the
// configured mode beside the running one and the setup problem, the
// provider's failures by kind and a key it keeps rejecting, a judge that
// keeps failing with what it answered, what learning spent, the turns cut,
// a setting applied without a restart and one that waits for it.
func TestStatusShowsWhatHappened(t *testing.T) {
	t.Parallel()
	up := fakeupstream.New()
	base, err := up.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer up.Close()
	judge := `I cannot judge this turn.`
	up.SetDefault(fakeupstream.Reply{Func: func(_ *http.Request, body []byte) fakeupstream.Reply {
		if strings.Contains(string(body), "process reward model") {
			return fakeupstream.TextReply(judge)
		}
		return fakeupstream.TextReply("ok")
	}})
	in := newInstance(t)
	in.must("config", "set", "llm.provider", "custom", "llm.api_base", base+"/v1", "llm.api_key", "sk-first-key",
		"llm.model_id", "fake-model", "mode", "rl", "proxy.port", strconv.Itoa(in.port), "web.port", strconv.Itoa(freePort(t)),
		"proxy.max_retries", "0", "skills.auto_evolve", "false", "memory.auto_extract", "false", "learning.judge", "session_end")
	in.must("start", "--daemon")
	defer in.run("stop")

	s := in.trustStatus()
	if s.Mode != "skills_only" || s.ConfiguredMode != "rl" || !strings.Contains(strings.Join(s.Problems, "\n"), "rl.api_key") {
		t.Errorf("mode %q configured %q problems %q; want skills_only beside rl and the missing rl.api_key", s.Mode, s.ConfiguredMode, s.Problems)
	}
	if text := in.must("status").stdout; !strings.Contains(text, "skills_only (configured: rl") || !strings.Contains(text, "setup:    mode rl needs rl.api_key") {
		t.Errorf("status text:\n%s", text)
	}

	in.must("pause")
	if s := in.trustStatus(); !s.Paused || s.Scheduler != nil && !s.Scheduler.Paused {
		t.Errorf("status right after pause: paused %v", s.Paused)
	}
	in.must("resume")

	// The provider refuses the key three times: counted, and named.
	up.FailNext(3, http.StatusUnauthorized)
	for range 3 {
		in.chat(t, "k", `{"model":"m","messages":[{"role":"user","content":"hi"}]}`)
	}
	s = eventuallyStatus(t, in, "the rejected key", func(s trustStatus) bool {
		return s.Upstream != nil && s.Upstream.Counts["key_rejected"] == 3
	})
	if !strings.Contains(strings.Join(s.Attention, "\n"), "the provider rejected llm.api_key 3 times in a row") {
		t.Errorf("attention %q", s.Attention)
	}
	if text := in.must("status").stdout; !strings.Contains(text, "key_rejected 3") || !strings.Contains(text, "ATTENTION: the provider rejected llm.api_key") {
		t.Errorf("status text:\n%s", text)
	}

	// A new key applies without a restart.
	in.must("config", "set", "llm.api_key", "sk-second-key")
	eventuallyStatus(t, in, "the new key in use", func(trustStatus) bool {
		in.chat(t, "k2", `{"model":"m","messages":[{"role":"user","content":"hello"}]}`)
		reqs := up.Requests()
		return reqs[len(reqs)-1].Header.Get("Authorization") == "Bearer sk-second-key"
	})

	// A judge that answers something unreadable, session after session.
	for i := range 3 {
		in.chat(t, "judge-"+strconv.Itoa(i), `{"model":"m","messages":[{"role":"user","content":"what is 2+2?"}],"session_done":true}`)
	}
	s = eventuallyStatus(t, in, "the failing judge", func(s trustStatus) bool {
		return strings.Contains(strings.Join(s.Attention, "\n"), "the judge failed 3 times in a row")
	})
	if a := strings.Join(s.Attention, "\n"); !strings.Contains(a, "I cannot judge this turn.") {
		t.Errorf("attention lacks the judge's answer: %q", a)
	}
	if s.Learning == nil || s.Learning.Budget.Used < 3 || s.Learning.Budget.Limit != 1000 {
		t.Errorf("learning spend %+v", s.Learning)
	}
	judge = `{"score": 1, "reason": "right"}`
	in.chat(t, "judge-ok", `{"model":"m","messages":[{"role":"user","content":"and 3+3?"}],"session_done":true}`)
	eventuallyStatus(t, in, "the judge working again", func(s trustStatus) bool {
		return !strings.Contains(strings.Join(s.Attention, "\n"), "judge")
	})

	// A cut, and a setting that needs a restart.
	in.must("config", "set", "max_context_tokens", "1000", "web.port", strconv.Itoa(freePort(t)))
	long := `{"model":"m","messages":[{"role":"user","content":"` + strings.Repeat("old words ", 600) + `"},{"role":"assistant","content":"noted"},{"role":"user","content":"and now?"}]}`
	eventuallyStatus(t, in, "the cut and the pending restart", func(s trustStatus) bool {
		in.chat(t, "long", long)
		return s.CutsToday != nil && s.CutsToday.Turns > 0 && strings.Contains(strings.Join(s.RestartPending, ","), "web.port")
	})
	if text := in.must("status").stdout; !strings.Contains(text, "had their oldest turns cut") || !strings.Contains(text, "learner calls today") ||
		!strings.Contains(text, "wait for a restart: web.port") {
		t.Errorf("status text:\n%s", text)
	}
	in.must("stop")
	// Stopped, status still says what learning spent and what is wrong.
	r := in.run("status")
	if !strings.Contains(r.stdout, "learner calls today") || !strings.Contains(r.stdout, "setup:    mode rl needs rl.api_key") {
		t.Errorf("status of a stopped MetaClaw:\n%s", r.stdout)
	}
}

// TestSetupTestsTheConnection: setup asks the provider with the new key and
// says what failed.
func TestSetupTestsTheConnection(t *testing.T) {
	t.Parallel()
	up := fakeupstream.New()
	base, err := up.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer up.Close()
	in := newInstance(t)
	up.EnqueueFor("/v1/models", fakeupstream.ErrorReply(http.StatusUnauthorized, "Incorrect API key provided"))
	r := in.must("setup", "--provider", "custom", "--api-base", base+"/v1", "--model", "fake-model", "--api-key-env", "TEST_PROVIDER_KEY",
		"--mode", "skills_only", "--port", strconv.Itoa(in.port))
	if !strings.Contains(r.stdout, "FAILED: the provider rejected llm.api_key (HTTP 401)") {
		t.Errorf("setup with a refused key:\n%s", r.stdout)
	}
	r = in.must("setup", "--provider", "custom", "--api-base", base+"/v1", "--model", "fake-model", "--api-key-env", "TEST_PROVIDER_KEY",
		"--mode", "skills_only", "--port", strconv.Itoa(in.port))
	if !strings.Contains(r.stdout, "the provider answered") {
		t.Errorf("setup with a good key:\n%s", r.stdout)
	}
	dead := "http://127.0.0.1:" + strconv.Itoa(freePort(t)) + "/v1"
	r = in.must("setup", "--provider", "custom", "--api-base", dead, "--model", "fake-model", "--api-key-env", "TEST_PROVIDER_KEY",
		"--mode", "skills_only", "--port", strconv.Itoa(in.port))
	if !strings.Contains(r.stdout, "FAILED: "+dead+" is unreachable") {
		t.Errorf("setup with a dead address:\n%s", r.stdout)
	}
}

// TestWebRestart: a saved setting that needs a restart is listed by status;
// the web page's Restart button brings MetaClaw back, same pid, with it in
// force.
func TestWebRestart(t *testing.T) {
	t.Parallel()
	up := fakeupstream.New()
	base, err := up.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer up.Close()
	in := newInstance(t)
	in.must("config", "set", "llm.provider", "custom", "llm.api_base", base+"/v1", "llm.api_key", "sk-k",
		"llm.model_id", "fake-model", "mode", "skills_only", "proxy.port", strconv.Itoa(in.port), "web.port", strconv.Itoa(freePort(t)))
	in.must("start", "--daemon")
	defer in.run("stop")
	before, _ := in.status()
	in.must("config", "set", "proxy.session_idle_minutes", "45")
	eventuallyStatus(t, in, "the pending restart", func(s trustStatus) bool {
		return strings.Join(s.RestartPending, ",") == "proxy.session_idle_minutes"
	})
	login := strings.TrimSpace(in.must("open", "--print").stdout)
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, Timeout: 10 * time.Second}
	resp, err := c.Get(login) // follows to the dashboard with the session cookie
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	m := regexp.MustCompile(`name="_csrf" value="([^"]+)"`).FindSubmatch(page)
	if m == nil {
		t.Fatalf("no CSRF token on the dashboard:\n%.500s", page)
	}
	webBase := login[:strings.Index(login, "/login")]
	resp, err = c.PostForm(webBase+"/restart", url.Values{"_csrf": {string(m[1])}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("POST /restart: %d", resp.StatusCode)
	}
	eventuallyStatus(t, in, "MetaClaw back with nothing pending", func(s trustStatus) bool {
		st, _ := in.status()
		return st.Responding && st.PID == before.PID && len(s.RestartPending) == 0
	})
}

// TestMemorySearchShowsWhatIsInjected: a pinned memory goes into every
// turn, so `memory search` shows it for any query instead of saying that
// no memory matches; a memory the query finds but the budget leaves out
// is listed apart.
func TestMemorySearchShowsWhatIsInjected(t *testing.T) {
	t.Parallel()
	in := newInstance(t)
	in.setup()
	in.must("memory", "add", "Always answer in British English.", "--type", "procedure", "--pin")
	out := in.must("memory", "search", "how", "do", "I", "rebase", "onto", "main").stdout
	if !strings.Contains(out, "Injected into a turn that says this") || !strings.Contains(out, "British English") ||
		strings.Contains(out, "no memory matches") {
		t.Errorf("memory search with a pinned memory:\n%s", out)
	}
	in.must("memory", "pin", firstMemoryID(t, in), "--off")
	if out := in.must("memory", "search", "how", "do", "I", "rebase", "onto", "main").stdout; !strings.Contains(out, "nothing would be injected") {
		t.Errorf("memory search with nothing to inject:\n%s", out)
	}
}

func firstMemoryID(t *testing.T, in *instance) string {
	t.Helper()
	for _, line := range strings.Split(in.must("memory", "list").stdout, "\n")[1:] {
		if f := strings.Fields(line); len(f) > 0 {
			return f[0]
		}
	}
	t.Fatal("no memory listed")
	return ""
}

// TestConnectAnnouncesTheWindowMetaClawCuts: connect tells the agent the
// window MetaClaw enforces, so the agent compacts before MetaClaw would
// cut; when MetaClaw never cuts (skills_only, the default), it sets none.
func TestConnectAnnouncesTheWindowMetaClawCuts(t *testing.T) {
	t.Parallel()
	in := newInstance(t)
	in.setup()
	if out := in.must("connect", "claude-code", "--print").stdout; strings.Contains(out, "CLAUDE_CODE_AUTO_COMPACT_WINDOW") {
		t.Errorf("a window announced although nothing is cut:\n%s", out)
	}
	in.must("config", "set", "max_context_tokens", "20000")
	if out := in.must("connect", "claude-code", "--print").stdout; !strings.Contains(out, "export CLAUDE_CODE_AUTO_COMPACT_WINDOW=20000") {
		t.Errorf("connect claude-code --print with max_context_tokens 20000:\n%s", out)
	}
}
