package policy

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestTokenizerRepo(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ model, want string }{
		{"Qwen/Qwen3-8B", "Qwen/Qwen3-8B"},
		{"Qwen/Qwen3-8B:peft:131072", "Qwen/Qwen3-8B"},
		{"moonshotai/Kimi-K2-Thinking/fp8", "moonshotai/Kimi-K2-Thinking"},
		{"meta-llama/Llama-3.1-8B-Instruct", llama3Tokenizer},
		{"meta-llama/Llama-3.3-70B-Instruct", llama3Tokenizer},
		{"deepseek-ai/DeepSeek-V3.1", "deepseek-ai/DeepSeek-V3.1"},
	} {
		if got := TokenizerRepo(tc.model); got != tc.want {
			t.Errorf("TokenizerRepo(%q) = %q, want %q", tc.model, got, tc.want)
		}
	}
}

func TestModelIDOf(t *testing.T) {
	t.Parallel()
	for path, want := range map[string]string{
		"tinker://sess:train:0/sampler_weights/step-3": "sess:train:0",
		"":              "",
		"Qwen/Qwen3-8B": "",
	} {
		if got := modelIDOf(path); got != want {
			t.Errorf("modelIDOf(%q) = %q, want %q", path, got, want)
		}
	}
}

func TestRepoDirRefusesNonRepoIDs(t *testing.T) {
	t.Parallel()
	h := hub{dir: t.TempDir()}
	for _, repo := range []string{"", "../etc", "a/../../b", "a/b/c", "/abs", "a\\b", "org/.hidden/x"} {
		if _, err := h.repoDir(repo); err == nil {
			t.Errorf("repoDir(%q) accepted", repo)
		}
	}
	if dir, err := h.repoDir("Qwen/Qwen3-8B"); err != nil || dir != filepath.Join(h.dir, "Qwen", "Qwen3-8B") {
		t.Errorf("repoDir(Qwen/Qwen3-8B) = %q, %v", dir, err)
	}
}

func TestHubFetchesOnceThenServesFromCache(t *testing.T) {
	t.Parallel()
	th := NewTestHub(t, map[string]string{"Qwen/Qwen3-8B": "testdata/tiny-qwen"})
	cache := t.TempDir()
	h := hub{endpoint: th.URL(), dir: cache, http: http.DefaultClient}
	ctx := context.Background()
	for range 3 {
		rt, err := h.load(ctx, "Qwen/Qwen3-8B", "Qwen/Qwen3-8B")
		if err != nil {
			t.Fatal(err)
		}
		if rt.tok == nil || len(rt.stopIDs) == 0 {
			t.Fatalf("runtime %+v", rt)
		}
	}
	for _, f := range []string{"tokenizer.json", "tokenizer_config.json", "chat_template.jinja"} {
		if n := th.Hits("/Qwen/Qwen3-8B/resolve/main/" + f); n != 1 {
			t.Errorf("%s fetched %d times, want 1", f, n)
		}
	}
	for _, f := range []string{"tokenizer.json", "tokenizer_config.json"} {
		want, _ := os.ReadFile(filepath.Join("testdata/tiny-qwen", f))
		got, err := os.ReadFile(filepath.Join(cache, "Qwen", "Qwen3-8B", f))
		if err != nil || string(got) != string(want) {
			t.Errorf("cached %s differs from the hub's (err %v)", f, err)
		}
	}
	if _, err := os.Stat(filepath.Join(cache, "Qwen", "Qwen3-8B", "chat_template.jinja")); !os.IsNotExist(err) {
		t.Errorf("a file the repo lacks was cached: %v", err)
	}

	th.SetDown(true)
	offline := hub{endpoint: th.URL(), dir: cache, http: http.DefaultClient}
	if _, err := offline.load(ctx, "Qwen/Qwen3-8B", "Qwen/Qwen3-8B"); err != nil {
		t.Fatalf("cached tokenizer with the hub down: %v", err)
	}
}

func TestHubFailureLeavesNoPartialCache(t *testing.T) {
	t.Parallel()
	th := NewTestHub(t, map[string]string{"Qwen/Qwen3-8B": "testdata/tiny-qwen"})
	th.SetDown(true)
	cache := t.TempDir()
	h := hub{endpoint: th.URL(), dir: cache, http: http.DefaultClient}
	_, err := h.load(context.Background(), "Qwen/Qwen3-8B", "Qwen/Qwen3-8B")
	if err == nil || !strings.Contains(err.Error(), "http 503") {
		t.Fatalf("load with the hub down: %v", err)
	}
	if _, err := os.Stat(filepath.Join(cache, "Qwen", "Qwen3-8B", "tokenizer.json")); !os.IsNotExist(err) {
		t.Errorf("tokenizer.json cached after a failed fetch: %v", err)
	}
	if _, err := h.load(context.Background(), "Unknown/Model", "Unknown/Model"); err == nil || !strings.Contains(err.Error(), "http 503") {
		t.Errorf("unknown repo: %v", err)
	}
	th.SetDown(false)
	if _, err := h.load(context.Background(), "Unknown/Model", "Unknown/Model"); err == nil || !strings.Contains(err.Error(), "not on the hub") {
		t.Errorf("unknown repo: %v", err)
	}
}

// TestHubFetchesKimiTiktoken fetches a repo without tokenizer.json, as
// moonshotai/Kimi-K2.5 is: its tiktoken.model is cached instead, and
// later loads need no network.
func TestHubFetchesKimiTiktoken(t *testing.T) {
	t.Parallel()
	const repo = "moonshotai/Kimi-K2.5"
	th := NewTestHub(t, map[string]string{repo: "testdata/tiny-kimi"})
	cache := t.TempDir()
	h := hub{endpoint: th.URL(), dir: cache, http: http.DefaultClient}
	for range 2 {
		rt, err := h.load(context.Background(), repo, repo)
		if err != nil {
			t.Fatal(err)
		}
		if rt.format != "kimi_k2" || len(rt.stopIDs) != 2 || rt.stopTexts[0] != "[EOS]" || rt.stopTexts[1] != "<|im_end|>" {
			t.Fatalf("runtime format %q stops %v %q", rt.format, rt.stopIDs, rt.stopTexts)
		}
	}
	for file, want := range map[string]int{"tokenizer.json": 1, "tiktoken.model": 1, "tokenizer_config.json": 1, "chat_template.jinja": 1} {
		if n := th.Hits("/" + repo + "/resolve/main/" + file); n != want {
			t.Errorf("%s asked %d times, want %d", file, n, want)
		}
	}
	for _, f := range []string{"tiktoken.model", "tokenizer_config.json", "chat_template.jinja"} {
		want, _ := os.ReadFile(filepath.Join("testdata/tiny-kimi", f))
		got, err := os.ReadFile(filepath.Join(cache, "moonshotai", "Kimi-K2.5", f))
		if err != nil || string(got) != string(want) {
			t.Errorf("cached %s differs from the hub's (err %v)", f, err)
		}
	}
	th.SetDown(true)
	if _, err := h.load(context.Background(), repo, repo); err != nil {
		t.Fatalf("cached Kimi tokenizer with the hub down: %v", err)
	}
	noTok := t.TempDir()
	if err := os.WriteFile(filepath.Join(noTok, "tokenizer_config.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	empty := NewTestHub(t, map[string]string{"x/none": noTok})
	_, err := hub{endpoint: empty.URL(), dir: t.TempDir(), http: http.DefaultClient}.load(context.Background(), "x/none", "x/none")
	if err == nil || !strings.Contains(err.Error(), "none of tokenizer.json, tiktoken.model") {
		t.Errorf("repo without a tokenizer: %v", err)
	}
}
