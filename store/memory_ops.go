package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"sort"
	"time"
)

// Kinds of MemoryOp.
const (
	MemoryAdd       = "add"
	MemoryReinforce = "reinforce"
	MemorySupersede = "supersede"
	MemoryEnd       = "end"
	MemoryDrop      = "drop" // delete outright: a stopgap the model pass replaced
)

// MemoryOp is one change to a scope's memories; the consolidation in
// app/learner/memory decides them, ApplyMemoryOps applies them.
type MemoryOp struct {
	Kind string
	// IDs are the current memories the op acts on: the one reinforced, the
	// ones a new memory supersedes, the ones ended.
	IDs []int64
	// Input is the new memory (add, supersede). For reinforce, its TurnIDs
	// are merged into the memory's and its Importance and Confidence
	// replace the memory's.
	Input MemoryInput
	// Reason is why superseded or ended memories stop (EndSuperseded when
	// empty).
	Reason string
}

// MemoryChange is what one op did.
type MemoryChange struct {
	Kind   string
	Memory Memory  // the memory added or reinforced; zero for end
	Ended  []int64 // memories that stopped being current
}

// ApplyMemoryOps applies ops to one scope's memories in one transaction and
// returns what each did and the scope's new revision. An op naming a memory
// that is not current in the scope fails the whole batch with ErrNotFound
// (someone changed the scope meanwhile: decide again). A memory that
// supersedes a pinned one is pinned too.
func (db *DB) ApplyMemoryOps(ctx context.Context, scope string, ops []MemoryOp, at time.Time) ([]MemoryChange, int64, error) {
	if scope == "" {
		scope = DefaultScope
	}
	if at.IsZero() {
		at = time.Now()
	}
	var out []MemoryChange
	var rev int64
	err := db.inTx(ctx, func(tx *sql.Tx) error {
		out = out[:0]
		for _, op := range ops {
			ch, err := applyMemoryOp(ctx, tx, scope, op, at)
			if err != nil {
				return err
			}
			out = append(out, ch)
		}
		var err error
		rev, err = bumpScope(ctx, tx, scope, at)
		return err
	})
	if err != nil {
		return nil, 0, err
	}
	return out, rev, nil
}

// AddMemory adds one memory as it is, without looking for duplicates (the
// memory package's consolidation does that), and returns it.
func (db *DB) AddMemory(ctx context.Context, in MemoryInput) (Memory, error) {
	chs, _, err := db.ApplyMemoryOps(ctx, in.Scope, []MemoryOp{{Kind: MemoryAdd, Input: in}}, in.At)
	if err != nil {
		return Memory{}, err
	}
	return chs[0].Memory, nil
}

func applyMemoryOp(ctx context.Context, tx *sql.Tx, scope string, op MemoryOp, at time.Time) (MemoryChange, error) {
	ch := MemoryChange{Kind: op.Kind}
	var err error
	switch op.Kind {
	case MemoryAdd:
		ch.Memory, err = insertMemory(ctx, tx, scope, op.Input, at, false)
	case MemoryReinforce:
		if len(op.IDs) != 1 {
			return ch, fmt.Errorf("reinforce memory: want one id, got %d", len(op.IDs))
		}
		ch.Memory, err = reinforceMemory(ctx, tx, scope, op.IDs[0], op.Input, at)
	case MemorySupersede:
		ch, err = supersedeMemories(ctx, tx, scope, op, at)
	case MemoryEnd:
		ch.Ended = op.IDs
		err = endMemories(ctx, tx, scope, op.IDs, op.Reason, 0, at)
	case MemoryDrop:
		ch.Ended = op.IDs
		err = dropMemories(ctx, tx, scope, op.IDs)
	default:
		err = fmt.Errorf("unknown memory operation %q", op.Kind)
	}
	return ch, err
}

func insertMemory(ctx context.Context, tx *sql.Tx, scope string, in MemoryInput, at time.Time, pinned bool) (Memory, error) {
	in.Scope = scope
	if in.At.IsZero() {
		in.At = at
	}
	if err := in.check(); err != nil {
		return Memory{}, err
	}
	turns, _ := json.Marshal(nonNil(in.TurnIDs))
	// valid_from is when it was said (in.At: a session's date, an import's
	// original date); created_at and updated_at are when this database got
	// it, which is what decay and recency age from.
	ms, made := in.At.UnixMilli(), at.UnixMilli()
	var id int64
	err := tx.QueryRowContext(ctx, `INSERT INTO memories(scope, type, topic, topic_key, content, content_key, importance,
		confidence, pinned, source, session_id, turn_ids, created_at, updated_at, valid_from)
		VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?) RETURNING id`,
		in.Scope, in.Type, in.Topic, NormalizeTopic(in.Topic), in.Content, ContentKey(in.Content), in.Importance,
		in.Confidence, in.Pinned || pinned, in.Source, in.SessionID, string(turns), made, made, ms).Scan(&id)
	if err != nil {
		return Memory{}, fmt.Errorf("add memory: %w", err)
	}
	return memoryTx(ctx, tx, id)
}

func memoryTx(ctx context.Context, tx *sql.Tx, id int64) (Memory, error) {
	m, err := scanMemory(tx.QueryRowContext(ctx, "SELECT "+memoryCols+" FROM memories WHERE id = ?", id))
	if err != nil {
		return m, fmt.Errorf("read memory %d: %w", id, err)
	}
	return m, nil
}

// currentIn returns a memory that must be current in scope.
func currentIn(ctx context.Context, tx *sql.Tx, scope string, id int64) (Memory, error) {
	m, err := scanMemory(tx.QueryRowContext(ctx, "SELECT "+memoryCols+
		" FROM memories WHERE id = ? AND scope = ? AND valid_to IS NULL", id, scope))
	if err != nil {
		return m, fmt.Errorf("memory %d is not current in scope %q: %w", id, scope, ErrNotFound)
	}
	return m, nil
}

func reinforceMemory(ctx context.Context, tx *sql.Tx, scope string, id int64, in MemoryInput, at time.Time) (Memory, error) {
	m, err := currentIn(ctx, tx, scope, id)
	if err != nil {
		return m, err
	}
	turns, _ := json.Marshal(mergeIDs(m.TurnIDs, in.TurnIDs))
	_, err = tx.ExecContext(ctx, `UPDATE memories SET importance = ?, confidence = ?, reinforced = reinforced + 1,
		turn_ids = ?, updated_at = ? WHERE id = ?`,
		clamp01(in.Importance, m.Importance), clamp01(in.Confidence, m.Confidence), string(turns), at.UnixMilli(), id)
	if err != nil {
		return m, fmt.Errorf("reinforce memory %d: %w", id, err)
	}
	return memoryTx(ctx, tx, id)
}

func supersedeMemories(ctx context.Context, tx *sql.Tx, scope string, op MemoryOp, at time.Time) (MemoryChange, error) {
	ch := MemoryChange{Kind: op.Kind, Ended: op.IDs}
	pinned := false
	for _, id := range op.IDs {
		old, err := currentIn(ctx, tx, scope, id)
		if err != nil {
			return ch, err
		}
		pinned = pinned || old.Pinned
	}
	m, err := insertMemory(ctx, tx, scope, op.Input, at, pinned)
	if err != nil {
		return ch, err
	}
	ch.Memory = m
	reason := op.Reason
	if reason == "" {
		reason = EndSuperseded
	}
	return ch, endMemories(ctx, tx, scope, op.IDs, reason, m.ID, at)
}

func endMemories(ctx context.Context, tx *sql.Tx, scope string, ids []int64, reason string, by int64, at time.Time) error {
	var byArg any
	if by != 0 {
		byArg = by
	}
	for _, id := range ids {
		res, err := tx.ExecContext(ctx, `UPDATE memories SET valid_to = ?, end_reason = ?, superseded_by = ?, updated_at = ?
			WHERE id = ? AND scope = ? AND valid_to IS NULL`, at.UnixMilli(), reason, byArg, at.UnixMilli(), id, scope)
		if err := affected(res, err, fmt.Sprintf("end memory %d in scope %q", id, scope)); err != nil {
			return err
		}
	}
	return nil
}

func dropMemories(ctx context.Context, tx *sql.Tx, scope string, ids []int64) error {
	for _, id := range ids {
		res, err := tx.ExecContext(ctx, "DELETE FROM memories WHERE id = ? AND scope = ?", id, scope)
		if err := affected(res, err, fmt.Sprintf("drop memory %d in scope %q", id, scope)); err != nil {
			return err
		}
	}
	return nil
}

func mergeIDs(a, b []int64) []int64 {
	seen := map[int64]bool{}
	out := make([]int64, 0, len(a)+len(b))
	for _, id := range append(append([]int64{}, a...), b...) {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// SetMemoryPinned pins or unpins a memory (current or not) and returns it
// with its scope's new revision.
func (db *DB) SetMemoryPinned(ctx context.Context, id int64, pinned bool, at time.Time) (Memory, int64, error) {
	var m Memory
	var rev int64
	err := db.inTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, "UPDATE memories SET pinned = ?, updated_at = ? WHERE id = ?", pinned, at.UnixMilli(), id)
		if err := affected(res, err, fmt.Sprintf("memory %d", id)); err != nil {
			return err
		}
		if m, err = memoryTx(ctx, tx, id); err != nil {
			return err
		}
		rev, err = bumpScope(ctx, tx, m.Scope, at)
		return err
	})
	return m, rev, err
}

// MarkMemoriesUsed records that memories were injected: uses[id] more
// times, the last at at. Usage keeps an episode from decaying; it is not a
// change of content and leaves the scope's revision alone.
func (db *DB) MarkMemoriesUsed(ctx context.Context, uses map[int64]int, at time.Time) error {
	if len(uses) == 0 {
		return nil
	}
	return db.inTx(ctx, func(tx *sql.Tx) error {
		for id, n := range uses {
			_, err := tx.ExecContext(ctx, `UPDATE memories SET use_count = use_count + ?, last_used_at = max(last_used_at, ?)
				WHERE id = ?`, n, at.UnixMilli(), id)
			if err != nil {
				return fmt.Errorf("mark memory %d used: %w", id, err)
			}
		}
		return nil
	})
}
