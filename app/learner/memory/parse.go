package memory

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/metaclaw/metaclaw/app/learner/internal/jsonx"
	"github.com/metaclaw/metaclaw/store"
)

// Candidate is a memory an extractor proposes; consolidation decides what
// becomes of it.
type Candidate struct {
	Type       string
	Topic      string
	Content    string
	Importance float64 // 0..1
	Confidence float64 // 0..1
	// Supersedes are ids of existing memories (shown to the model) that
	// this one replaces.
	Supersedes []int64
}

// Limits on a parsed extraction.
const (
	maxCandidates    = 24
	maxContentLen    = 500
	maxTopicLen      = 80
	defaultImportant = 0.5
	defaultConfident = 0.7
)

// ErrNoMemories is returned when an answer holds no memories list.
var ErrNoMemories = errors.New(`no "memories" list in the answer`)

// rawCandidate accepts the names models use for the same fields.
type rawCandidate struct {
	Type       string          `json:"type"`
	Kind       string          `json:"kind"`
	Topic      string          `json:"topic"`
	Key        string          `json:"key"`
	Subject    string          `json:"subject"`
	Content    string          `json:"content"`
	Text       string          `json:"text"`
	Memory     string          `json:"memory"`
	Importance json.RawMessage `json:"importance"`
	Confidence json.RawMessage `json:"confidence"`
	Supersedes json.RawMessage `json:"supersedes"`
}

// ParseExtraction reads an extraction model's answer: a JSON object
// {"memories": [...]} (in a code fence or among prose) or a bare JSON
// array of memories. Items with an unknown type or no content are dropped;
// numbers are clamped to 0..1, text is trimmed and cut; at most 24 items are
// kept. An empty list is a valid answer (nothing worth remembering).
func ParseExtraction(answer string) ([]Candidate, error) {
	items, err := memoriesList(answer)
	if err != nil {
		return nil, err
	}
	out := make([]Candidate, 0, min(len(items), maxCandidates))
	for _, raw := range items {
		var rc rawCandidate
		if json.Unmarshal(raw, &rc) != nil {
			continue
		}
		if c, ok := rc.candidate(); ok {
			out = append(out, c)
			if len(out) == maxCandidates {
				break
			}
		}
	}
	return out, nil
}

// memoriesList finds the list of memories in an answer.
func memoriesList(answer string) ([]json.RawMessage, error) {
	if arr, ok := bareArray(answer); ok {
		return arr, nil
	}
	obj, err := jsonx.FirstObject(answer)
	if err != nil {
		return nil, fmt.Errorf("parse extraction: %w", err)
	}
	var wrap struct {
		Memories *[]json.RawMessage `json:"memories"`
	}
	if err := json.Unmarshal(obj, &wrap); err != nil || wrap.Memories == nil {
		return nil, fmt.Errorf("parse extraction: %w", ErrNoMemories)
	}
	return *wrap.Memories, nil
}

// bareArray decodes an answer that is (after an optional code fence) a JSON
// array.
func bareArray(answer string) ([]json.RawMessage, bool) {
	s := strings.TrimSpace(answer)
	if strings.HasPrefix(s, "```") {
		s = strings.TrimPrefix(s, "```")
		if nl := strings.IndexByte(s, '\n'); nl >= 0 {
			s = s[nl+1:]
		}
		s = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s), "```"))
	}
	if !strings.HasPrefix(s, "[") {
		return nil, false
	}
	var arr []json.RawMessage
	dec := json.NewDecoder(strings.NewReader(s))
	if dec.Decode(&arr) != nil {
		return nil, false
	}
	return arr, true
}

func (rc rawCandidate) candidate() (Candidate, bool) {
	typ := NormalizeType(first(rc.Type, rc.Kind))
	content := cut(first(rc.Content, rc.Text, rc.Memory), maxContentLen)
	if typ == "" || content == "" {
		return Candidate{}, false
	}
	return Candidate{
		Type:       typ,
		Topic:      cut(first(rc.Topic, rc.Key, rc.Subject), maxTopicLen),
		Content:    content,
		Importance: unit(rc.Importance, defaultImportant),
		Confidence: unit(rc.Confidence, defaultConfident),
		Supersedes: ids(rc.Supersedes),
	}, true
}

// typeAliases maps the names models give memory types to ours.
var typeAliases = map[string]string{
	"preference": store.MemoryPreference, "preferences": store.MemoryPreference, "pref": store.MemoryPreference,
	"like": store.MemoryPreference, "dislike": store.MemoryPreference,
	"fact": store.MemoryFact, "facts": store.MemoryFact, "personal fact": store.MemoryFact, "profile": store.MemoryFact,
	"project state": store.MemoryProjectState, "project": store.MemoryProjectState, "project status": store.MemoryProjectState,
	"status": store.MemoryProjectState, "task": store.MemoryProjectState,
	"episode": store.MemoryEpisode, "episode summary": store.MemoryEpisode, "episodic": store.MemoryEpisode,
	"summary": store.MemoryEpisode, "event": store.MemoryEpisode, "session summary": store.MemoryEpisode,
	"procedure": store.MemoryProcedure, "procedures": store.MemoryProcedure, "how to": store.MemoryProcedure,
	"howto": store.MemoryProcedure, "workflow": store.MemoryProcedure, "instruction": store.MemoryProcedure,
}

// NormalizeType maps a memory type as a model or a person writes it
// ("Project-State", "episode summary", "prefs") to one of store.MemoryTypes,
// or "" when it is none of them.
func NormalizeType(t string) string {
	t = strings.ToLower(strings.TrimSpace(t))
	t = strings.NewReplacer("_", " ", "-", " ").Replace(t)
	t = strings.Join(strings.Fields(t), " ")
	if v, ok := typeAliases[t]; ok {
		return v
	}
	return typeAliases[strings.TrimSuffix(t, "s")]
}

func first(vs ...string) string {
	for _, v := range vs {
		if strings.TrimSpace(v) != "" {
			return v
		}
	}
	return ""
}

// cut collapses whitespace and keeps at most max bytes, at a rune boundary.
func cut(s string, max int) string {
	s = strings.Join(strings.Fields(strings.ToValidUTF8(s, "")), " ")
	if len(s) <= max {
		return s
	}
	i := max
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return strings.TrimSpace(s[:i])
}

// unit reads a number (or a numeric string, or a 0..10 or 0..100 score)
// as a value in 0..1.
func unit(raw json.RawMessage, def float64) float64 {
	raw = bytes.Trim(bytes.TrimSpace(raw), `"`)
	v, err := strconv.ParseFloat(string(raw), 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return def
	}
	switch {
	case v > 10 && v <= 100:
		v /= 100
	case v > 1 && v <= 10:
		v /= 10
	}
	return math.Max(0.05, math.Min(1, v))
}

// ids reads a list of memory ids (numbers or numeric strings, "#12" too)
// or a single one.
func ids(raw json.RawMessage) []int64 {
	var list []json.RawMessage
	if json.Unmarshal(raw, &list) != nil {
		list = []json.RawMessage{raw}
	}
	var out []int64
	for _, r := range list {
		s := strings.TrimPrefix(strings.Trim(string(bytes.TrimSpace(r)), `"`), "#")
		if id, err := strconv.ParseInt(s, 10, 64); err == nil && id > 0 {
			out = append(out, id)
		}
		if len(out) == 16 {
			break
		}
	}
	return out
}
