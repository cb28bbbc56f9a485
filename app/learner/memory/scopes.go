package memory

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/metaclaw/metaclaw/store"
)

// checkEvery is how often a scope's revision is read to notice changes
// made by someone else (the CLI, another process); the service's own
// changes reach the index at once.
const checkEvery = time.Second

// scopeState holds one scope's index and its (re)building.
type scopeState struct {
	mu       sync.Mutex    // guards the fields below
	idx      *scopeIndex   // nil until the first build ends
	building chan struct{} // non-nil while a build runs; closed when it ends
	checked  time.Time     // when the revision was last compared
	checking bool          // a comparison runs
	err      error         // of the last build
}

func (r *Retriever) state(scope string) *scopeState {
	r.mu.Lock()
	defer r.mu.Unlock()
	st := r.scopes[scope]
	if st == nil {
		st = &scopeState{}
		r.scopes[scope] = st
	}
	return st
}

// index returns scope's index, building it on first use (waiting at most
// until ctx ends) and rebuilding it in the background when the scope
// changed behind the service's back; meanwhile the old index answers.
func (r *Retriever) index(ctx context.Context, scope string) (*scopeIndex, error) {
	if scope == "" {
		scope = store.DefaultScope
	}
	st := r.state(scope)
	st.mu.Lock()
	if ix := st.idx; ix != nil {
		if time.Since(st.checked) >= r.checkEvery && !st.checking {
			st.checked, st.checking = time.Now(), true
			r.goBackground(func() { r.checkStale(scope, st, ix) })
		}
		st.mu.Unlock()
		return ix, nil
	}
	done := r.startBuild(scope, st)
	st.mu.Unlock()
	select {
	case <-done:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.idx == nil {
		return nil, errors.Join(errors.New("load memories"), st.err)
	}
	return st.idx, nil
}

// checkStale compares the index with the scope's revision and starts a
// rebuild when they differ. It runs in the background: a turn never
// waits for the store (turns come seconds apart, so nearly every turn
// would read it otherwise); it answers from the index it has.
func (r *Retriever) checkStale(scope string, st *scopeState, ix *scopeIndex) {
	rev, err := r.db.MemoryScopeRev(r.bg, scope)
	st.mu.Lock()
	defer st.mu.Unlock()
	st.checking = false
	if err != nil {
		r.log.Warn("read memory revision", "scope", scope, "err", err)
		return
	}
	ix.mu.RLock()
	stale := ix.rev != rev
	ix.mu.RUnlock()
	if stale {
		r.startBuild(scope, st)
	}
}

// startBuild starts loading scope's memories unless a load runs; st.mu
// held. The load outlives the caller's context: a turn that gives up
// waiting leaves it to finish for the next one.
func (r *Retriever) startBuild(scope string, st *scopeState) <-chan struct{} {
	if st.building != nil {
		return st.building
	}
	done := make(chan struct{})
	st.building = done
	r.goBackground(func() {
		ms, rev, err := r.db.CurrentMemories(r.bg, scope)
		var ix *scopeIndex
		if err == nil {
			ix = newScopeIndex(scope, ms, rev)
		}
		st.mu.Lock()
		st.err = err
		if ix != nil && (st.idx == nil || st.idx.revision() <= rev) {
			st.idx = ix
		}
		st.building = nil
		st.mu.Unlock()
		close(done)
		if ix != nil {
			r.fillVectors(ix)
		}
	})
	return done
}

func (ix *scopeIndex) revision() int64 {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return ix.rev
}

// loaded returns scope's index if it is built, else nil.
func (r *Retriever) loaded(scope string) (*scopeState, *scopeIndex) {
	st := r.state(scope)
	st.mu.Lock()
	defer st.mu.Unlock()
	return st, st.idx
}

// apply brings scope's index up to date with changes the service made,
// which moved the scope to revision rev. When the index missed an outside
// change meanwhile, it applies the changes anyway and rebuilds soon.
func (r *Retriever) apply(scope string, changes []store.MemoryChange, rev int64) {
	st, ix := r.loaded(scope)
	if ix == nil {
		return
	}
	added := 0
	ix.mu.Lock()
	for _, ch := range changes {
		for _, id := range ch.Ended {
			ix.remove(id)
		}
		if ch.Memory.ID != 0 && ch.Memory.Current() {
			ix.add(ch.Memory)
			added++
		}
	}
	inSync := ix.rev+1 == rev
	if inSync {
		ix.rev = rev
	}
	ix.mu.Unlock()
	if !inSync {
		r.forceCheck(st)
	}
	if added > 0 && r.useVectors() {
		r.goBackground(func() { r.fillVectors(ix) })
	}
}

// remove drops memories from every loaded index (forget: they must not be
// injected again, whatever the revisions say) and makes each index check
// its revision on next use.
func (r *Retriever) remove(ids []int64) {
	r.mu.Lock()
	states := make([]*scopeState, 0, len(r.scopes))
	for _, st := range r.scopes {
		states = append(states, st)
	}
	r.mu.Unlock()
	for _, st := range states {
		st.mu.Lock()
		ix := st.idx
		st.checked = time.Time{}
		st.mu.Unlock()
		if ix == nil {
			continue
		}
		ix.mu.Lock()
		for _, id := range ids {
			ix.remove(id)
		}
		ix.mu.Unlock()
	}
}

func (r *Retriever) forceCheck(st *scopeState) {
	st.mu.Lock()
	st.checked = time.Time{}
	st.mu.Unlock()
}

// reload rebuilds scope's index from the store and waits for it: after
// the store refused a plan made on a stale index.
func (r *Retriever) reload(ctx context.Context, scope string) error {
	st := r.state(scope)
	for range 2 { // a build already running may have read the scope before the change
		st.mu.Lock()
		done := r.startBuild(scope, st)
		st.mu.Unlock()
		select {
		case <-done:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.err
}

// warm starts loading a scope's index without waiting for it.
func (r *Retriever) warm(scope string) {
	st := r.state(scope)
	st.mu.Lock()
	if st.idx == nil {
		r.startBuild(scope, st)
	}
	st.mu.Unlock()
}
