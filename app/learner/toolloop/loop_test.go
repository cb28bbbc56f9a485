package toolloop

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/metaclaw/metaclaw/proxy/fakeupstream"
)

// newLoop returns a loop over a fresh work folder against a fake provider.
func newLoop(t *testing.T, maxSteps int) (*Loop, *fakeupstream.Server, string) {
	t.Helper()
	up := fakeupstream.New()
	base, err := up.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { up.Close() })
	ws := t.TempDir()
	tools, err := OpenTools(ws, Shell{Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tools.Close() })
	return &Loop{Client: NewClient(base+"/v1", "", time.Minute), Model: "fake-model", Tools: tools, MaxSteps: maxSteps}, up, ws
}

// The loop calls the model, runs its tool calls in the work folder, gives
// the results back under the calls' ids and stops at the first answer
// without a tool call; every call carries the turn's headers, and no
// Authorization header goes out without a key.
func TestLoopRunsToolsUntilAnAnswer(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("sh commands")
	}
	t.Setenv("OPENAI_API_KEY", "sk-from-the-environment")
	l, up, ws := newLoop(t, 10)
	up.Enqueue(fakeupstream.Reply{ToolCalls: []fakeupstream.ToolCall{{ID: "c1", Name: "write", Arguments: `{"path":"notes/a.txt","content":"alpha\n"}`}}})
	up.Enqueue(fakeupstream.Reply{ToolCalls: []fakeupstream.ToolCall{{ID: "c2", Name: "exec", Arguments: `{"command":"cat notes/a.txt; echo beta"}`}}})
	up.Enqueue(fakeupstream.Reply{Text: "Done: alpha and beta."})
	msgs := []Message{{Role: "system", Content: "sys"}, {Role: "user", Content: "go"}}
	res, err := l.Run(context.Background(), msgs, Turn{Headers: map[string]string{"X-Session-Id": "s1"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Steps != 3 || res.Text != "Done: alpha and beta." || res.Usage.Calls != 3 || len(res.Messages) != 7 {
		t.Fatalf("run: steps %d, text %q, calls %d, messages %d", res.Steps, res.Text, res.Usage.Calls, len(res.Messages))
	}
	if data, _ := os.ReadFile(filepath.Join(ws, "notes", "a.txt")); string(data) != "alpha\n" {
		t.Errorf("write did not land in the work folder: %q", data)
	}
	if tool := res.Messages[5]; tool.Role != "tool" || tool.ToolCallID != "c2" || tool.Content != "exit code 0\nalpha\nbeta\n" {
		t.Errorf("exec result message = %+v", tool)
	}
	reqs := up.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3", len(reqs))
	}
	for i, r := range reqs {
		if r.Header.Get("X-Session-Id") != "s1" || r.Header.Get("Authorization") != "" || !bytes.Contains(r.Body, []byte(`"stream":true`)) {
			t.Errorf("request %d: session %q, authorization %q, streamed %v", i, r.Header.Get("X-Session-Id"),
				r.Header.Get("Authorization"), bytes.Contains(r.Body, []byte(`"stream":true`)))
		}
	}
	var last struct {
		Messages []struct {
			Role       string `json:"role"`
			ToolCallID string `json:"tool_call_id"`
			Content    string `json:"content"`
		} `json:"messages"`
		Tools []struct {
			Function struct{ Name string } `json:"function"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(reqs[2].Body, &last); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range last.Tools {
		names = append(names, tl.Function.Name)
	}
	if strings.Join(names, ",") != "read,write,list,exec" {
		t.Errorf("tools offered: %v", names)
	}
	if m := last.Messages[len(last.Messages)-1]; m.Role != "tool" || m.ToolCallID != "c2" || !strings.Contains(m.Content, "beta") {
		t.Errorf("the exec output did not go back to the model: %+v", m)
	}
}

// A model that keeps calling tools is stopped at MaxSteps with
// ErrNoFinalAnswer; Final asks for no tool call (tool_choice none).
func TestLoopStopsAtMaxSteps(t *testing.T) {
	l, up, _ := newLoop(t, 2)
	for range 3 {
		up.Enqueue(fakeupstream.Reply{ToolCalls: []fakeupstream.ToolCall{{Name: "list", Arguments: `{}`}}})
	}
	res, err := l.Run(context.Background(), []Message{{Role: "user", Content: "go"}}, Turn{})
	if !errors.Is(err, ErrNoFinalAnswer) || res.Steps != 2 || len(up.Requests()) != 2 {
		t.Fatalf("err %v, steps %d, requests %d", err, res.Steps, len(up.Requests()))
	}
	up.Enqueue(fakeupstream.Reply{Text: "closing"})
	if _, err := l.Run(context.Background(), res.Messages, Turn{Final: true}); err != nil {
		t.Fatal(err)
	}
	reqs := up.Requests()
	if body := reqs[len(reqs)-1].Body; !bytes.Contains(body, []byte(`"tool_choice":"none"`)) {
		t.Errorf("a final turn did not ask for no tool call: %.300s", body)
	}
}

// Tool calls written into the text as <tool_call> blocks (Qwen's format)
// run like structured ones; a provider error ends the run with it.
func TestLoopTextToolCallsAndErrors(t *testing.T) {
	l, up, ws := newLoop(t, 5)
	up.Enqueue(fakeupstream.Reply{Text: `I will write it.
<tool_call>
{"name": "write", "arguments": {"path": "q.txt", "content": "qwen"}}
</tool_call>`})
	up.Enqueue(fakeupstream.Reply{Text: "written"})
	res, err := l.Run(context.Background(), []Message{{Role: "user", Content: "go"}}, Turn{})
	if err != nil || res.Text != "written" {
		t.Fatalf("run: %q, %v", res.Text, err)
	}
	if data, _ := os.ReadFile(filepath.Join(ws, "q.txt")); string(data) != "qwen" {
		t.Errorf("the text tool call did not run: %q", data)
	}
	up.Enqueue(fakeupstream.Reply{Status: 401, ErrorMessage: "bad key"})
	if _, err := l.Run(context.Background(), []Message{{Role: "user", Content: "go"}}, Turn{}); err == nil || !strings.Contains(err.Error(), "401") {
		t.Errorf("a provider error = %v, want the 401", err)
	}
}
