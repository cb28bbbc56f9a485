package anthropic

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// FuzzToolsAgrees holds readTools to decoding: whenever it answers, its
// tools equal what json.Unmarshal gives, and decoding does not fail.
func FuzzToolsAgrees(f *testing.F) {
	for _, s := range []string{
		`[]`, `[{"name":"read","description":"Reads a file.","input_schema":{"type":"object","properties":{"p":{"type":"string"}}}}]`,
		`[{"type":"custom","name":"x","cache_control":{"type":"ephemeral"}},{"type":"web_search_20250305","name":"web_search","max_uses":5}]`,
		`[{"name":"a","NAME":"b"}]`, `[{"name":"a","name":"b"}]`, `[{"name":null,"description":5}]`, `[{"input_schema":null}]`,
		`[null]`, `[1]`, `{"name":"x"}`, `"tools"`, `[{"n\u0061me":"esc \"q\" \u00e9"}]`, `[{"Name":"x"}]`, `[{"ſame":"x"}]`,
		`[{"input_ſchema":{}}]`, `[{"name":"a"},{"name":"b","extra":[1,{"x":null}]}]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if !json.Valid(data) {
			t.Skip()
		}
		got, ok := readTools(data)
		var want []Tool
		err := json.Unmarshal(data, &want)
		if !ok {
			return
		}
		if err != nil {
			t.Fatalf("readTools answered where decoding fails (%v): %s", err, data)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("readTools (-decoded +read):\n%s\n%s", diff, data)
		}
	})
}

// TestReadToolsAnswers: an ordinary tools list (as Claude Code sends
// one) is read without decoding, so the fuzz test above is not vacuous.
func TestReadToolsAnswers(t *testing.T) {
	raw := []byte(`[{"name":"Read","description":"Reads a file from the local filesystem.","input_schema":{"type":"object",` +
		`"properties":{"file_path":{"type":"string"}},"required":["file_path"]}},{"type":"custom","name":"Bash",` +
		`"input_schema":{"type":"object"},"cache_control":{"type":"ephemeral"}}]`)
	tools, ok := readTools(raw)
	if !ok || len(tools) != 2 || tools[0].Name != "Read" || tools[1].Type != "custom" || string(tools[1].CacheControl) != `{"type":"ephemeral"}` {
		t.Fatalf("readTools = %+v, %v", tools, ok)
	}
}
