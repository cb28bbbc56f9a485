package toolparse

import (
	"strings"
	"unicode"
)

// callMarkers are the texts that may start a tool call in each format.
var callMarkers = map[Format][]string{
	FormatHermes:     {hermesOpen},
	FormatLlama3:     {pythonTag},
	FormatKimiK2:     kimiSection.begins,
	FormatDeepSeekV3: deepseekSection.begins,
}

func markersOf(f Format) []string {
	if m, ok := callMarkers[f]; ok {
		return m
	}
	return callMarkers[FormatHermes]
}

// SafePrefix returns how many bytes at the start of text can be relayed
// as content while the completion is still arriving: it stops before the
// first think or tool-call marker and before a partial marker at the end.
// For Llama 3, a message that starts with "{" may be a JSON call and is
// held whole.
func SafePrefix(text string, f Format) int {
	if f == FormatLlama3 && strings.HasPrefix(strings.TrimSpace(text), "{") {
		return 0
	}
	markers := append([]string{thinkOpen, thinkClose}, markersOf(f)...)
	limit, _ := indexAny(text, markers)
	if limit < 0 {
		limit = len(text) - partialSuffix(text, markers)
	}
	return limit
}

// partialSuffix returns the length of the longest end of text that is the
// start of a marker.
func partialSuffix(text string, markers []string) int {
	best := 0
	for _, m := range markers {
		for k := min(len(m)-1, len(text)); k > best; k-- {
			if strings.HasSuffix(text, m[:k]) {
				best = k
				break
			}
		}
	}
	return best
}

// Stream splits a completion into content and reasoning as it arrives,
// for relaying, and holds back tool calls: once a call marker appears no
// more content is returned, and Result gives the whole parse at the end.
// Whitespace at the start of each part and before a marker is dropped,
// and trailing whitespace held until more text follows, so the relayed
// text matches Result's trimmed content and reasoning in the common cases. A Stream
// is not safe for concurrent use.
type Stream struct {
	f        Format
	thinking bool // the prompt opened a think block
	text     strings.Builder
	pos      int  // bytes of text handled
	inThink  bool // inside a think block
	held     bool // a call marker was seen
	started  [2]bool
}

// NewStream returns a Stream. thinking says that the prompt ended inside
// an open <think> block (Qwen3 and DeepSeek V3.1 with thinking on), so the
// completion starts with reasoning.
func NewStream(f Format, thinking bool) *Stream {
	return &Stream{f: f, thinking: thinking, inThink: thinking}
}

// Write adds text and returns the content and reasoning that can be
// relayed now.
func (s *Stream) Write(delta string) (content, reasoning string) {
	s.text.WriteString(delta)
	all := s.text.String()
	var c, r strings.Builder
	for !s.held && s.pos < len(all) {
		rest := all[s.pos:]
		if s.inThink {
			if !s.advance(&r, rest, []string{thinkClose}, 1) {
				break
			}
			s.inThink = false
			continue
		}
		if s.f == FormatLlama3 && !s.started[0] && strings.HasPrefix(strings.TrimSpace(rest), "{") {
			s.held = true // maybe a JSON call: wait for the end
			break
		}
		// A stray </think> is dropped, not relayed.
		markers := append([]string{thinkOpen, thinkClose}, markersOf(s.f)...)
		_, m := indexAny(rest, markers)
		if !s.advance(&c, rest, markers, 0) {
			break
		}
		switch m {
		case thinkOpen:
			s.inThink = true
		case thinkClose:
		default:
			s.held = true
		}
	}
	return c.String(), r.String()
}

// advance relays rest up to the first of markers into out (part 0 is
// content, 1 reasoning) and reports whether a marker was reached; a think
// marker is then consumed, a call marker left for Result. Without a
// marker it relays what cannot be the start of one. Leading whitespace of
// a part and trailing whitespace are held back.
func (s *Stream) advance(out *strings.Builder, rest string, markers []string, part int) bool {
	i, m := indexAny(rest, markers)
	end := i
	if i < 0 {
		end = len(rest) - partialSuffix(rest, markers)
	}
	chunk := rest[:end]
	lead := 0
	if !s.started[part] {
		lead = len(chunk) - len(strings.TrimLeftFunc(chunk, unicode.IsSpace))
	}
	body := strings.TrimRightFunc(chunk[lead:], unicode.IsSpace)
	if body != "" {
		s.started[part] = true
		out.WriteString(body)
	}
	if i < 0 {
		s.pos += lead + len(body)
		return false
	}
	s.pos += end // the whitespace before the marker goes too
	if m == thinkOpen || m == thinkClose {
		s.pos += len(m)
	}
	return true
}

// Result parses the whole completion.
func (s *Stream) Result() Result {
	text := s.text.String()
	if s.thinking && !strings.Contains(text, thinkClose) {
		// Sampling stopped inside the reasoning.
		return Result{Reasoning: strings.TrimSpace(text)}
	}
	return Parse(text, s.f)
}
