package memory

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/metaclaw/metaclaw/store"
)

// seed adds memories to a scope as they are.
func seed(t *testing.T, db *store.DB, scope string, ins ...store.MemoryInput) []store.Memory {
	t.Helper()
	var out []store.Memory
	for _, in := range ins {
		in.Scope = scope
		m, err := db.AddMemory(context.Background(), in)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, m)
	}
	return out
}

func TestConsolidate(t *testing.T) {
	t.Parallel()
	dark := store.MemoryInput{Type: store.MemoryPreference, Topic: "editor theme", Content: "The user prefers dark mode in the editor.", Importance: 0.5}
	job := store.MemoryInput{Type: store.MemoryFact, Topic: "employer", Content: "The user works at Acme."}
	ep := store.MemoryInput{Type: store.MemoryEpisode, Topic: "payments tests", Content: "Fixed the flaky payments test with the assistant."}
	tests := []struct {
		name      string
		existing  []store.MemoryInput
		cands     func(ids []int64) []Candidate
		wantKinds []string
		wantNow   []string // current contents of the scope afterwards (any order)
	}{
		{"repeat reinforces", []store.MemoryInput{dark},
			func([]int64) []Candidate {
				return []Candidate{{Type: "preference", Topic: "theme", Content: "User prefers dark mode in the editor", Importance: 0.6}}
			},
			[]string{store.MemoryReinforce}, []string{dark.Content}},
		{"same topic supersedes", []store.MemoryInput{dark, job},
			func([]int64) []Candidate {
				return []Candidate{{Type: "preference", Topic: "Editor Themes", Content: "The user now prefers light mode in the editor."}}
			},
			[]string{store.MemorySupersede}, []string{"The user now prefers light mode in the editor.", job.Content}},
		{"named supersedes", []store.MemoryInput{job},
			func(ids []int64) []Candidate {
				return []Candidate{{Type: "fact", Topic: "new job", Content: "The user left Acme and joined Initech.", Supersedes: ids}}
			},
			[]string{store.MemorySupersede}, []string{"The user left Acme and joined Initech."}},
		{"new topic adds", []store.MemoryInput{dark},
			func([]int64) []Candidate {
				return []Candidate{{Type: "fact", Topic: "pet", Content: "The user has a cat named Miso."}}
			},
			[]string{store.MemoryAdd}, []string{dark.Content, "The user has a cat named Miso."}},
		{"episodes never supersede", []store.MemoryInput{ep},
			func([]int64) []Candidate {
				return []Candidate{{Type: "episode", Topic: "payments tests", Content: "Added retries to the payments client."}}
			},
			[]string{store.MemoryAdd}, []string{ep.Content, "Added retries to the payments client."}},
		{"batch: last word on a topic wins", nil,
			func([]int64) []Candidate {
				return []Candidate{{Type: "preference", Topic: "editor theme", Content: "Prefers dark mode."},
					{Type: "preference", Topic: "editor theme", Content: "Prefers light mode after all."}}
			},
			[]string{store.MemoryAdd}, []string{"Prefers light mode after all."}},
		{"batch: repeats merge", nil,
			func([]int64) []Candidate {
				return []Candidate{{Type: "fact", Content: "The user has two daughters."}, {Type: "fact", Content: "User has two daughters"}}
			},
			[]string{store.MemoryAdd}, []string{"The user has two daughters."}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			db := openDB(t)
			s := newService(t, Options{DB: db})
			var ids []int64
			for _, m := range seed(t, db, "s", tt.existing...) {
				ids = append(ids, m.ID)
			}
			changes, err := s.consolidate(context.Background(), "s", tt.cands(ids), Provenance{Source: SourceModel}, nil)
			if err != nil {
				t.Fatal(err)
			}
			var kinds []string
			for _, ch := range changes {
				kinds = append(kinds, ch.Kind)
			}
			if diff := cmp.Diff(tt.wantKinds, kinds); diff != "" {
				t.Errorf("ops (-want +got):\n%s", diff)
			}
			got := currentContents(t, db, "s")
			if diff := cmp.Diff(tt.wantNow, got, sortStrings()); diff != "" {
				t.Errorf("current memories (-want +got):\n%s", diff)
			}
			// The index agrees with the store.
			hits, _ := s.Search(context.Background(), "s", "editor dark light mode acme initech cat payments daughters", 20)
			for _, h := range hits {
				if !hasText(got, h.Content) {
					t.Errorf("index returns %q, which is not current", h.Content)
				}
			}
		})
	}
}

func TestReinforceRaisesImportance(t *testing.T) {
	t.Parallel()
	db := openDB(t)
	s := newService(t, Options{DB: db})
	m := seed(t, db, "s", store.MemoryInput{Type: store.MemoryFact, Content: "The user is allergic to peanuts.", Importance: 0.5, Confidence: 0.5})[0]
	for range 2 {
		if _, err := s.consolidate(context.Background(), "s", []Candidate{{Type: "fact", Content: "User is allergic to peanuts", Importance: 0.4, Confidence: 0.9}},
			Provenance{Source: SourceModel, TurnIDs: []int64{42}}, nil); err != nil {
			t.Fatal(err)
		}
	}
	got, _ := db.Memory(context.Background(), m.ID)
	if got.Reinforced != 3 || got.Importance <= 0.6 || got.Confidence != 0.9 || !cmp.Equal(got.TurnIDs, []int64{42}) {
		t.Errorf("after two repeats: reinforced %d, importance %.2f, confidence %.2f, turns %v", got.Reinforced, got.Importance, got.Confidence, got.TurnIDs)
	}
}

func TestSupersedesNeverCrossScopes(t *testing.T) {
	t.Parallel()
	db := openDB(t)
	s := newService(t, Options{DB: db})
	bob := seed(t, db, "bob", store.MemoryInput{Type: store.MemoryPreference, Topic: "editor", Content: "Bob uses Emacs."})[0]
	// A model that names another scope's memory, and the same topic.
	_, err := s.consolidate(context.Background(), "alice", []Candidate{{Type: "preference", Topic: "editor", Content: "Alice uses Vim.",
		Supersedes: []int64{bob.ID}}}, Provenance{Source: SourceModel}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := db.Memory(context.Background(), bob.ID); !got.Current() {
		t.Errorf("bob's memory was ended from alice's scope: %+v", got)
	}
	if got := currentContents(t, db, "alice"); !cmp.Equal(got, []string{"Alice uses Vim."}) {
		t.Errorf("alice = %v", got)
	}
}
