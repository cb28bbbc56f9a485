package proxy_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/metaclaw/metaclaw/proxy"
	"github.com/metaclaw/metaclaw/proxy/fakeupstream"
	"github.com/metaclaw/metaclaw/store/config"
)

const skillText = "## Skill: check-units\nAlways state units."

func TestInjectionPlacement(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, provider, path, body string
		// where the upstream must see the text
		check func(t *testing.T, body map[string]any)
	}{
		{"openai string system", "custom", "/v1/chat/completions",
			`{"model":"m","messages":[{"role":"system","content":"You are X."},{"role":"user","content":"hi"}]}`,
			func(t *testing.T, b map[string]any) {
				sys := msgAt(b, 0)
				if sys["role"] != "system" || sys["content"] != "You are X.\n\n"+skillText {
					t.Errorf("system = %v", sys)
				}
			}},
		{"openai parts system", "custom", "/v1/chat/completions",
			`{"model":"m","messages":[{"role":"system","content":[{"type":"text","text":"You are X."}]},{"role":"user","content":"hi"}]}`,
			func(t *testing.T, b map[string]any) {
				parts := msgAt(b, 0)["content"].([]any)
				if len(parts) != 2 || parts[1].(map[string]any)["text"] != skillText {
					t.Errorf("parts = %v", parts)
				}
			}},
		{"openai no system", "custom", "/v1/chat/completions",
			`{"model":"m","messages":[{"role":"user","content":"hi"}]}`,
			func(t *testing.T, b map[string]any) {
				if sys := msgAt(b, 0); sys["role"] != "system" || sys["content"] != skillText || msgAt(b, 1)["role"] != "user" {
					t.Errorf("messages = %v", b["messages"])
				}
			}},
		{"anthropic native string system", "anthropic", "/v1/messages",
			`{"model":"m","max_tokens":9,"system":"You are X.","messages":[{"role":"user","content":"hi"}]}`,
			func(t *testing.T, b map[string]any) {
				if b["system"] != "You are X.\n\n"+skillText {
					t.Errorf("system = %v", b["system"])
				}
			}},
		{"anthropic native block system", "anthropic", "/v1/messages",
			`{"model":"m","max_tokens":9,"system":[{"type":"text","text":"You are X.","cache_control":{"type":"ephemeral"}}],"messages":[{"role":"user","content":"hi"}]}`,
			func(t *testing.T, b map[string]any) {
				blocks := b["system"].([]any)
				first, last := blocks[0].(map[string]any), blocks[1].(map[string]any)
				if first["cache_control"] == nil || last["text"] != skillText || last["cache_control"] != nil {
					t.Errorf("system = %v", blocks)
				}
			}},
		{"anthropic translated", "custom", "/v1/chat/completions",
			`{"model":"m","max_tokens":9,"system":"You are X.","messages":[{"role":"user","content":"hi"}]}`,
			func(t *testing.T, b map[string]any) {
				if !strings.Contains(fmt.Sprint(msgAt(b, 0)["content"]), skillText) {
					t.Errorf("system = %v", msgAt(b, 0))
				}
			}},
	}
	for _, tt := range tests {
		for _, stream := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/stream=%v", tt.name, stream), func(t *testing.T) {
				t.Parallel()
				inj := &staticInjector{text: skillText, ids: []string{"skill:check-units@1"}}
				e := newEnv(t, withInjector(inj), withConfig(func(c *config.Config) { must(t, c.Set("llm.provider", tt.provider)) }))
				clientPath := "/v1/chat/completions"
				if strings.Contains(tt.body, "max_tokens") {
					clientPath = "/v1/messages"
				}
				body := tt.body
				if stream {
					body = strings.Replace(body, `{"model":"m"`, `{"model":"m","stream":true`, 1)
				}
				if status, b, _ := e.post(clientPath, body); status != 200 {
					t.Fatalf("status %d: %s", status, b)
				}
				bodies := e.upstreamBodies(tt.path)
				if len(bodies) != 1 {
					t.Fatalf("upstream got %d requests on %s", len(bodies), tt.path)
				}
				tt.check(t, bodies[0])
				if turns := e.turns(1); turns[0].Injected != `["skill:check-units@1"]` {
					t.Errorf("injected ids recorded as %q", turns[0].Injected)
				}
			})
		}
	}
}

func msgAt(body map[string]any, i int) map[string]any {
	return body["messages"].([]any)[i].(map[string]any)
}

func TestSideTurnsAreNotInjected(t *testing.T) {
	t.Parallel()
	inj := &staticInjector{text: skillText}
	e := newEnv(t, withInjector(inj))
	e.post("/v1/chat/completions", `{"model":"m","messages":[{"role":"user","content":"hi"}]}`, "X-Turn-Type", "side")
	if strings.Contains(fmt.Sprint(e.upstreamBodies("/v1/chat/completions")[0]), skillText) || len(inj.reqs) != 0 {
		t.Error("a side turn was injected")
	}
	if turns := e.turns(1); turns[0].Type != "side" {
		t.Errorf("turn type %q", turns[0].Type)
	}
}

// TestAgentSideRequestsAreSideTurns: an agent's own request (here Claude
// Code's session title) is a side turn though the client sends no
// X-Turn-Type: nothing is injected and it is recorded as side; a client
// that types it main is believed.
func TestAgentSideRequestsAreSideTurns(t *testing.T) {
	t.Parallel()
	inj := &staticInjector{text: skillText}
	e := newEnv(t, withInjector(inj), withConfig(func(c *config.Config) { must(t, c.Set("llm.provider", "anthropic")) }))
	body := `{"model":"claude-haiku-4-5","max_tokens":512,"system":[{"type":"text","text":"Summarize this coding conversation in under 50 characters.\nCapture the main task, key files, problems addressed, and current status."}],` +
		`"messages":[{"role":"user","content":"Please write a 5-10 word title the following conversation:\n\nUser: fix the flaky auth test\n\nRespond with the title for the conversation and nothing else."}]}`
	if status, b, _ := e.post("/v1/messages", body); status != 200 {
		t.Fatalf("status %d: %s", status, b)
	}
	if strings.Contains(fmt.Sprint(e.upstreamBodies("/v1/messages")[0]), skillText) || len(inj.reqs) != 0 {
		t.Error("a title request was injected")
	}
	if turns := e.turns(1); turns[0].Type != "side" {
		t.Errorf("title request recorded as a %q turn", turns[0].Type)
	}
	if status, b, _ := e.post("/v1/messages", body, "X-Turn-Type", "main"); status != 200 {
		t.Fatalf("status %d: %s", status, b)
	}
	if len(inj.reqs) != 1 {
		t.Errorf("a request typed main was not injected (%d injections)", len(inj.reqs))
	}
	// OpenClaw's heartbeat poll, its internal-context message last as on
	// every OpenClaw turn (shared/reference/openclaw-client.md).
	heartbeat := `{"model":"claude-sonnet-4-5","max_tokens":512,"system":[{"type":"text","text":"You are a personal assistant running inside OpenClaw."}],` +
		`"messages":[{"role":"user","content":[{"type":"text","text":"Read HEARTBEAT.md if it exists (workspace context). Follow it strictly. Do not infer or repeat old tasks from prior chats. If nothing needs attention, reply HEARTBEAT_OK.","cache_control":{"type":"ephemeral"}}]},` +
		`{"role":"user","content":[{"type":"text","text":"<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>\nActive exec sessions: none\n<<<END_OPENCLAW_INTERNAL_CONTEXT>>>"}]}]}`
	if status, b, _ := e.post("/v1/messages", heartbeat); status != 200 {
		t.Fatalf("status %d: %s", status, b)
	}
	if len(inj.reqs) != 1 {
		t.Errorf("an OpenClaw heartbeat was injected (%d injections)", len(inj.reqs))
	}
	side := 0
	for _, turn := range e.turns(3) {
		if turn.Type == "side" {
			side++
		}
	}
	if side != 2 {
		t.Errorf("%d side turns, want the title request and the OpenClaw heartbeat", side)
	}
}

func TestIdentityAndUnknownFields(t *testing.T) {
	t.Parallel()
	inj := &staticInjector{text: "x"}
	e := newEnv(t, withInjector(inj))
	body := `{"model":"m","session_id":"body-sess","user_id":"u1","workspace_id":"w9","custom_vendor_flag":{"a":[1,2]},` +
		`"messages":[{"role":"user","content":"hi","vendor_note":"keep me"}]}`
	e.post("/v1/chat/completions", body)
	got := e.upstreamBodies("/v1/chat/completions")[0]
	for _, f := range []string{"session_id", "user_id", "workspace_id", "turn_type"} {
		if _, ok := got[f]; ok {
			t.Errorf("identity field %s forwarded", f)
		}
	}
	if fmt.Sprint(got["custom_vendor_flag"]) != "map[a:[1 2]]" || msgAt(got, 1)["vendor_note"] != "keep me" {
		t.Errorf("unknown fields lost: %v", got)
	}
	if inj.reqs[0].Scope != "user:u1/workspace:w9" || inj.reqs[0].SessionID != "body-sess" {
		t.Errorf("injector saw %+v", inj.reqs[0])
	}
	// Headers win over body fields and are not forwarded.
	e.post("/v1/chat/completions", body, "X-Session-Id", "hdr-sess", "X-Memory-Scope", "team")
	if inj.reqs[1].Scope != "team" || inj.reqs[1].SessionID != "hdr-sess" {
		t.Errorf("injector saw %+v", inj.reqs[1])
	}
	if h := e.up.Requests()[1].Header; h.Get("X-Session-Id") != "" || h.Get("X-Memory-Scope") != "" {
		t.Error("identity headers forwarded upstream")
	}
}

func TestDerivedSessionsGroupTurns(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	conv := func(first string, extra ...string) string {
		msgs := []string{`{"role":"system","content":"You are OpenClaw."}`, fmt.Sprintf(`{"role":"user","content":%q}`, first)}
		for _, x := range extra {
			msgs = append(msgs, fmt.Sprintf(`{"role":"assistant","content":"ok"},{"role":"user","content":%q}`, x))
		}
		return `{"model":"m","messages":[` + strings.Join(msgs, ",") + `]}`
	}
	e.post("/v1/chat/completions", conv("task A"))
	e.post("/v1/chat/completions", conv("task A", "more"))
	e.post("/v1/chat/completions", conv("task B"))
	turns := e.turns(3)
	sessions := map[string]int{}
	for _, tr := range turns {
		sessions[tr.SessionID]++
	}
	if len(sessions) != 2 {
		t.Errorf("derived sessions %v, want 2 (task A twice, task B once)", sessions)
	}
}

func TestSessionEndEvents(t *testing.T) {
	t.Parallel()
	now := time.Now()
	var mu sync.Mutex
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	e := newEnv(t, func(c *config.Config, o *proxy.Options) { o.Now = clock })
	events := e.srv.Events()
	e.post("/v1/chat/completions", `{"model":"m","messages":[{"role":"user","content":"hi"}]}`, "X-Session-Id", "s1")
	e.post("/v1/chat/completions", `{"model":"m","messages":[{"role":"user","content":"bye"}]}`, "X-Session-Id", "s1", "X-Session-Done", "true")
	want := []string{"turn_recorded s1", "turn_recorded s1", "session_ended s1 done"}
	for _, w := range want {
		select {
		case ev := <-events:
			got := strings.TrimSpace(string(ev.Kind) + " " + ev.SessionID + " " + ev.Reason)
			if got != w {
				t.Errorf("event %q, want %q", got, w)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("no event %q", w)
		}
	}
	s, err := e.db.Session(context.Background(), "s1")
	if err != nil || s.EndedAt.IsZero() || s.EndReason != "done" || s.TurnCount != 2 {
		t.Errorf("session = %+v, %v", s, err)
	}
}

func TestModelMappingAuto(t *testing.T) {
	t.Parallel()
	e := newEnv(t, withConfig(func(c *config.Config) { must(t, c.Set("proxy.model_mapping", "auto")) }))
	// The model list is fetched in the background at start.
	deadline := time.Now().Add(5 * time.Second)
	for {
		e.up.Reset()
		e.post("/v1/chat/completions", `{"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"}]}`)
		if m := e.upstreamBodies("/v1/chat/completions")[0]["model"]; m == "gpt-4o-mini" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("a model the upstream serves was not kept")
		}
		time.Sleep(20 * time.Millisecond)
	}
	e.post("/v1/chat/completions", `{"model":"not-served","messages":[{"role":"user","content":"hi"}]}`)
	bodies := e.upstreamBodies("/v1/chat/completions")
	if m := bodies[len(bodies)-1]["model"]; m != "fake-model" {
		t.Errorf("unserved model mapped to %v, want fake-model", m)
	}
}

func TestFallbackUpstream(t *testing.T) {
	t.Parallel()
	fb := fakeupstream.New()
	fbURL, err := fb.Start()
	must(t, err)
	defer fb.Close()
	fb.SetDefault(fakeupstream.TextReply("from the fallback"))
	e := newEnv(t, withConfig(func(c *config.Config) {
		must(t, c.Set("proxy.fallback_api_base", fbURL+"/v1"))
		must(t, c.Set("proxy.fallback_model_id", "backup-model"))
		must(t, c.Set("proxy.max_retries", "0"))
	}))
	e.up.Enqueue(fakeupstream.Reply{Status: 500})
	status, b, _ := e.post("/v1/chat/completions", `{"model":"m","messages":[{"role":"user","content":"hi"}]}`)
	if status != 200 || !strings.Contains(string(b), "from the fallback") {
		t.Fatalf("fallback: %d %s", status, b)
	}
	var got map[string]any
	json.Unmarshal(fb.Requests()[0].Body, &got)
	if got["model"] != "backup-model" {
		t.Errorf("fallback model = %v", got["model"])
	}
	if turns := e.turns(1); turns[0].Model != "backup-model" {
		t.Errorf("recorded model %q", turns[0].Model)
	}
}

func TestForwardClientAuth(t *testing.T) {
	t.Parallel()
	e := newEnv(t, withConfig(func(c *config.Config) { must(t, c.Set("proxy.forward_client_auth", "true")) }))
	e.post("/v1/chat/completions", `{"model":"m","messages":[{"role":"user","content":"hi"}]}`, "Authorization", "Bearer sk-subscriber")
	e.post("/v1/messages", `{"model":"m","max_tokens":5,"messages":[{"role":"user","content":"hi"}]}`, "X-Api-Key", "sk-ant-subscriber")
	reqs := e.up.Requests()
	if reqs[0].Header.Get("Authorization") != "Bearer sk-subscriber" {
		t.Errorf("forwarded auth = %q", reqs[0].Header.Get("Authorization"))
	}
	if reqs[1].Header.Get("X-Api-Key") != "sk-ant-subscriber" || strings.Contains(reqs[1].Header.Get("Authorization"), "upstream") {
		t.Errorf("forwarded x-api-key = %q", reqs[1].Header.Get("X-Api-Key"))
	}
}

func TestPassthroughAndModels(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	status, b, _ := e.post("/v1/embeddings", `{"model":"e","input":"hello"}`)
	if status != 200 || !strings.Contains(string(b), `"embedding"`) {
		t.Errorf("embeddings passthrough: %d %s", status, b)
	}
	resp, err := http.Get(e.url + "/v1/models")
	must(t, err)
	defer resp.Body.Close()
	var list struct{ Data []struct{ ID string } }
	json.NewDecoder(resp.Body).Decode(&list)
	if len(list.Data) == 0 {
		t.Error("no models listed")
	}
	status, b, _ = e.post("/v1/does-not-exist", `{}`)
	if status != 404 {
		t.Errorf("unknown path: %d %s", status, b)
	}
	if turns, _ := e.db.RecentSessions(context.Background(), 10); len(turns) != 0 {
		t.Error("passthrough requests were recorded as turns")
	}
}

func TestTruncationKeepsToolPairs(t *testing.T) {
	t.Parallel()
	e := newEnv(t, withConfig(func(c *config.Config) { must(t, c.Set("max_context_tokens", "120")) }))
	big := strings.Repeat("old context ", 40)
	body := `{"model":"m","messages":[{"role":"system","content":"sys"},` +
		`{"role":"user","content":"` + big + `"},{"role":"assistant","content":"` + big + `"},` +
		`{"role":"user","content":"read it"},{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"read","arguments":"{}"}}]},` +
		`{"role":"tool","tool_call_id":"c1","content":"file text"},{"role":"user","content":"thanks"}]}`
	e.post("/v1/chat/completions", body)
	msgs := e.upstreamBodies("/v1/chat/completions")[0]["messages"].([]any)
	var roles []string
	for _, m := range msgs {
		roles = append(roles, m.(map[string]any)["role"].(string))
	}
	if strings.Join(roles, ",") != "system,user,assistant,tool,user" {
		t.Errorf("kept roles %v", roles)
	}
}

// TestFirstEventBeforeUpstreamFinished shows streaming is real: the client
// reads the first event while the upstream is still holding the rest.
func TestFirstEventBeforeUpstreamFinished(t *testing.T) {
	t.Parallel()
	for api, path := range paths {
		e := newEnv(t)
		hold := make(chan struct{})
		e.up.Enqueue(fakeupstream.Reply{Text: "hello world", HoldAfterFirst: hold})
		req, _ := http.NewRequest("POST", e.url+path, strings.NewReader(`{"model":"m","max_tokens":9,"stream":true,"messages":[{"role":"user","content":"x"}]}`))
		resp, err := http.DefaultClient.Do(req)
		must(t, err)
		rd := bufio.NewReader(resp.Body)
		line, err := rd.ReadString('\n')
		if err != nil || !(strings.HasPrefix(line, "data: ") || strings.HasPrefix(line, "event: ")) {
			t.Fatalf("%s: first line %q, %v", api, line, err)
		}
		close(hold) // only now may the upstream finish
		rest := new(strings.Builder)
		rd.WriteTo(rest)
		resp.Body.Close()
		if !strings.Contains(rest.String(), "[DONE]") && !strings.Contains(rest.String(), "message_stop") {
			t.Errorf("%s: rest of the stream missing: %q", api, rest.String())
		}
	}
}

func TestClientDisconnectCancelsUpstream(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.up.Enqueue(fakeupstream.Reply{Text: strings.Repeat("word ", 2000), ChunkSize: 5, ChunkDelay: 5 * time.Millisecond})
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "POST", e.url+"/v1/chat/completions", strings.NewReader(`{"model":"m","stream":true,"messages":[{"role":"user","content":"x"}]}`))
	resp, err := http.DefaultClient.Do(req)
	must(t, err)
	bufio.NewReader(resp.Body).ReadString('\n')
	cancel()
	resp.Body.Close()
	turns := e.turns(1)
	if turns[0].Status != 499 || turns[0].Error != "client disconnected" {
		t.Errorf("disconnect recorded as %d %q", turns[0].Status, turns[0].Error)
	}
}

func TestConcurrentStreams(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.up.SetDefault(fakeupstream.Reply{Text: "concurrent answer text", ChunkSize: 3})
	const n = 200
	var wg sync.WaitGroup
	errs := make(chan error, n)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: n}}
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			path := "/v1/chat/completions"
			if i%2 == 1 {
				path = "/v1/messages"
			}
			body := fmt.Sprintf(`{"model":"m","max_tokens":9,"stream":true,"messages":[{"role":"user","content":"q%d"}]}`, i)
			resp, err := client.Post(e.url+path, "application/json", strings.NewReader(body))
			if err != nil {
				errs <- err
				return
			}
			defer resp.Body.Close()
			b := new(strings.Builder)
			bufio.NewReader(resp.Body).WriteTo(b)
			if resp.StatusCode != 200 || !(strings.Contains(b.String(), "[DONE]") || strings.Contains(b.String(), "message_stop")) {
				errs <- fmt.Errorf("stream %d: %d %s", i, resp.StatusCode, b)
			}
		}(i)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if turns := e.turns(n); len(turns) != n {
		t.Errorf("%d turns recorded", len(turns))
	}
	if st := e.srv.Stats(); st.Dropped != 0 || st.Failed != 0 {
		t.Errorf("recorder stats %+v", st)
	}
}

// TestShutdownLetsStreamsFinish stops the server while a stream is in
// flight: the stream completes and its turn is recorded.
func TestShutdownLetsStreamsFinish(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.up.Enqueue(fakeupstream.Reply{Text: strings.Repeat("slow ", 20), ChunkSize: 5, ChunkDelay: 20 * time.Millisecond})
	resp, err := http.Post(e.url+"/v1/chat/completions", "application/json", strings.NewReader(`{"model":"m","stream":true,"messages":[{"role":"user","content":"x"}]}`))
	must(t, err)
	rd := bufio.NewReader(resp.Body)
	rd.ReadString('\n')
	stopped := make(chan struct{})
	go func() { e.stop(); close(stopped) }()
	rest := new(strings.Builder)
	rd.WriteTo(rest)
	resp.Body.Close()
	<-stopped
	if !strings.Contains(rest.String(), "[DONE]") {
		t.Errorf("stream cut by shutdown: %s", rest)
	}
}

// TestClientGoneBeforeAnswerCancelsUpstream closes the client while the
// upstream has not answered yet (nothing was written to the client): the
// proxy notices at once, cancels the upstream call and records a 499,
// instead of waiting out the upstream's first-byte timeout.
func TestClientGoneBeforeAnswerCancelsUpstream(t *testing.T) {
	t.Parallel()
	for _, stream := range []bool{false, true} {
		for _, early := range []bool{false, true} {
			clientGoneBeforeAnswer(t, stream, early)
		}
	}
}

// clientGoneBeforeAnswer has a client give up while the upstream holds its
// answer: after 200 ms, or (early) as soon as the upstream has the request,
// which is usually before the proxy starts watching the client.
func clientGoneBeforeAnswer(t *testing.T, stream, early bool) {
	e := newEnv(t)
	e.up.Enqueue(fakeupstream.Reply{Hang: true})
	ctx, cancel := context.WithCancel(context.Background())
	body := fmt.Sprintf(`{"model":"m","stream":%v,"messages":[{"role":"user","content":"x"}]}`, stream)
	req, _ := http.NewRequestWithContext(ctx, "POST", e.url+"/v1/chat/completions", strings.NewReader(body))
	errc := make(chan error, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		errc <- err
	}()
	if early {
		for len(e.up.Requests()) == 0 {
			time.Sleep(100 * time.Microsecond)
		}
	} else {
		time.Sleep(200 * time.Millisecond) // the request is waiting on the upstream
	}
	cancel()
	<-errc
	turns := e.turns(1) // waits for the recorded turn
	if turns[0].Status != 499 {
		t.Errorf("stream=%v early=%v: client gone recorded as %d %q", stream, early, turns[0].Status, turns[0].Error)
	}
}
