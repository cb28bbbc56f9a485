package main

import (
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/metaclaw/metaclaw/proxy/fakeupstream"
)

// TestReferenceAPI drives the reference's orchestrator API (its benchmark
// harness's calls) over real HTTP on the running MetaClaw: buffer_turn
// with auto-flush, ingest with the reference's body, flush_session, stats,
// GET /v1/memory/{id}, and admin/train_step with metaclaw train-step
// --port, refused in skills_only; the memory guards hold for them too.
func TestReferenceAPI(t *testing.T) {
	t.Parallel()
	up := fakeupstream.New()
	base, err := up.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer up.Close()
	in := newInstance(t)
	in.must("config", "set", "llm.provider", "custom", "llm.api_base", base+"/v1", "llm.api_key", "sk-fake", "llm.model_id", "fake-model",
		"mode", "skills_only", "proxy.port", strconv.Itoa(in.port), "memory.flush_every", "2", "skills.auto_evolve", "false")
	in.must("start", "--daemon")
	defer in.run("stop")
	url := "http://127.0.0.1:" + strconv.Itoa(in.port)
	call := func(method, path, body string, hdr ...string) (int, map[string]any) {
		t.Helper()
		req, _ := http.NewRequest(method, url+path, strings.NewReader(body))
		if body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		for i := 0; i+1 < len(hdr); i += 2 {
			req.Header.Set(hdr[i], hdr[i+1])
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		data, _ := io.ReadAll(resp.Body)
		var out map[string]any
		if err := json.Unmarshal(data, &out); err != nil {
			t.Fatalf("%s %s: not JSON: %s", method, path, data)
		}
		return resp.StatusCode, out
	}
	turn := `{"session_id":"scene-1","scope_id":"bench","turn":{"prompt_text":"I prefer tabs over spaces in Go code.","response_text":"Noted."}}`
	if code, out := call("POST", "/v1/memory/buffer_turn", turn); code != 200 || cmp.Diff(map[string]any{"flushed": false, "added": nil}, out) != "" {
		t.Fatalf("first buffer_turn: %d %v", code, out)
	}
	code, out := call("POST", "/v1/memory/buffer_turn", turn)
	if _, isNum := out["added"].(float64); code != 200 || out["flushed"] != true || !isNum {
		t.Fatalf("second buffer_turn (flush_every 2): %d %v", code, out)
	}
	call("POST", "/v1/memory/buffer_turn", strings.Replace(turn, "scene-1", "scene-2", 1))
	code, out = call("POST", "/v1/memory/ingest", `{}`)
	sessions, _ := out["sessions"].([]any)
	if code != 200 || out["buffered_turns"] != float64(1) || len(sessions) != 1 || sessions[0].(map[string]any)["session_id"] != "scene-2" {
		t.Fatalf("ingest with the reference's empty body: %d %v", code, out)
	}
	if code, out := call("POST", "/v1/memory/flush_session", `{"session_id":"scene-3","final":true}`); code != 200 || cmp.Diff(map[string]any{"added": float64(0)}, out) != "" {
		t.Fatalf("flush_session of an empty session: %d %v", code, out)
	}
	_, added := call("POST", "/v1/memory", `{"scope":"bench","type":"fact","content":"The team deploys on Thursdays."}`)
	id := int64(added["memory"].(map[string]any)["id"].(float64))
	code, out = call("GET", "/v1/memory/"+strconv.FormatInt(id, 10), "")
	if code != 200 || out["memory_id"] != strconv.FormatInt(id, 10) || out["scope_id"] != "bench" || out["content"] != "The team deploys on Thursdays." {
		t.Fatalf("GET /v1/memory/{id}: %d %v", code, out)
	}
	code, out = call("GET", "/v1/memory/stats?scope=bench", "")
	if code != 200 || out["scope_id"] != "bench" || out["active"].(float64) < 1 || out["active_by_type"] == nil {
		t.Fatalf("stats: %d %v", code, out)
	}
	if code, out := call("GET", "/v1/memory/999999", ""); code != 404 || out["error"] == nil {
		t.Errorf("unknown memory: %d %v", code, out)
	}
	if code, out := call("POST", "/v1/admin/train_step", `{}`); code != 503 || !strings.Contains(jsonText(out), "trainer not available") {
		t.Errorf("train_step in skills_only: %d %v", code, out)
	}
	if code, _ := call("POST", "/v1/admin/train_step", `{}`, "Origin", "https://evil.example"); code != 403 {
		t.Errorf("train_step from a web page: %d", code)
	}
	if code, _ := call("POST", "/v1/memory/buffer_turn", turn, "Origin", "https://evil.example"); code != 403 {
		t.Errorf("buffer_turn from a web page: %d", code)
	}
	in.fails(1, "trainer not available", "train-step", "--port", strconv.Itoa(in.port))
}

func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
