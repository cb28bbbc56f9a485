package tokenizer

import (
	"encoding/base64"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func loadKimi(t testing.TB) *Tokenizer {
	t.Helper()
	tok, err := LoadTiktokenDir(filepath.Join(testdata, "tiny-kimi"))
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// kimiGolden is testdata/golden/kimi.json's encode part, made by OpenAI's
// tiktoken (npm tiktoken, its Rust core in WASM) with Kimi's pat_str.
type kimiGolden struct {
	Encode []struct {
		Name    string `json:"name"`
		IDs     []int  `json:"ids"`
		Decoded string `json:"decoded"`
	} `json:"encode"`
}

func TestKimiEncodeGolden(t *testing.T) {
	t.Parallel()
	tok := loadKimi(t)
	var golden kimiGolden
	readJSON(t, &golden, "golden", "kimi.json")
	var kimiCases []stringCase
	readJSON(t, &kimiCases, "cases", "kimi_strings.json")
	cases := append(loadStrings(t), kimiCases...)
	if len(golden.Encode) != len(cases) {
		t.Fatalf("%d goldens for %d strings: regenerate with testdata/hfref/regen.sh", len(golden.Encode), len(cases))
	}
	for i, c := range cases {
		want := golden.Encode[i]
		t.Run(c.Name, func(t *testing.T) {
			t.Parallel()
			if want.Name != c.Name {
				t.Fatalf("golden %q for case %q: regenerate", want.Name, c.Name)
			}
			ids := tok.Encode(c.Text)
			if diff := cmp.Diff(want.IDs, ids); diff != "" {
				t.Errorf("Encode(%q) differs from tiktoken (-want +got):\n%s", c.Text, diff)
			}
			if got := tok.Decode(ids); got != want.Decoded {
				t.Errorf("Decode = %q, tiktoken %q", got, want.Decoded)
			}
		})
	}
}

func TestKimiSpecialTokens(t *testing.T) {
	t.Parallel()
	tok := loadKimi(t)
	const base = 1280 // len(ranks) of tiny-kimi
	for _, tc := range []struct {
		token string
		id    int
	}{
		{"[BOS]", base}, {"[EOS]", base + 1}, {"<|im_end|>", base + 2}, {"<|im_middle|>", base + 17},
		{"<|tool_calls_section_begin|>", base + 11}, {"<think>", base + 22}, {"[PAD]", base + 255},
		{"<|reserved_token_1285|>", base + 5}, {"<|reserved_token_1533|>", base + 253},
	} {
		id, ok := tok.TokenID(tc.token)
		if !ok || id != tc.id {
			t.Errorf("TokenID(%q) = %d, %v; want %d", tc.token, id, ok, tc.id)
		}
		if !tok.IsSpecial(id) {
			t.Errorf("IsSpecial(%q) = false", tc.token)
		}
		if got := tok.Encode(tc.token); !slices.Equal(got, []int{tc.id}) {
			t.Errorf("Encode(%q) = %v, want [%d]", tc.token, got, tc.id)
		}
		if got := tok.EncodeOrdinary(tc.token); len(got) < 2 {
			t.Errorf("EncodeOrdinary(%q) = %v: a special token was recognised", tc.token, got)
		}
		if got := tok.Decode([]int{tc.id}); got != tc.token {
			t.Errorf("Decode(%d) = %q", tc.id, got)
		}
	}
	if got := tok.VocabSize(); got != base+256 {
		t.Errorf("VocabSize = %d, want %d", got, base+256)
	}
	if id, ok := tok.TokenID("Ġthe"); !ok || tok.Decode([]int{id}) != " the" {
		t.Errorf(`TokenID("Ġthe") = %d, %v: tokens are spelled byte-level`, id, ok)
	}
}

// TestKimiLongRuns checks the cuts of Kimi's encode: a run of more than
// 25,000 non-whitespace characters is encoded in pieces of 25,000, so a
// special token across the cut is not recognised.
func TestKimiLongRuns(t *testing.T) {
	t.Parallel()
	tok := loadKimi(t)
	head := strings.Repeat("ab", kimiMaxRun/2-1) // 24,998 characters
	text := head + "<|im_end|>"                  // the special token spans the cut
	want := append(tok.Encode(head+"<|"), tok.Encode("im_end|>")...)
	if got := tok.Encode(text); !slices.Equal(got, want) {
		t.Errorf("the run was not cut at %d characters", kimiMaxRun)
	}
	if got := tok.Encode(head + " <|im_end|>"); !slices.Contains(got, 1282) {
		t.Error("a space resets the run: <|im_end|> should be recognised")
	}
	var parts []string
	chunks(strings.Repeat("é", kimiMaxRun*2+5), func(s string) { parts = append(parts, s) })
	if len(parts) != 3 || utf8Len(parts[0]) != kimiMaxRun || utf8Len(parts[2]) != 5 {
		t.Errorf("cut by characters, not bytes: got %d parts", len(parts))
	}
	spaces := strings.Repeat(" ", kimiMaxRun+1) + "\x1c"
	parts = nil
	chunks(spaces, func(s string) { parts = append(parts, s) })
	if len(parts) != 2 || len(parts[1]) != 2 {
		t.Errorf("whitespace run (U+001C counts as space, as Python's isspace): %d parts", len(parts))
	}
}

func utf8Len(s string) int { return len([]rune(s)) }

func TestParseTiktokenErrors(t *testing.T) {
	t.Parallel()
	var bytes strings.Builder
	for b := 0; b < 256; b++ {
		fmt.Fprintf(&bytes, "%s %d\n", base64.StdEncoding.EncodeToString([]byte{byte(b)}), b)
	}
	good := bytes.String()
	const kimi = `{"auto_map": {"AutoTokenizer": ["tokenization_kimi.TikTokenTokenizer", null]}}`
	tests := []struct {
		name, model, config, want string
	}{
		{"other class", good, `{"tokenizer_class": "TikTokenTokenizer", "auto_map": {"AutoTokenizer": ["tokenization_x.T", null]}}`, "not supported"},
		{"no auto_map", good, `{}`, "not supported"},
		{"bad config", good, `{`, "parse tokenizer_config.json"},
		{"one field", good + "YWI=\n", kimi, "line 257"},
		{"bad base64", good + "!!! 256\n", kimi, "not base64"},
		{"bad rank", good + "YWI= x\n", kimi, "not a token id"},
		{"rank gap", good + "YWI= 257\n", kimi, "no token has rank 256"},
		{"rank twice", good + "YWI= 255\n", kimi, "rank 255 given twice"},
		{"token twice", good + "AA== 256\n", kimi, "listed twice"},
		{"missing byte", strings.Replace(good, "AA== 0\n", "YWI= 0\n", 1), kimi, "byte 0x00"},
		{"special out of range", good, `{"auto_map": {"AutoTokenizer": "tokenization_kimi.TikTokenTokenizer"}, "added_tokens_decoder": {"10": {"content": "[BOS]"}}}`, "outside the special range"},
	}
	for _, tt := range tests {
		_, err := ParseTiktoken([]byte(tt.model), []byte(tt.config))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want one containing %q", tt.name, err, tt.want)
		}
	}
	tok, err := ParseTiktoken([]byte(strings.ReplaceAll(good, "\n", "\r\n")), []byte(kimi))
	if err != nil {
		t.Fatalf("CRLF lines: %v", err)
	}
	if got := tok.Encode("hi"); !slices.Equal(got, []int{'h' & 0xff, 'i' & 0xff}) {
		t.Errorf("bytes only: Encode(hi) = %v", got)
	}
}
