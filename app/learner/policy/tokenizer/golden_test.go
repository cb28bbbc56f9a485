package tokenizer

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// testdata is the fixture directory shared by the policy packages; see
// testdata/hfref for how its tokenizers and goldens were made.
const testdata = "../testdata"

var fixtures = []string{"tiny-qwen", "tiny-llama3"}

func readJSON(t testing.TB, v any, path ...string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(append([]string{testdata}, path...)...))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", filepath.Join(path...), err)
	}
}

func loadFixture(t testing.TB, name string) *Tokenizer {
	t.Helper()
	tok, err := LoadFile(filepath.Join(testdata, name, "tokenizer.json"))
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// stringCase is one case of testdata/cases/strings.json.
type stringCase struct {
	Name string `json:"name"`
	Text string `json:"text"`
}

func loadStrings(t testing.TB) []stringCase {
	var cases []stringCase
	readJSON(t, &cases, "cases", "strings.json")
	return cases
}

// encodeGolden is testdata/golden/encode.json, made by tokenizers.js.
type encodeGolden struct {
	Tokenizers map[string][]struct {
		Name    string `json:"name"`
		IDs     []int  `json:"ids"`
		Decoded string `json:"decoded"`
	} `json:"tokenizers"`
}

func TestEncodeGolden(t *testing.T) {
	t.Parallel()
	var golden encodeGolden
	readJSON(t, &golden, "golden", "encode.json")
	cases := loadStrings(t)
	for _, fx := range fixtures {
		tok := loadFixture(t, fx)
		want := golden.Tokenizers[fx]
		if len(want) != len(cases) {
			t.Fatalf("%s: %d goldens for %d strings: regenerate with testdata/hfref/regen.sh", fx, len(want), len(cases))
		}
		for i, c := range cases {
			t.Run(fx+"/"+c.Name, func(t *testing.T) {
				t.Parallel()
				ids := tok.Encode(c.Text)
				if diff := cmp.Diff(want[i].IDs, ids); diff != "" {
					t.Errorf("Encode(%q) differs from tokenizers.js (-want +got):\n%s", c.Text, diff)
				}
				if got := tok.Decode(ids); got != want[i].Decoded {
					t.Errorf("Decode = %q, tokenizers.js %q", got, want[i].Decoded)
				}
			})
		}
	}
}
