package bench

import (
	"context"
	"io"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/metaclaw/metaclaw/proxy/fakeupstream"
	"github.com/metaclaw/metaclaw/store"
)

const miniBench = "testdata/benchmark/data/mini-bench"

func TestLoadReadsTheReferenceLayout(t *testing.T) {
	b, err := Load(miniBench)
	if err != nil {
		t.Fatal(err)
	}
	abs, _ := filepath.Abs(miniBench)
	if b.Name != "mini-bench" || b.EvalDir != filepath.Join(abs, "eval") || b.WorkspaceSrc != filepath.Join(abs, "workspaces", "shared") ||
		b.StateDir != filepath.Join(abs, "openclaw_state") {
		t.Errorf("benchmark = %+v", b)
	}
	var got []string
	for _, d := range b.Days {
		var rounds []string
		for _, g := range d.Groups {
			for _, r := range g.Rounds {
				rounds = append(rounds, r.ID+":"+r.Type+":"+strings.Join(r.Eval.Answer, ""))
			}
		}
		got = append(got, d.ID+"/"+d.Arc+" "+strings.Join(rounds, " "))
	}
	want := []string{"day01/A r1:multi_choice:AC r2:file_check: r3:multi_choice:B", "day02/A r1:file_check: r2:multi_choice:ABD",
		"day03/B r1:multi_choice:C r2:file_check:"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("days (-want +got):\n%s", d)
	}
	seed, err := b.Seed(&b.Days[1])
	if err != nil {
		t.Fatal(err)
	}
	if len(seed) != 2 || seed[0].Role != "user" || !strings.Contains(seed[0].Text, "seed day02") || seed[1].Role != "assistant" {
		t.Errorf("seed = %+v", seed)
	}
	if _, err := Load(t.TempDir()); err == nil || !strings.Contains(err.Error(), "all_tests.json") {
		t.Errorf("an empty folder: %v", err)
	}
}

func TestPrepareWorkspaceShowsOnlyTheDay(t *testing.T) {
	b, err := Load(miniBench)
	if err != nil {
		t.Fatal(err)
	}
	ws := filepath.Join(t.TempDir(), "ws")
	if err := PrepareWorkspace(b.WorkspaceSrc, b.EvalDir, "day02", ws); err != nil {
		t.Fatal(err)
	}
	var files []string
	filepath.WalkDir(ws, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(ws, p)
			files = append(files, filepath.ToSlash(rel))
		}
		return err
	})
	want := []string{"AGENTS.md", "USER.md", "day02/README.md", "scripts/check_report.sh"}
	if d := cmp.Diff(want, files); d != "" {
		t.Errorf("workspace files (-want +got):\n%s", d)
	}
	u := Update{Type: "workspace", Action: "new", Path: "day02/naming_rules.md", Source: "naming_rules.md"}
	if err := ApplyUpdate(u, ws, b.EvalDir, "day02"); err != nil {
		t.Fatal(err)
	}
	u = Update{Type: "workspace", Action: "insert", Path: "day02/README.md", Source: "naming_rules.md", Param: []byte(`{"after": 1}`)}
	if err := ApplyUpdate(u, ws, b.EvalDir, "day02"); err != nil {
		t.Fatal(err)
	}
	u = Update{Type: "workspace", Action: "delete", Path: "day02/README.md", Param: []byte(`{"lines": [1, "2:4"]}`)}
	if err := ApplyUpdate(u, ws, b.EvalDir, "day02"); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(filepath.Join(ws, "day02", "README.md"))
	// Inserted after line 1: title, 3 lines of rules, blank, status; then
	// line 1 and the 0-based lines 2 and 3 deleted.
	if string(got) != "# Naming rules\n\nStatus: all good.\n" {
		t.Errorf("README after insert and delete = %q", got)
	}
	if err := ApplyUpdate(Update{Type: "workspace", Action: "new", Path: "../x", Source: "naming_rules.md"}, ws, b.EvalDir, "day02"); err == nil {
		t.Error("an update outside the workspace was applied")
	}
}

func TestBootstrapCI(t *testing.T) {
	lo, hi := bootstrapCI([]float64{0.25, 0.25, 0.25})
	if lo != 0.25 || hi != 0.25 {
		t.Errorf("constant differences: [%v, %v]", lo, hi)
	}
	d := []float64{0, 0, 0, 0, 1, 0, 0, 0.5}
	lo, hi = bootstrapCI(d)
	lo2, hi2 := bootstrapCI(d)
	if lo != lo2 || hi != hi2 {
		t.Errorf("not reproducible: [%v, %v] then [%v, %v]", lo, hi, lo2, hi2)
	}
	if m := mean(d); !(lo >= 0 && lo < m && m < hi && hi <= 1) {
		t.Errorf("interval [%v, %v] around %v", lo, hi, m)
	}
	if q := quantile([]float64{1, 2, 3, 4, 5}, 0.25); math.Abs(q-2) > 1e-12 {
		t.Errorf("quantile = %v", q)
	}
	if q := quantile([]float64{0, 10}, 0.975); math.Abs(q-9.75) > 1e-12 {
		t.Errorf("quantile = %v", q)
	}
}

// TestRelayCountsCalls sends, through the relay, an agent call (streamed)
// and a learning call (JSON): both reach the provider without the bench
// header and are counted with the usage the provider reported.
func TestRelayCountsCalls(t *testing.T) {
	up := fakeupstream.New()
	base, err := up.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer up.Close()
	up.SetDefault(fakeupstream.Reply{Text: "hello", Usage: &fakeupstream.Usage{PromptTokens: 100, CompletionTokens: 7}})
	relay, err := NewRelay()
	if err != nil {
		t.Fatal(err)
	}
	defer relay.Close()
	routed, err := relay.Route("skills", base+"/v1")
	if err != nil {
		t.Fatal(err)
	}
	c := openai.NewClient(option.WithBaseURL(routed), option.WithAPIKey("sk-x"), option.WithMaxRetries(0))
	ctx := context.Background()
	p := openai.ChatCompletionNewParams{Model: "fake-model", Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")},
		StreamOptions: openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)}}
	st := c.Chat.Completions.NewStreaming(ctx, p, option.WithHeader(BenchHeader, "agent"))
	for st.Next() {
	}
	if err := st.Err(); err != nil {
		t.Fatal(err)
	}
	st.Close()
	if _, err := c.Chat.Completions.New(ctx, p); err != nil {
		t.Fatal(err)
	}
	resp, err := http.Get(routed + "/models") // not a call: not counted
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	agent, learning := relay.Take("skills")
	want := store.BenchUsage{Calls: 1, PromptTokens: 100, CompletionTokens: 7}
	if agent != want || learning != want {
		t.Errorf("counted agent %+v, learning %+v; want %+v each", agent, learning, want)
	}
	if a, l := relay.Take("skills"); a != (store.BenchUsage{}) || l != (store.BenchUsage{}) {
		t.Errorf("Take did not reset: %+v %+v", a, l)
	}
	for _, r := range up.Requests() {
		if r.Method == http.MethodPost && (r.Header.Get(BenchHeader) != "" || r.Header.Get("Authorization") != "Bearer sk-x") {
			t.Errorf("the provider saw %s %s headers %v", r.Method, r.Path, r.Header)
		}
	}
}
