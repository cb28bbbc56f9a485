package memory

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/metaclaw/metaclaw/store"
)

// Consolidation thresholds.
const (
	// dupSimilarity is the word overlap (Jaccard) from which two memories
	// say the same thing.
	dupSimilarity = 0.75
	// neighbourCount is how many textually similar memories a candidate is
	// compared with.
	neighbourCount = 8
)

// Sources of memories (store.Memory.Source).
const (
	SourceModel  = "model"
	SourceRules  = "rules"
	SourceUser   = "user"
	SourceImport = "import"
	SourceAPI    = "api"
)

// Provenance is where a batch of candidates came from.
type Provenance struct {
	Source    string
	SessionID string
	TurnIDs   []int64
	At        time.Time // when it was said (the exchanges' time); zero: now
}

// neighbour is an existing memory and how much its words overlap a
// candidate's.
type neighbour struct {
	m   store.Memory
	sim float64
}

// neighbourhood is what consolidation compares one candidate with.
type neighbourhood struct {
	explicit  []store.Memory // the candidate's supersedes that are current in the scope
	sameTopic []store.Memory // current memories with the candidate's topic
	similar   []neighbour    // the most similar current memories
}

// plan is the ops decided so far for one batch.
type plan struct {
	ops        []store.MemoryOp
	ended      map[int64]bool
	reinforced map[int64]bool
	skip       map[int64]bool // memories the batch drops: never neighbours
}

// neighbours gathers a candidate's neighbourhood: the memories it names
// and its textual neighbours from the scope's index, the memories on its
// topic from the store (an indexed lookup).
func (r *Retriever) neighbours(ctx context.Context, scope string, c Candidate, skip map[int64]bool) (neighbourhood, error) {
	var nb neighbourhood
	onTopic, err := r.db.MemoriesOnTopic(ctx, scope, c.Topic)
	if err != nil {
		return nb, err
	}
	for _, m := range onTopic {
		if !skip[m.ID] {
			nb.sameTopic = append(nb.sameTopic, m)
		}
	}
	ix, err := r.index(ctx, scope)
	if err != nil {
		return nb, err
	}
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	for _, id := range c.Supersedes {
		if e := ix.get(id); e != nil && !skip[id] {
			nb.explicit = append(nb.explicit, e.memory(scope))
		}
	}
	words := contentTokens(c.Content)
	for _, h := range ix.search(queryOf(c.Content), neighbourCount) {
		if !skip[h.e.id] {
			nb.similar = append(nb.similar, neighbour{m: h.e.memory(scope), sim: similarity(words, contentTokens(h.e.content))})
		}
	}
	return nb, nil
}

// decide says what becomes of a candidate given its neighbourhood: it
// reinforces a memory that says the same thing (of the same kind:
// episode or not), else supersedes the memories it names and those on its
// topic (episodes never supersede nor are superseded), else it is added.
func decide(c Candidate, nb neighbourhood) (kind string, ids []int64) {
	words := contentTokens(c.Content)
	best, bestSim := int64(0), 0.0
	consider := func(m store.Memory, sim float64) {
		if (m.Type == store.MemoryEpisode) == (c.Type == store.MemoryEpisode) && sim >= dupSimilarity && sim > bestSim {
			best, bestSim = m.ID, sim
		}
	}
	for _, m := range append(append([]store.Memory{}, nb.explicit...), nb.sameTopic...) {
		consider(m, similarity(words, contentTokens(m.Content)))
	}
	for _, n := range nb.similar {
		consider(n.m, n.sim)
	}
	if best != 0 {
		return store.MemoryReinforce, []int64{best}
	}
	if c.Type == store.MemoryEpisode {
		return store.MemoryAdd, nil
	}
	seen := map[int64]bool{}
	for _, m := range append(append([]store.Memory{}, nb.explicit...), nb.sameTopic...) {
		if m.Type != store.MemoryEpisode && !seen[m.ID] {
			seen[m.ID] = true
			ids = append(ids, m.ID)
		}
	}
	if len(ids) > 0 {
		return store.MemorySupersede, ids
	}
	return store.MemoryAdd, nil
}

// planBatch decides the ops of a batch of candidates for one scope. Within
// the batch, a later candidate on the same topic replaces an earlier one
// (the conversation's last word counts), and repeats are merged.
func (r *Retriever) planBatch(ctx context.Context, scope string, cands []Candidate, prov Provenance, p *plan) error {
	for _, c := range cands {
		if p.mergeInBatch(c, prov) {
			continue
		}
		nb, err := r.neighbours(ctx, scope, c, p.skip)
		if err != nil {
			return err
		}
		kind, ids := decide(c, nb)
		p.add(c, prov, kind, ids, nb)
	}
	return nil
}

// mergeInBatch folds a candidate into an op already planned in the batch
// for the same topic or the same words; it reports whether it did.
func (p *plan) mergeInBatch(c Candidate, prov Provenance) bool {
	key, words := store.NormalizeTopic(c.Topic), contentTokens(c.Content)
	for i := range p.ops {
		op := &p.ops[i]
		if op.Kind != store.MemoryAdd && op.Kind != store.MemorySupersede {
			continue
		}
		if similarity(words, contentTokens(op.Input.Content)) >= dupSimilarity {
			return true
		}
		episode := c.Type == store.MemoryEpisode || op.Input.Type == store.MemoryEpisode
		if key != "" && !episode && store.NormalizeTopic(op.Input.Topic) == key {
			op.Input = input(c, prov)
			return true
		}
	}
	return false
}

// add records the op decided for a candidate, dropping targets an earlier
// op of the batch already ended or reinforced.
func (p *plan) add(c Candidate, prov Provenance, kind string, ids []int64, nb neighbourhood) {
	switch kind {
	case store.MemoryReinforce:
		if p.reinforced[ids[0]] || p.ended[ids[0]] {
			return
		}
		p.reinforced[ids[0]] = true
		old := find(ids[0], nb)
		in := store.MemoryInput{TurnIDs: prov.TurnIDs,
			Importance: 1 - (1-math.Max(old.Importance, c.Importance))*0.8,
			Confidence: math.Max(old.Confidence, c.Confidence)}
		p.ops = append(p.ops, store.MemoryOp{Kind: kind, IDs: ids, Input: in})
		return
	case store.MemorySupersede:
		var live []int64
		in := input(c, prov)
		for _, id := range ids {
			if !p.ended[id] && !p.reinforced[id] {
				live = append(live, id)
				p.ended[id] = true
				in.Importance = math.Max(in.Importance, find(id, nb).Importance)
			}
		}
		if len(live) > 0 {
			p.ops = append(p.ops, store.MemoryOp{Kind: kind, IDs: live, Input: in, Reason: store.EndSuperseded})
			return
		}
	}
	p.ops = append(p.ops, store.MemoryOp{Kind: store.MemoryAdd, Input: input(c, prov)})
}

func find(id int64, nb neighbourhood) store.Memory {
	for _, m := range append(append([]store.Memory{}, nb.explicit...), nb.sameTopic...) {
		if m.ID == id {
			return m
		}
	}
	for _, n := range nb.similar {
		if n.m.ID == id {
			return n.m
		}
	}
	return store.Memory{}
}

func input(c Candidate, prov Provenance) store.MemoryInput {
	return store.MemoryInput{Type: c.Type, Topic: c.Topic, Content: c.Content, Importance: c.Importance,
		Confidence: c.Confidence, Source: prov.Source, SessionID: prov.SessionID, TurnIDs: prov.TurnIDs, At: prov.At}
}

func newPlan() *plan {
	return &plan{ended: map[int64]bool{}, reinforced: map[int64]bool{}, skip: map[int64]bool{}}
}

// consolidate plans and applies a batch in one scope, keeping the index in
// step. drop lists memories to delete first (a model pass replacing rule
// memories). When the scope changed between planning and applying, the
// index is reloaded and the batch planned again, once.
func (s *Service) consolidate(ctx context.Context, scope string, cands []Candidate, prov Provenance, drop []int64) ([]store.MemoryChange, error) {
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	for attempt := 0; ; attempt++ {
		p := newPlan()
		if len(drop) > 0 {
			p.ops = append(p.ops, store.MemoryOp{Kind: store.MemoryDrop, IDs: drop})
			for _, id := range drop {
				p.skip[id] = true
			}
		}
		if err := s.ret.planBatch(ctx, scope, cands, prov, p); err != nil {
			return nil, err
		}
		if len(p.ops) == 0 {
			return nil, nil
		}
		changes, rev, err := s.db.ApplyMemoryOps(ctx, scope, p.ops, s.now())
		if errors.Is(err, store.ErrNotFound) && attempt == 0 {
			if err := s.ret.reload(ctx, scope); err != nil {
				return nil, err
			}
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("consolidate memories: %w", err)
		}
		s.ret.apply(scope, changes, rev)
		return changes, nil
	}
}
