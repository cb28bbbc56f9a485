package toolparse

import (
	"encoding/json"
	"sort"
	"strings"
	"testing"
	"unicode"
)

// wrappers write one well-formed call in each format.
var wrappers = map[Format]func(name, args string) string{
	FormatHermes: func(name, args string) string {
		return "<tool_call>\n{\"name\": \"" + name + "\", \"arguments\": " + args + "}\n</tool_call>"
	},
	FormatLlama3: func(name, args string) string {
		return "<|python_tag|>{\"name\": \"" + name + "\", \"parameters\": " + args + "}"
	},
	FormatKimiK2: func(name, args string) string {
		return "<|tool_calls_section_begin|><|tool_call_begin|>functions." + name + ":0<|tool_call_argument_begin|>" +
			args + "<|tool_call_end|><|tool_calls_section_end|>"
	},
	FormatDeepSeekV3: func(name, args string) string {
		return "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>" + name + "\n```json\n" + args +
			"\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>"
	},
}

// nonSpace returns the runes of parts that are not whitespace, sorted,
// so that two texts can be compared as bags of characters.
func nonSpace(parts ...string) string {
	var rs []rune
	for _, s := range parts {
		for _, r := range s {
			if !unicode.IsSpace(r) {
				rs = append(rs, r)
			}
		}
	}
	sort.Slice(rs, func(i, j int) bool { return rs[i] < rs[j] })
	return string(rs)
}

// identifier keeps the letters, digits and underscores of s.
func identifier(s string) string {
	out := strings.Map(func(r rune) rune {
		if r == '_' || r < 128 && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
			return r
		}
		return -1
	}, s)
	if out == "" {
		return "f"
	}
	return out
}

// fuzzFormat checks, for prefix + a well-formed call + suffix:
//   - every non-space character of the input is in the content, the
//     reasoning or the text taken out as markup and calls, and nothing is
//     added (so nothing is lost, whatever the prefix and suffix hold);
//   - every call has a name and a JSON object as arguments;
//   - when prefix and suffix hold no markup, the call is found as written
//     and the content is theirs.
func fuzzFormat(f *testing.F, format Format) {
	f.Add("Let me check.\n\n", "\nDone.", "get_weather", "Paris")
	f.Add("", "", "f", "")
	f.Add("<think>plan</think>", "", "search", "中文 🎉")
	f.Add("reasoning</think>\n", "", "a", "x\"y\\z")
	f.Add("<tool_call>{", "</tool_call>", "b", "<|tool_call_end|>")
	f.Add("{\"name\": \"x\"}", "; {", "c", "```")
	f.Add("<|tool_calls_section_begin|>", "<｜tool▁calls▁end｜>", "d", "")
	wrap := wrappers[format]
	f.Fuzz(func(t *testing.T, prefix, suffix, name, value string) {
		name = identifier(name)
		argBytes, _ := json.Marshal(map[string]any{"value": value, "n": 1})
		args := string(argBytes)
		text := prefix + wrap(name, args) + suffix
		got, removed := parse(text, format)
		all := append([]string{got.Content, got.Reasoning}, removed...)
		if a, b := nonSpace(text), nonSpace(all...); a != b {
			t.Fatalf("characters lost or added:\ninput  %q\nresult %+v\ntaken %q", text, got, removed)
		}
		for _, c := range got.ToolCalls {
			if c.Name == "" || !json.Valid([]byte(c.Arguments)) || !strings.HasPrefix(c.Arguments, "{") {
				t.Fatalf("bad call %+v from %q", c, text)
			}
		}
		if !clean(prefix, format) || !clean(suffix, format) {
			return
		}
		if format == FormatLlama3 && strings.TrimSpace(suffix) != "" {
			return // a Llama 3 call must end the message
		}
		if len(got.ToolCalls) != 1 || got.ToolCalls[0].Name != name || got.ToolCalls[0].Arguments != args {
			t.Fatalf("call not found in %q: %+v", text, got)
		}
		if nonSpace(got.Content) != nonSpace(prefix, suffix) {
			t.Fatalf("content %q, want the text around the call in %q", got.Content, text)
		}
	})
}

// clean reports whether s holds no character that starts markup.
func clean(s string, format Format) bool {
	return !strings.ContainsAny(s, "<{｜")
}

func FuzzParseHermes(f *testing.F)     { fuzzFormat(f, FormatHermes) }
func FuzzParseLlama3(f *testing.F)     { fuzzFormat(f, FormatLlama3) }
func FuzzParseKimiK2(f *testing.F)     { fuzzFormat(f, FormatKimiK2) }
func FuzzParseDeepSeekV3(f *testing.F) { fuzzFormat(f, FormatDeepSeekV3) }
