package learner

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/metaclaw/metaclaw/app/learner/internal/transcript"
	"github.com/metaclaw/metaclaw/app/learner/skills"
	"github.com/metaclaw/metaclaw/store"
)

// SkillSelector picks the skills for a conversation (*skills.Retriever).
type SkillSelector interface {
	Select(ctx context.Context, msgs []skills.Message) (skills.Selection, error)
	// Refresh brings the library snapshot Select reads up to date (turns
	// may use an older one; the check must see the evolution's result).
	Refresh(ctx context.Context) error
}

var _ SkillSelector = (*skills.Retriever)(nil)

// checkBatch is how many samples CheckSamples reads at a time.
const checkBatch = 200

// CheckSamples decides, for every waiting training sample of an older skill
// generation, whether the evolutions since changed what its prompt would
// receive: a skill it was given was updated, retired, disabled or deleted,
// or retrieval for its prompt would now pick a different set of skills.
// Such a sample (and the extra responses of its group) becomes stale, with
// the reason; any other moves to the current generation and may still be
// trained. The stale count is added to the current generation's evolution.
// It returns how many groups went stale.
func (l *Learner) CheckSamples(ctx context.Context) (int, error) {
	gen, err := l.db.SkillGeneration(ctx)
	if err != nil {
		return 0, err
	}
	if l.selector != nil {
		if err := l.selector.Refresh(ctx); err != nil {
			return 0, fmt.Errorf("refresh the skill library: %w", err)
		}
	}
	stale := 0
	for {
		batch, err := l.db.SamplesToCheck(ctx, gen, checkBatch)
		if err != nil || len(batch) == 0 {
			return stale, l.countStale(ctx, gen, stale, err)
		}
		library, err := l.libraryVersions(ctx)
		if err != nil {
			return stale, l.countStale(ctx, gen, stale, err)
		}
		for _, s := range batch {
			reason, err := l.staleReason(ctx, s, library)
			if err != nil {
				return stale, l.countStale(ctx, gen, stale, err)
			}
			if reason == "" {
				err = l.db.MoveGroupToGeneration(ctx, s.GroupID, gen)
			} else {
				stale++
				err = l.db.MarkGroupStale(ctx, s.GroupID, reason)
			}
			if err != nil {
				return stale, l.countStale(ctx, gen, stale, err)
			}
		}
	}
}

func (l *Learner) countStale(ctx context.Context, gen, n int, err error) error {
	if n > 0 {
		l.log.Info("training samples made stale by skill evolution", "samples", n, "generation", gen)
		if cerr := l.db.AddEvolutionStale(ctx, gen, n); err == nil {
			err = cerr
		}
	}
	return err
}

// libraryVersions returns every skill's current version by name, with
// 0 for skills that are retired or disabled.
func (l *Learner) libraryVersions(ctx context.Context) (map[string]int, error) {
	all, err := l.db.Skills(ctx, true)
	if err != nil {
		return nil, err
	}
	out := make(map[string]int, len(all))
	for _, s := range all {
		out[s.Name] = s.Version
		if s.Retired || !s.Enabled {
			out[s.Name] = 0
		}
	}
	return out, nil
}

// staleReason says why a sample's prompt would now receive other skills,
// "" when it would receive the same.
func (l *Learner) staleReason(ctx context.Context, s store.Sample, library map[string]int) (string, error) {
	if s.TurnID == 0 {
		return "its turn was deleted, so what its prompt would receive cannot be checked", nil
	}
	turn, err := l.db.TurnByID(ctx, s.TurnID)
	if err != nil {
		return "", fmt.Errorf("check sample %d: %w", s.ID, err)
	}
	given := injectedSkills(turn.Injected)
	for _, name := range slices.Sorted(maps.Keys(given)) {
		switch v, ok := library[name]; {
		case !ok:
			return fmt.Sprintf("skill %s it was given was deleted", name), nil
		case v == 0:
			return fmt.Sprintf("skill %s it was given was retired", name), nil
		case v != given[name]:
			return fmt.Sprintf("skill %s it was given was updated (version %d → %d)", name, given[name], v), nil
		}
	}
	if l.selector == nil {
		return "", nil
	}
	msgs, err := transcript.Texts(turn.Request)
	if err != nil {
		return "", nil // nothing to retrieve on; the skills it had are unchanged
	}
	conv := make([]skills.Message, len(msgs))
	for i, m := range msgs {
		conv[i] = skills.Message{Role: m.Role, Text: m.Text}
	}
	sel, err := l.selector.Select(ctx, conv)
	if err != nil {
		return "", fmt.Errorf("check sample %d: retrieve: %w", s.ID, err)
	}
	now := map[string]bool{}
	for _, sk := range sel.Skills {
		now[sk.Name] = true
	}
	var added, dropped []string
	for name := range now {
		if _, ok := given[name]; !ok {
			added = append(added, name)
		}
	}
	for name := range given {
		if !now[name] {
			dropped = append(dropped, name)
		}
	}
	if len(added)+len(dropped) == 0 {
		return "", nil
	}
	return "retrieval for its prompt now picks other skills: " + setChange(added, dropped), nil
}

// setChange writes "+a +b −c".
func setChange(added, dropped []string) string {
	slices.Sort(added)
	slices.Sort(dropped)
	var parts []string
	for _, a := range added {
		parts = append(parts, "+"+a)
	}
	for _, d := range dropped {
		parts = append(parts, "−"+d)
	}
	return strings.Join(parts, " ")
}

// injectedSkills reads a turn's injected ids ("skill:name@3") as name →
// version.
func injectedSkills(js string) map[string]int {
	out := map[string]int{}
	var ids []string
	if json.Unmarshal([]byte(js), &ids) != nil {
		return out
	}
	for _, id := range ids {
		rest, ok := strings.CutPrefix(id, "skill:")
		if !ok {
			continue
		}
		name, v, _ := strings.Cut(rest, "@")
		out[name], _ = strconv.Atoi(v)
	}
	return out
}
