package memory

import (
	"errors"
	"math"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/metaclaw/metaclaw/store"
)

func TestParseExtraction(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		answer  string
		want    []Candidate
		wantErr bool
	}{
		{"strict", `{"memories":[{"type":"preference","topic":"editor theme","content":"The user prefers dark mode.","importance":0.8,"confidence":0.9,"supersedes":[3]}]}`,
			[]Candidate{{Type: "preference", Topic: "editor theme", Content: "The user prefers dark mode.", Importance: 0.8, Confidence: 0.9, Supersedes: []int64{3}}}, false},
		{"empty list", `{"memories": []}`, []Candidate{}, false},
		{"fenced with prose", "Sure! Here you go:\n```json\n{\"memories\":[{\"type\":\"Project-State\",\"key\":\"launch\",\"text\":\"Launch moved to May 3.\"}]}\n```\nDone.",
			[]Candidate{{Type: "project_state", Topic: "launch", Content: "Launch moved to May 3.", Importance: 0.5, Confidence: 0.7}}, false},
		{"bare array", `[{"kind":"episode summary","memory":"Fixed the flaky test.","importance":"7"}]`,
			[]Candidate{{Type: "episode", Content: "Fixed the flaky test.", Importance: 0.7, Confidence: 0.7}}, false},
		{"drops bad items", `{"memories":[{"type":"opinion","content":"x"},{"type":"fact","content":"  "},"nonsense",{"type":"facts","content":"Has two cats","supersedes":"#12","importance":85}]}`,
			[]Candidate{{Type: "fact", Content: "Has two cats", Importance: 0.85, Confidence: 0.7, Supersedes: []int64{12}}}, false},
		{"clamps and collapses", `{"memories":[{"type":"fact","content":"a\n\n  b","importance":-3,"confidence":"high","supersedes":[-1,"x",4]}]}`,
			[]Candidate{{Type: "fact", Content: "a b", Importance: 0.05, Confidence: 0.7, Supersedes: []int64{4}}}, false},
		{"no json", "I could not find anything.", nil, true},
		{"no memories key", `{"facts": []}`, nil, true},
		{"memories not a list", `{"memories": {"type": "fact"}}`, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := ParseExtraction(tt.answer)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tt.wantErr)
			}
			if tt.wantErr {
				return
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Error(diff)
			}
		})
	}
	if _, err := ParseExtraction(`{"x":1}`); !errors.Is(err, ErrNoMemories) {
		t.Errorf("missing list: %v, want ErrNoMemories", err)
	}
}

func TestParseExtractionLimits(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("é", 400)
	items := make([]string, 30)
	for i := range items {
		items[i] = `{"type":"fact","content":"` + long + `","topic":"` + long + `"}`
	}
	got, err := ParseExtraction(`{"memories":[` + strings.Join(items, ",") + `]}`)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != maxCandidates {
		t.Errorf("%d candidates, want %d", len(got), maxCandidates)
	}
	if c := got[0]; len(c.Content) > maxContentLen || len(c.Topic) > maxTopicLen || !utf8.ValidString(c.Content) || !utf8.ValidString(c.Topic) {
		t.Errorf("limits not applied: content %d bytes, topic %d bytes", len(c.Content), len(c.Topic))
	}
}

func TestNormalizeType(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"preference": store.MemoryPreference, "Prefs": store.MemoryPreference, "PREFERENCES": store.MemoryPreference,
		"project_state": store.MemoryProjectState, "Project-State": store.MemoryProjectState,
		"episode summary": store.MemoryEpisode, "how-to": store.MemoryProcedure, "facts": store.MemoryFact,
		"opinion": "", "": "",
	} {
		if got := NormalizeType(in); got != want {
			t.Errorf("NormalizeType(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzParseExtraction checks that any answer parses without panicking into
// candidates that the store accepts.
func FuzzParseExtraction(f *testing.F) {
	for _, s := range []string{
		`{"memories":[{"type":"fact","content":"x","importance":0.4,"supersedes":[1,"2"]}]}`,
		"```json\n[{\"type\":\"episode\",\"text\":\"y\"}]\n```",
		`{"memories":[{"type":"preference","content":"\u0000\ud800","confidence":1e999}]}`,
		`{"memories":null}`, `[[[`, `{"memories":[{"type":"fact","content":"a","supersedes":{"a":1}}]}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, answer string) {
		cands, err := ParseExtraction(answer)
		if err != nil {
			return
		}
		if len(cands) > maxCandidates {
			t.Fatalf("%d candidates", len(cands))
		}
		for _, c := range cands {
			if !store.ValidMemoryType(c.Type) || strings.TrimSpace(c.Content) == "" || len(c.Content) > maxContentLen ||
				len(c.Topic) > maxTopicLen || !utf8.ValidString(c.Content) || !utf8.ValidString(c.Topic) {
				t.Fatalf("bad candidate %+v", c)
			}
			for _, v := range []float64{c.Importance, c.Confidence} {
				if math.IsNaN(v) || v <= 0 || v > 1 {
					t.Fatalf("value %v out of range in %+v", v, c)
				}
			}
			for _, id := range c.Supersedes {
				if id <= 0 {
					t.Fatalf("bad id in %+v", c)
				}
			}
		}
	})
}
