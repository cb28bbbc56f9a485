package memory

import (
	"context"
	"slices"
	"strconv"
	"testing"

	"github.com/metaclaw/metaclaw/proxy/learning"
	"github.com/metaclaw/metaclaw/store"
	"github.com/metaclaw/metaclaw/store/config"
)

// TestInjectSelectsTheScopesMemories: as the proxy's injector the service
// answers with the memories of the request's scope only, as "memory:<id>".
func TestInjectSelectsTheScopesMemories(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	opts := OptionsFrom(config.Defaults())
	opts.DB = openDB(t)
	s := New(opts)
	t.Cleanup(s.Retriever().Close)
	add := func(scope, content string) int64 {
		ch, err := s.Add(ctx, store.MemoryInput{Scope: scope, Type: store.MemoryPreference, Topic: "editor", Content: content, Importance: 0.8, Source: "test"})
		if err != nil {
			t.Fatal(err)
		}
		return ch.Memory.ID
	}
	alice := add("alice", "Alice edits code in the Helix editor.")
	bob := add("bob", "Bob edits code in the Zed editor.")
	var inj learning.Injector = s
	if inj.Name() != "memory" {
		t.Errorf("name %q", inj.Name())
	}
	got, err := inj.Inject(ctx, learning.InjectRequest{Scope: "alice", Messages: []learning.Message{{Role: "user", Text: "which editor do I edit code in?"}}})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(got.IDs, "memory:"+strconv.FormatInt(alice, 10)) || slices.Contains(got.IDs, "memory:"+strconv.FormatInt(bob, 10)) {
		t.Errorf("ids %v: want alice's memory %d and not bob's %d", got.IDs, alice, bob)
	}
	if got.Text == "" {
		t.Error("no text injected")
	}
}
