package evolve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/metaclaw/metaclaw/app/learner/internal/transcript"
	"github.com/metaclaw/metaclaw/app/learner/redact"
	"github.com/metaclaw/metaclaw/store"
)

// Limits on what the evolver is shown. Judging at session end scores only
// what it reads: the final answers of at most MaxTurns requests among the
// latest MaxReadTurns main turns.
const (
	MaxTurns        = 8    // turns shown
	MaxReadTurns    = 48   // latest main turns read to choose them from
	maxTurnText     = 1200 // instruction, response, next message: bytes each
	maxToolArgs     = 300
	maxToolCalls    = 6
	maxSkillBody    = 2000
	maxRelated      = 8
	maxLibraryNames = 200
)

// shownTurn is one turn as the evolver sees it.
type shownTurn struct {
	turn        store.Turn
	score       *store.Score // nil when unscored
	instruction string
	next        string // the person's next message, when it differs
}

// material is everything the evolver is shown about a session.
type material struct {
	sessionID string
	mainTurns int
	allTurns  map[int64]bool // every turn id of the session
	byScore   bool           // the turns were chosen by their scores
	turns     []shownTurn
	injected  []store.Skill
	related   []store.Skill
	library   []string // names of enabled skills
}

func (m *material) turnIDs() []int64 {
	ids := make([]int64, len(m.turns))
	for i, t := range m.turns {
		ids[i] = t.turn.ID
	}
	return ids
}

// gather reads the session's main turns and scores, picks the turns to
// show — the low-scored ones (score ≤ 0), or every turn when none is
// scored — and the skills that matter to them.
func (e *Evolver) gather(ctx context.Context, sessionID string) (*material, error) {
	heads, err := e.db.SessionTurnHeads(ctx, sessionID)
	if err != nil {
		return nil, err
	}
	m := &material{sessionID: sessionID, allTurns: map[int64]bool{}}
	for _, h := range heads {
		m.allTurns[h.ID] = true
		if h.Type == store.TurnMain {
			m.mainTurns++
		}
	}
	// Only the latest turns are read with their bodies: each request holds
	// the whole conversation so far, so reading a long session in full is
	// quadratic, and evolution runs every few turns anyway.
	turns, err := e.db.RecentSessionTurnsBrief(ctx, sessionID, store.TurnMain, MaxReadTurns)
	if err != nil {
		return nil, err
	}
	digests, err := e.digests.Of(ctx, e.db, turns)
	if err != nil {
		return nil, err
	}
	var all []shownTurn
	for i, t := range turns {
		st, err := e.readTurn(ctx, t, digests[i].Instruction)
		if err != nil {
			return nil, err
		}
		all = append(all, st)
	}
	linkNext(all)
	m.turns, m.byScore = selectTurns(all)
	if err := e.gatherSkills(ctx, m); err != nil {
		return nil, err
	}
	return m, nil
}

func (e *Evolver) readTurn(ctx context.Context, t store.Turn, instruction string) (shownTurn, error) {
	st := shownTurn{turn: t, instruction: instruction}
	sc, err := e.db.TurnScore(ctx, t.ID)
	switch {
	case err == nil:
		st.score = &sc
	case !errors.Is(err, store.ErrNotFound):
		return st, err
	}
	return st, nil
}

// linkNext gives each turn the person's next message when the next main
// turn carries a different instruction.
func linkNext(turns []shownTurn) {
	for i := 0; i+1 < len(turns); i++ {
		if n := turns[i+1].instruction; n != "" && n != turns[i].instruction {
			turns[i].next = n
		}
	}
}

// selectTurns keeps the turns with a response that scored ≤ 0, or every
// turn with a response when none is scored; at most MaxTurns, the worst and
// most recent first, shown in session order.
func selectTurns(all []shownTurn) ([]shownTurn, bool) {
	byScore := false
	for _, t := range all {
		byScore = byScore || t.score != nil
	}
	var sel []shownTurn
	for _, t := range all {
		if t.turn.ResponseText == "" && t.turn.ToolCalls == "" {
			continue
		}
		if !byScore || (t.score != nil && t.score.Score <= 0) {
			sel = append(sel, t)
		}
	}
	if len(sel) > MaxTurns {
		sort.SliceStable(sel, func(i, j int) bool {
			si, sj := scoreOf(sel[i]), scoreOf(sel[j])
			if si != sj {
				return si < sj
			}
			return sel[i].turn.TurnNum > sel[j].turn.TurnNum
		})
		sel = sel[:MaxTurns]
		sort.SliceStable(sel, func(i, j int) bool { return sel[i].turn.TurnNum < sel[j].turn.TurnNum })
	}
	return sel, byScore
}

func scoreOf(t shownTurn) int {
	if t.score == nil {
		return 0
	}
	return t.score.Score
}

// gatherSkills loads the skills injected in the shown turns, related
// skills found by searching the instructions, and the library's names.
func (e *Evolver) gatherSkills(ctx context.Context, m *material) error {
	seen := map[string]bool{}
	if err := e.gatherInjected(ctx, m, seen); err != nil {
		return err
	}
	var query []string
	for _, t := range m.turns {
		query = append(query, t.instruction)
	}
	hits, err := e.db.SearchSkills(ctx, transcript.Trim(strings.Join(query, "\n"), 2000), maxRelated+len(seen))
	if err != nil {
		return err
	}
	for _, h := range hits {
		if !seen[h.Name] && len(m.related) < maxRelated {
			seen[h.Name] = true
			m.related = append(m.related, h.Skill)
		}
	}
	lib, err := e.db.Skills(ctx, false)
	if err != nil {
		return err
	}
	for _, s := range lib[:min(len(lib), maxLibraryNames)] {
		m.library = append(m.library, s.Name)
	}
	return nil
}

// gatherInjected loads the current version of every skill injected in the
// shown turns (skills deleted since are left out), marking them in seen.
func (e *Evolver) gatherInjected(ctx context.Context, m *material, seen map[string]bool) error {
	for _, t := range m.turns {
		for _, name := range injectedSkills(t.turn.Injected) {
			if seen[name] {
				continue
			}
			seen[name] = true
			s, err := e.db.Skill(ctx, name)
			if errors.Is(err, store.ErrNotFound) {
				continue
			}
			if err != nil {
				return err
			}
			m.injected = append(m.injected, s)
		}
	}
	return nil
}

// injectedSkills returns the skill names of a turn's injected ids
// ("skill:name@version"), in order.
func injectedSkills(js string) []string {
	var ids []string
	if js == "" || json.Unmarshal([]byte(js), &ids) != nil {
		return nil
	}
	var out []string
	for _, id := range ids {
		if rest, ok := strings.CutPrefix(id, "skill:"); ok {
			name, _, _ := strings.Cut(rest, "@")
			out = append(out, name)
		}
	}
	return out
}

// clean redacts and trims text for the prompt, and keeps it from closing
// the prompt's own sections.
func clean(s string, max int) string {
	s = transcript.Trim(redact.Redact(strings.TrimSpace(s)), max)
	for _, tag := range promptTags {
		s = strings.ReplaceAll(s, "</"+tag+">", "<\\/"+tag+">")
	}
	return s
}

// promptTags are the sections of the evolver's prompt.
var promptTags = []string{"turn", "instruction", "response", "judge_reasons", "next_user_message", "skill",
	"injected_skills", "related_skills", "library_names"}

// prompt renders the material as the evolver's user message.
func (m *material) prompt() string {
	var b strings.Builder
	how := "the whole session (no judge scores yet)"
	if m.byScore {
		how = "the turns the judge scored 0 or -1"
	}
	fmt.Fprintf(&b, "Session %s: %d main turns. Shown: %s.\n\n", m.sessionID, m.mainTurns, how)
	prev := ""
	for _, t := range m.turns {
		writeTurn(&b, t, prev)
		prev = t.instruction
	}
	writeSkills(&b, m)
	return b.String()
}

func writeTurn(b *strings.Builder, t shownTurn, prevInstruction string) {
	if t.score != nil {
		fmt.Fprintf(b, "<turn id=\"%d\" score=\"%d\">\n", t.turn.ID, t.score.Score)
	} else {
		fmt.Fprintf(b, "<turn id=\"%d\">\n", t.turn.ID)
	}
	instruction := clean(t.instruction, maxTurnText)
	if t.instruction != "" && t.instruction == prevInstruction {
		instruction = "(same instruction as the turn before: the agent was carrying on)"
	}
	fmt.Fprintf(b, "<instruction>\n%s\n</instruction>\n", orNone(instruction))
	fmt.Fprintf(b, "<response>\n%s%s\n</response>\n", orNone(clean(t.turn.ResponseText, maxTurnText)), toolCalls(t.turn.ToolCalls))
	if t.score != nil && len(t.score.Reasons) > 0 {
		b.WriteString("<judge_reasons>\n")
		for _, r := range t.score.Reasons {
			fmt.Fprintf(b, "- %s\n", clean(r, 300))
		}
		b.WriteString("</judge_reasons>\n")
	}
	if t.next != "" {
		fmt.Fprintf(b, "<next_user_message>\n%s\n</next_user_message>\n", clean(t.next, maxTurnText))
	}
	b.WriteString("</turn>\n\n")
}

func toolCalls(js string) string {
	calls := transcript.ResponseToolCalls(js)
	if len(calls) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("\nTool calls:")
	for i, c := range calls {
		if i == maxToolCalls {
			fmt.Fprintf(&b, "\n(%d more)", len(calls)-i)
			break
		}
		fmt.Fprintf(&b, "\n- %s %s", c.Name, clean(c.Arguments, maxToolArgs))
	}
	return b.String()
}

func writeSkills(b *strings.Builder, m *material) {
	b.WriteString("<injected_skills>\n")
	if len(m.injected) == 0 {
		b.WriteString("(none)\n")
	}
	for _, s := range m.injected {
		fmt.Fprintf(b, "<skill name=%q category=%q tags=%q>\ndescription: %s\n\n%s\n</skill>\n", s.Name, s.Category,
			strings.Join(s.Tags, ", "), clean(s.Description, 400), clean(s.Body, maxSkillBody))
	}
	b.WriteString("</injected_skills>\n\n<related_skills>\n")
	for _, s := range m.related {
		fmt.Fprintf(b, "- %s: %s\n", s.Name, clean(s.Description, 300))
	}
	if len(m.related) == 0 {
		b.WriteString("(none)\n")
	}
	fmt.Fprintf(b, "</related_skills>\n\n<library_names>\n%s\n</library_names>\n", orNone(strings.Join(m.library, ", ")))
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}
