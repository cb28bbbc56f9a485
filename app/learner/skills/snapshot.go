package skills

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/metaclaw/metaclaw/app/learner/retrieval"
	"github.com/metaclaw/metaclaw/store"
)

// How the library follows the store. Changes made through the same store
// handle (the evolver, the web page) are seen at once through its epoch;
// the stamp (a cheap query) is read every checkEvery to notice changes by
// another process (the CLI); efficacy is recomputed every efficacyEvery
// (it reads every scored turn). All of it runs in the background.
const (
	checkEvery    = 2 * time.Second
	efficacyEvery = 5 * time.Minute
	refreshLimit  = 2 * time.Minute
)

// IndexFields are the fields of the skills index: the name and the
// description say when a skill applies, tags name its subject, the body
// is its instructions (many words, few of them about when to use it),
// the asks are requests it is the right help for, in the words people
// use (evolve.WriteAsks), and the asks in other languages are those in
// the languages the person writes in besides English, searched only for a
// request in one of them (evolve.WriteAsksIn). Their weights are tuned on
// the development sets; tests may change them before making a Retriever.
var IndexFields = []retrieval.Field{
	{Name: "name", Weight: 3, B: 0.5, Head: true},
	{Name: "description", Weight: 2, B: 0.75, Head: true},
	{Name: "tags", Weight: 2, B: 0.5, Head: true},
	{Name: "body", Weight: 0.4, B: 0.75},
	{Name: "asks", Weight: 1, B: 0.75, Head: true, Passages: true},
	{Name: "asks in other languages", Weight: 1, B: 0.75, Head: true, Passages: true, Optional: true},
}

// The positions of IndexFields (and of skillTexts' texts).
const (
	fieldName = iota
	fieldDescription
	fieldTags
	fieldBody
	fieldAsks
	fieldAsksIn
)

func skillTexts(s store.Skill) []string {
	return []string{strings.ReplaceAll(s.Name, "-", " "), s.Description, strings.Join(s.Tags, " "), s.Body,
		strings.Join(s.Asks, "\n"), strings.Join(AsksInLines(s.AsksIn), "\n")}
}

// AsksInLines are the asks in other languages as the index holds them:
// the languages in order of their codes, each with as many of its asks as
// leaves every language a line the index tells apart
// (retrieval.MaxPassages lines in all).
func AsksInLines(in map[string][]string) []string {
	if len(in) == 0 {
		return nil
	}
	langs := make([]string, 0, len(in))
	for l := range in {
		langs = append(langs, l)
	}
	slices.Sort(langs)
	per := max(retrieval.MaxPassages/len(langs), 1)
	var out []string
	for _, l := range langs {
		asks := in[l]
		out = append(out, asks[:min(per, len(asks))]...)
	}
	return out
}

// library is a snapshot of the enabled skills: the index (shared by
// successive snapshots and updated in place), the efficacy factors, and
// the selections made from it.
type library struct {
	ix     *retrieval.Index[store.Skill]
	eff    map[string]float64 // efficacy factor by skill name; missing = 1
	recent recentSelections
}

// libraryState keeps the current library and refreshes it in the
// background.
type libraryState struct {
	db      *store.DB
	emb     Embedder // nil: no vectors
	vectors bool     // fill skill vectors (embedding, hybrid)
	useEff  bool
	log     *slog.Logger

	cur   atomic.Pointer[library]
	ready chan struct{} // closed once the first snapshot is stored

	mu      sync.Mutex    // guards the fields below
	running bool          // a refresh runs
	done    chan struct{} // closed when the running refresh ends
	again   bool          // a refresh was asked for while one ran
	checked time.Time     // when the stamp was last read
	effAt   time.Time     // when efficacy was last computed
	epoch   int64
	stamp   store.SkillsStamp
	// Owned by the running refresh: every skill's head as last read (the
	// enabled ones are in the index at that revision), the greatest
	// revision among them, and when every head was last read, with the
	// stamp's count of deletions then.
	heads     map[int64]store.SkillHead
	maxRev    int64
	fullAt    time.Time
	deleted   int64
	err       error
	readyOnce sync.Once

	bg     context.Context
	stop   context.CancelFunc
	wg     sync.WaitGroup
	closed bool
}

func newLibraryState(db *store.DB, vectors, useEff bool, emb Embedder) *libraryState {
	s := &libraryState{db: db, emb: emb, vectors: vectors, useEff: useEff, ready: make(chan struct{}),
		log: slog.New(slog.DiscardHandler), heads: map[int64]store.SkillHead{}}
	s.bg, s.stop = context.WithCancel(context.Background())
	s.wg.Add(1)
	go s.watch()
	return s
}

// watch refreshes the snapshot as soon as skills change through the same
// store handle (the evolver, the web page), so that the next turn finds
// it up to date without waiting for it.
func (s *libraryState) watch() {
	defer s.wg.Done()
	change := s.db.SkillsChange()
	for {
		select {
		case <-change:
			change = s.db.SkillsChange() // before the refresh reads, so a change during it is not missed
			s.refresh()
		case <-s.bg.Done():
			return
		}
	}
}

func (s *libraryState) close() {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	s.stop()
	s.wg.Wait()
}

// current returns the current snapshot, starting a refresh in the
// background when the skills may have changed; it waits (until ctx ends)
// only while no snapshot exists yet.
func (s *libraryState) current(ctx context.Context) (*library, error) {
	if lib := s.cur.Load(); lib != nil {
		s.mu.Lock()
		due := s.db.SkillsEpoch() != s.epoch || time.Since(s.checked) >= checkEvery
		s.mu.Unlock()
		if due {
			s.refresh()
		}
		return lib, nil
	}
	s.refresh()
	select {
	case <-s.ready:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if lib := s.cur.Load(); lib != nil {
		return lib, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return nil, errors.Join(errors.New("load skills"), s.err)
}

// sync refreshes the snapshot and waits for it (the CLI, tests).
func (s *libraryState) sync(ctx context.Context) error {
	s.mu.Lock()
	s.checked, s.effAt = time.Time{}, time.Time{}
	s.epoch--
	s.mu.Unlock()
	s.refresh()
	s.mu.Lock()
	done := s.done
	s.mu.Unlock()
	if done != nil {
		select {
		case <-done:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// refresh starts a refresh unless one runs (then it asks for another).
func (s *libraryState) refresh() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	if s.running {
		s.again = true
		return
	}
	s.running = true
	done := make(chan struct{})
	s.done = done
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		for {
			err := s.update()
			s.mu.Lock()
			s.err = err
			if !s.again || s.closed {
				s.running = false
				s.mu.Unlock()
				s.readyOnce.Do(func() { close(s.ready) })
				close(done)
				return
			}
			s.again = false
			s.mu.Unlock()
		}
	}()
}

// update brings the snapshot up to date with the store: it reads the
// stamp, and when it or the epoch moved, the enabled skills, applying the
// difference to the index in place; it recomputes efficacy when due.
func (s *libraryState) update() error {
	ctx, cancel := context.WithTimeout(s.bg, refreshLimit)
	defer cancel()
	epoch := s.db.SkillsEpoch()
	stamp, err := s.db.SkillsStamp(ctx)
	if err != nil {
		return err
	}
	s.mu.Lock()
	s.checked = time.Now()
	old := s.cur.Load()
	changed := old == nil || stamp != s.stamp || epoch != s.epoch
	effDue := s.useEff && time.Since(s.effAt) >= efficacyEvery
	s.mu.Unlock()
	if !changed && !effDue {
		return nil
	}
	lib := &library{}
	if old != nil {
		lib.ix, lib.eff = old.ix, old.eff
	} else {
		lib.ix = retrieval.NewIndex[store.Skill](IndexFields...)
	}
	if changed {
		if err := s.apply(ctx, lib.ix, stamp); err != nil {
			return err
		}
	}
	if effDue {
		if lib.eff, err = s.efficacy(ctx); err != nil {
			return err
		}
	}
	s.mu.Lock()
	s.epoch, s.stamp = epoch, stamp
	if effDue {
		s.effAt = time.Now()
	}
	s.mu.Unlock()
	s.cur.Store(lib)
	if s.vectors {
		s.fillVectors(ctx, lib.ix)
	}
	return nil
}

// fullEvery bounds the time between two reads of every head. Revisions
// grow in commit order (store.SkillHeadsSince), so reading those above the
// greatest one held misses no change; the full read is for a database
// replaced under the running app (a restored backup), whose revisions may
// have gone back.
const fullEvery = time.Minute

// apply puts the skills that are new or changed into ix and deletes the
// ones that are gone or disabled. It reads the heads (id and revision)
// that moved since it last looked, then only those skills, so an edit of
// one skill reads neither every skill nor every head again. A deletion
// moves no head: when the stamp counts one since the last full read, it
// reads every head and drops the missing ones.
func (s *libraryState) apply(ctx context.Context, ix *retrieval.Index[store.Skill], stamp store.SkillsStamp) error {
	full := len(s.heads) == 0 || time.Since(s.fullAt) >= fullEvery || stamp.Deleted != s.deleted
	since := int64(0)
	if !full {
		since = s.maxRev
	}
	heads, err := s.db.SkillHeadsSince(ctx, since)
	if err != nil {
		return err
	}
	if err := s.applyHeads(ctx, ix, heads, full); err != nil {
		return err
	}
	if full {
		s.fullAt, s.deleted = time.Now(), stamp.Deleted
	}
	return nil
}

// applyHeads brings ix to heads: all of them when full (the skills not
// listed are gone), or those that moved.
func (s *libraryState) applyHeads(ctx context.Context, ix *retrieval.Index[store.Skill], heads []store.SkillHead, full bool) error {
	var moved []int64
	maxRev := s.maxRev // moves only once the moved skills are read: a failed read is asked again
	if full {
		maxRev = 0
	}
	for _, h := range heads {
		maxRev = max(maxRev, h.Rev)
		old, ok := s.heads[h.ID]
		switch {
		case ok && old == h:
		case h.Enabled:
			moved = append(moved, h.ID)
		default:
			if old.Enabled {
				ix.Delete(h.ID)
			}
			s.heads[h.ID] = h
		}
	}
	if full {
		listed := make(map[int64]bool, len(heads))
		for _, h := range heads {
			listed[h.ID] = true
		}
		for id, h := range s.heads {
			if !listed[id] {
				if h.Enabled {
					ix.Delete(id)
				}
				delete(s.heads, id)
			}
		}
	}
	sks, err := s.db.EnabledSkillsByID(ctx, moved)
	if err != nil {
		return err
	}
	read := make(map[int64]bool, len(sks))
	for _, sk := range sks {
		ix.Put(sk.ID, sk, skillTexts(sk)...)
		s.heads[sk.ID] = store.SkillHead{ID: sk.ID, Rev: sk.Rev(), Enabled: true}
		read[sk.ID] = true
	}
	for _, id := range moved {
		if !read[id] { // disabled or deleted since its head was read: the next look says which
			if s.heads[id].Enabled {
				ix.Delete(id)
			}
			s.heads[id] = store.SkillHead{ID: id, Rev: -1}
		}
	}
	s.maxRev = maxRev
	return nil
}

// EmbedText is what a skill's vector is computed from.
func EmbedText(sk store.Skill) string {
	body := sk.Body
	if len(body) > 1500 {
		body = body[:1500]
	}
	return strings.ReplaceAll(sk.Name, "-", " ") + ": " + sk.Description + "\n" + strings.Join(sk.Tags, ", ") + "\n" +
		strings.Join(sk.Asks, "\n") + "\n" + body
}

// fillVectors embeds the skills of ix that have no vector yet, in batches.
func (s *libraryState) fillVectors(ctx context.Context, ix *retrieval.Index[store.Skill]) {
	var ids []int64
	var texts []string
	ix.Each(func(key int64, sk store.Skill, vec []float32) bool {
		if vec == nil {
			ids, texts = append(ids, key), append(texts, EmbedText(sk))
		}
		return true
	})
	for start := 0; start < len(ids) && ctx.Err() == nil; start += 256 {
		end := min(start+256, len(ids))
		vs, err := s.emb.Embed(ctx, texts[start:end])
		if err != nil || len(vs) != end-start {
			s.log.Warn("embed skills", "err", err)
			return
		}
		for i, v := range vs {
			ix.SetVector(ids[start+i], v)
		}
	}
}
