package toolparse

import (
	"strings"
	"testing"
)

func TestSafePrefix(t *testing.T) {
	t.Parallel()
	tests := []struct {
		text   string
		format Format
		want   string // the safe prefix
	}{
		{"Hello world", FormatHermes, "Hello world"},
		{"Let me check.<tool_call>{", FormatHermes, "Let me check."},
		{"Let me check.<tool_", FormatHermes, "Let me check."},
		{"a < b", FormatHermes, "a < b"},
		{"a <", FormatHermes, "a "},
		{"answer<think>", FormatHermes, "answer"},
		{"done</thi", FormatHermes, "done"},
		{"{\"name\": \"f\"", FormatLlama3, ""},
		{"Plain text {with braces}", FormatLlama3, "Plain text {with braces}"},
		{"ok<|python_tag|>{", FormatLlama3, "ok"},
		{"ok<|python", FormatLlama3, "ok"},
		{"x<|tool_calls_section_begin|>", FormatKimiK2, "x"},
		{"x<|tool_call_sec", FormatKimiK2, "x"},
		{"y<｜tool▁calls▁begin｜>", FormatDeepSeekV3, "y"},
		{"y<｜tool", FormatDeepSeekV3, "y"},
	}
	for _, tt := range tests {
		if got := tt.text[:SafePrefix(tt.text, tt.format)]; got != tt.want {
			t.Errorf("SafePrefix(%q, %s) gives %q, want %q", tt.text, tt.format, got, tt.want)
		}
	}
}

// streamAll feeds text to a Stream in pieces of n bytes (whole runes) and
// returns the relayed content and reasoning.
func streamAll(s *Stream, text string, n int) (content, reasoning string) {
	var c, r strings.Builder
	runes := []rune(text)
	for i := 0; i < len(runes); i += n {
		dc, dr := s.Write(string(runes[i:min(i+n, len(runes))]))
		c.WriteString(dc)
		r.WriteString(dr)
	}
	return c.String(), r.String()
}

func TestStream(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name               string
		format             Format
		thinking           bool
		text               string
		content, reasoning string
		calls              int
	}{
		{"plain", FormatHermes, false, "Hello there,\n\nhow are you?\n", "Hello there,\n\nhow are you?", "", 0},
		{"think block then answer", FormatHermes, false, "<think>\nstep one\nstep two\n</think>\n\nThe answer is 4.", "The answer is 4.", "step one\nstep two", 0},
		{"prompt opened think", FormatHermes, true, "\nthinking hard\n</think>\n\nDone.", "Done.", "thinking hard", 0},
		{"content then call", FormatHermes, false, "Let me check the weather.\n\n<tool_call>\n{\"name\": \"w\", \"arguments\": {}}\n</tool_call>", "Let me check the weather.", "", 1},
		{"think, content, call", FormatHermes, true, "plan</think>\n\nChecking.<tool_call>{\"name\": \"w\", \"arguments\": {\"é\": 1}}</tool_call>", "Checking.", "plan", 1},
		{"llama json call held", FormatLlama3, false, "{\"name\": \"f\", \"parameters\": {}}", "", "", 1},
		{"llama text", FormatLlama3, false, "Paris is the capital.", "Paris is the capital.", "", 0},
		{"kimi call", FormatKimiK2, false, "Sure.<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{}<|tool_call_end|><|tool_calls_section_end|>", "Sure.", "", 1},
		{"kimi k2.5 thinking, content, call", FormatKimiK2, true, "look it up</think>Checking.<|tool_calls_section_begin|><|tool_call_begin|>functions.w:0<|tool_call_argument_begin|>{\"city\": \"北京\"}<|tool_call_end|><|tool_calls_section_end|>", "Checking.", "look it up", 1},
		{"deepseek call", FormatDeepSeekV3, false, "On it.\n<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>f<｜tool▁sep｜>{}<｜tool▁call▁end｜><｜tool▁calls▁end｜>", "On it.", "", 1},
		{"angle brackets in text", FormatHermes, false, "if a < b and b > c then <b>bold</b>", "if a < b and b > c then <b>bold</b>", "", 0},
	}
	for _, tt := range tests {
		for _, n := range []int{1, 2, 3, 7, 1000} {
			s := NewStream(tt.format, tt.thinking)
			content, reasoning := streamAll(s, tt.text, n)
			if content != tt.content || reasoning != tt.reasoning {
				t.Errorf("%s, pieces of %d: relayed content %q reasoning %q, want %q and %q",
					tt.name, n, content, reasoning, tt.content, tt.reasoning)
			}
			res := s.Result()
			if len(res.ToolCalls) != tt.calls || strings.TrimSpace(res.Content) != tt.content || res.Reasoning != tt.reasoning {
				t.Errorf("%s, pieces of %d: Result = %+v", tt.name, n, res)
			}
		}
	}
}

func TestStreamStoppedInsideThinking(t *testing.T) {
	t.Parallel()
	s := NewStream(FormatHermes, true)
	_, reasoning := streamAll(s, "still going <tool_call> and on", 4)
	if reasoning != "still going <tool_call> and on" {
		t.Errorf("relayed reasoning %q", reasoning)
	}
	if res := s.Result(); res.Reasoning != "still going <tool_call> and on" || res.Content != "" || len(res.ToolCalls) != 0 {
		t.Errorf("Result = %+v", res)
	}
}

// FuzzStream checks that a Stream relays no markup and invents nothing,
// however the text is cut into pieces.
func FuzzStream(f *testing.F) {
	f.Add("<think>a</think>b<tool_call>{}</tool_call>", uint8(3), false)
	f.Add("plan</think>\n\nok <tool_", uint8(1), true)
	f.Add("x<|python_tag|>{", uint8(2), false)
	f.Fuzz(func(t *testing.T, text string, n uint8, thinking bool) {
		for _, format := range []Format{FormatHermes, FormatLlama3, FormatKimiK2, FormatDeepSeekV3} {
			s := NewStream(format, thinking)
			content, reasoning := streamAll(s, text, int(n%16)+1)
			for _, m := range append([]string{thinkOpen, thinkClose}, markersOf(format)...) {
				if strings.Contains(content, m) {
					t.Fatalf("%s: relayed content %q holds %q", format, content, m)
				}
			}
			if !subBag(nonSpace(content, reasoning), nonSpace(text)) {
				t.Fatalf("%s: relayed %q / %q, more than the text %q", format, content, reasoning, text)
			}
			_ = s.Result()
		}
	})
}

// subBag reports whether the sorted runes of a are a sub-multiset of b's.
func subBag(a, b string) bool {
	rb := []rune(b)
	j := 0
	for _, r := range a {
		for j < len(rb) && rb[j] < r {
			j++
		}
		if j == len(rb) || rb[j] != r {
			return false
		}
		j++
	}
	return true
}
