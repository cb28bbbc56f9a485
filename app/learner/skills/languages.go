package skills

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/metaclaw/metaclaw/store"
)

// languagesFlushEvery is how often a Retriever stores the languages of
// the requests it saw (store.AddLanguagesSeen), off the turn's path.
const languagesFlushEvery = 30 * time.Second

// languageTally counts the requests a Retriever saw in each language
// other than English until they are stored, in the background.
type languageTally struct {
	db  *store.DB
	log *slog.Logger

	mu     sync.Mutex
	counts map[string]int

	stop     chan struct{}
	done     chan struct{}
	stopOnce sync.Once
}

func newLanguageTally(db *store.DB) *languageTally {
	t := &languageTally{db: db, log: slog.New(slog.DiscardHandler), counts: map[string]int{},
		stop: make(chan struct{}), done: make(chan struct{})}
	go t.run()
	return t
}

// note counts one request in lang; English and unknown are not counted.
func (t *languageTally) note(lang string) {
	if lang == "en" || lang == "" {
		return
	}
	t.mu.Lock()
	t.counts[lang]++
	t.mu.Unlock()
}

func (t *languageTally) run() {
	defer close(t.done)
	tick := time.NewTicker(languagesFlushEvery)
	defer tick.Stop()
	for {
		select {
		case <-t.stop:
			t.flush()
			return
		case <-tick.C:
			t.flush()
		}
	}
}

// StoreLanguages stores now the languages of the requests seen since they
// were last stored (they are every 30 seconds, and on Close).
func (r *Retriever) StoreLanguages() { r.langs.flush() }

// flush stores the counts so far; on failure they are kept for the next.
func (t *languageTally) flush() {
	t.mu.Lock()
	counts := t.counts
	t.counts = map[string]int{}
	t.mu.Unlock()
	if len(counts) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := t.db.AddLanguagesSeen(ctx, counts); err != nil {
		t.log.Warn("skills: store the requests' languages", "error", err)
		t.mu.Lock()
		for l, n := range counts {
			t.counts[l] += n
		}
		t.mu.Unlock()
	}
}

// close stores what is left and stops; a second close waits the same.
func (t *languageTally) close() {
	t.stopOnce.Do(func() { close(t.stop) })
	<-t.done
}
