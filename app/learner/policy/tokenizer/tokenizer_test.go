package tokenizer

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestTokenLookups(t *testing.T) {
	t.Parallel()
	tok := loadFixture(t, "tiny-qwen")
	for _, tc := range []struct {
		token   string
		special bool
	}{
		{"<|endoftext|>", true}, {"<|im_start|>", true}, {"<|im_end|>", true},
		{"<tool_call>", false}, {"</tool_call>", false}, {"<think>", false}, {"</think>", false},
	} {
		id, ok := tok.TokenID(tc.token)
		if !ok {
			t.Fatalf("TokenID(%q) not found", tc.token)
		}
		if got, _ := tok.Token(id); got != tc.token {
			t.Errorf("Token(%d) = %q, want %q", id, got, tc.token)
		}
		if tok.IsSpecial(id) != tc.special {
			t.Errorf("IsSpecial(%q) = %v, want %v", tc.token, !tc.special, tc.special)
		}
		if got := tok.Encode(tc.token); !cmp.Equal(got, []int{id}) {
			t.Errorf("Encode(%q) = %v, want [%d]", tc.token, got, id)
		}
	}
	if id, ok := tok.TokenID("Ġthe"); !ok || tok.Decode([]int{id}) != " the" {
		t.Errorf("TokenID(Ġthe) = %d, %v; want the token of \" the\"", id, ok)
	}
	if _, ok := tok.Token(-1); ok {
		t.Error("Token(-1) found")
	}
	if _, ok := tok.Token(tok.VocabSize()); ok {
		t.Error("Token(VocabSize()) found")
	}
	if n := len(tok.AddedTokens()); n != 9 {
		t.Errorf("AddedTokens: %d, want 9", n)
	}
}

func TestEncodeOrdinaryIgnoresAddedTokens(t *testing.T) {
	t.Parallel()
	tok := loadFixture(t, "tiny-qwen")
	text := "<|im_end|> and <tool_call>"
	ids := tok.EncodeOrdinary(text)
	for _, id := range ids {
		if tok.added[id] {
			t.Fatalf("EncodeOrdinary(%q) = %v contains added token %d", text, ids, id)
		}
	}
	if tok.Decode(ids) != text {
		t.Errorf("Decode(EncodeOrdinary) = %q", tok.Decode(ids))
	}
	if len(tok.Encode(text)) >= len(ids) {
		t.Errorf("Encode should use the added tokens and be shorter: %d vs %d", len(tok.Encode(text)), len(ids))
	}
}

// mutateFixture loads tiny-qwen's tokenizer.json as a map, lets change
// alter it, and parses the result.
func mutateFixture(t *testing.T, change func(m map[string]any)) (*Tokenizer, error) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(testdata, "tiny-qwen", "tokenizer.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	change(m)
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return Parse(out)
}

func TestMergesPairForm(t *testing.T) {
	t.Parallel()
	stringForm := loadFixture(t, "tiny-qwen")
	pairForm, err := mutateFixture(t, func(m map[string]any) {
		model := m["model"].(map[string]any)
		var pairs [][]string
		for _, s := range model["merges"].([]any) {
			pairs = append(pairs, strings.SplitN(s.(string), " ", 2))
		}
		model["merges"] = pairs
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range loadStringTexts(t) {
		if a, b := stringForm.Encode(s), pairForm.Encode(s); !cmp.Equal(a, b) {
			t.Errorf("%q: string merges %v, pair merges %v", s, a, b)
		}
	}
}

func TestRefusesOtherTokenizers(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		change func(m map[string]any)
		want   string
	}{
		{"wordpiece", func(m map[string]any) { m["model"] = map[string]any{"type": "WordPiece", "vocab": map[string]int{}} }, `unsupported model type "WordPiece"`},
		{"unigram", func(m map[string]any) { m["model"] = map[string]any{"type": "Unigram", "vocab": [][]any{{"a", -1.0}}} }, `unsupported model type "Unigram"`},
		{"sentencepiece bpe", func(m map[string]any) { m["model"].(map[string]any)["byte_fallback"] = true }, "byte_fallback"},
		{"metaspace", func(m map[string]any) {
			m["pre_tokenizer"] = map[string]any{"type": "Metaspace", "replacement": "▁"}
		}, `unsupported pre_tokenizer "Metaspace"`},
		{"no byte level", func(m map[string]any) {
			m["pre_tokenizer"] = map[string]any{"type": "Digits", "individual_digits": true}
		}, "no ByteLevel step"},
		{"lowercase normalizer", func(m map[string]any) { m["normalizer"] = map[string]any{"type": "Lowercase"} }, `unsupported normalizer "Lowercase"`},
		{"sentencepiece decoder", func(m map[string]any) { m["decoder"] = map[string]any{"type": "Metaspace"} }, `unsupported decoder "Metaspace"`},
		{"merge out of vocab", func(m map[string]any) {
			model := m["model"].(map[string]any)
			model["merges"] = append(model["merges"].([]any), "zz qq")
		}, "not in the vocab"},
		{"bad merge", func(m map[string]any) { m["model"].(map[string]any)["merges"] = []any{"abc"} }, "not two tokens"},
		{"bad regex", func(m map[string]any) {
			m["pre_tokenizer"] = map[string]any{"type": "Split", "pattern": map[string]any{"Regex": "(["}, "behavior": "Isolated"}
		}, "compile split pattern"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := mutateFixture(t, tt.change)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error = %v, want it to mention %q", err, tt.want)
			}
		})
	}
}

// TestOtherPreTokenizers checks a GPT-2 style file (ByteLevel with
// use_regex, add_prefix_space) and a generic regex split on regexp2.
func TestOtherPreTokenizers(t *testing.T) {
	t.Parallel()
	gpt2, err := mutateFixture(t, func(m map[string]any) {
		m["normalizer"] = nil
		m["pre_tokenizer"] = map[string]any{"type": "ByteLevel", "add_prefix_space": true}
	})
	if err != nil {
		t.Fatal(err)
	}
	ids := gpt2.Encode("Hello world")
	if got := gpt2.Decode(ids); got != " Hello world" {
		t.Errorf("add_prefix_space: Decode(Encode) = %q, want a leading space", got)
	}
	generic, err := mutateFixture(t, func(m map[string]any) {
		m["pre_tokenizer"] = map[string]any{"type": "Sequence", "pretokenizers": []any{
			map[string]any{"type": "Split", "pattern": map[string]any{"Regex": `\p{N}{1,2}(?=x)`}, "behavior": "Isolated"},
			map[string]any{"type": "ByteLevel", "use_regex": false},
		}}
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"123x 45y", "abc"} {
		if got := generic.Decode(generic.Encode(s)); got != s {
			t.Errorf("regexp2 split: round trip of %q = %q", s, got)
		}
	}
}
