package evalsets

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// dev4Dir is the fourth development set: turns over dev2's library
// (skills/ is a copy of dev2/skills), most of them not in English
// and about half needing no skill. Its README says how it was written.
const dev4Dir = "dev4"

// The promises of dev4/README.md.
const (
	d4MinTurns         = 150
	d4MinNonEnglishPct = 60 // percent of turns whose latest ask is not in English
	d4MinPerLanguage   = 12 // turns in each of es, it, pt, fr, de
	d4MinNoSkillPct    = 45 // percent of turns that need no skill
	d4MinNoSkillPerLng = 10 // no-skill turns in each of es, it, pt, fr, de
	d4MinSkillPerLng   = 8  // turns needing a skill in each language, English too
	d4MinMixed         = 3  // asks in one language with pasted English output
	d4MinPerAgent      = 5
	d4MinPerAPI        = 40
	d4MinToolLoops     = 15
	d4MaxRelevant      = 2
)

// d4Languages are the language codes a note may name; d4Foreign are the
// ones the set promises a minimum of.
var (
	d4Languages = []string{"en", "es", "it", "pt", "fr", "de"}
	d4Foreign   = []string{"es", "it", "pt", "fr", "de"}
)

func TestDev4Turns(t *testing.T) {
	// dev4's library, asks and asks in other languages are dev2's, copied.
	for _, name := range []string{"asks.jsonl", "asks_in.jsonl"} {
		a, errA := os.ReadFile(filepath.Join(dev4Dir, name))
		b, errB := os.ReadFile(filepath.Join("dev2", name))
		if errA != nil || errB != nil || string(a) != string(b) {
			t.Errorf("dev4/%s is not a copy of dev2's (%v, %v)", name, errA, errB)
		}
	}
	if a, b := heldoutSkills(t, filepath.Join(dev4Dir, "skills")), heldoutSkills(t, filepath.Join("dev2", "skills")); !maps.Equal(a, b) {
		t.Errorf("dev4/skills (%d skills) is not a copy of dev2/skills (%d)", len(a), len(b))
	} else {
		for name := range a {
			x, _ := os.ReadFile(filepath.Join(dev4Dir, "skills", name, "SKILL.md"))
			y, _ := os.ReadFile(filepath.Join("dev2", "skills", name, "SKILL.md"))
			if len(x) == 0 || string(x) != string(y) {
				t.Errorf("dev4/skills/%s/SKILL.md differs from dev2's", name)
			}
		}
	}
	s := loadSet(t, dev4Dir)
	lib := heldoutSkills(t, s.SkillsDir)
	n := tallyTurns(t, s.Turns, lib)

	byLang, noneByLang, skillByLang := map[string]int{}, map[string]int{}, map[string]int{}
	var mixed, loops int
	for i, turn := range s.Turns {
		if want := fmt.Sprintf("d4-%03d", i+1); turn.ID != want {
			t.Errorf("turn %d: id %q, want %q", i+1, turn.ID, want)
		}
		if len(turn.Relevant) > d4MaxRelevant {
			t.Errorf("turn %s: %d relevant skills, want at most %d", turn.ID, len(turn.Relevant), d4MaxRelevant)
		}
		lang, isMixed, err := d4Language(turn.Note)
		if err != nil {
			t.Errorf("turn %s: note: %v", turn.ID, err)
		}
		byLang[lang]++
		if len(turn.Relevant) == 0 {
			noneByLang[lang]++
		} else {
			skillByLang[lang]++
		}
		if isMixed {
			if lang == "en" {
				t.Errorf("turn %s: a mixed turn's ask is not in English", turn.ID)
			}
			mixed++
		}
		loop, err := d4CheckTurn(turn)
		if err != nil {
			t.Errorf("turn %s (%s/%s): %v", turn.ID, turn.Agent, turn.API, err)
		}
		if loop {
			loops++
		}
	}
	total := len(s.Turns)
	foreign := total - byLang["en"]
	noneForeign := n.none - noneByLang["en"]
	t.Logf("turns: %d (%d noisy, %d need no skill, %d tool loops, %d mixed); languages %v; no skill by language %v; agents %v; APIs %v",
		total, n.noisy, n.none, loops, mixed, byLang, noneByLang, n.agents, n.apis)

	atLeast(t, "turns", total, d4MinTurns)
	atLeast(t, "non-English turns (% of all)", 100*foreign/max(total, 1), d4MinNonEnglishPct)
	atLeast(t, "turns that need no skill (% of all)", 100*n.none/max(total, 1), d4MinNoSkillPct)
	if noneForeign*2 <= n.none {
		t.Errorf("no-skill turns not in English: %d of %d, want most", noneForeign, n.none)
	}
	for _, l := range d4Foreign {
		atLeast(t, l+" turns", byLang[l], d4MinPerLanguage)
		atLeast(t, l+" turns that need no skill", noneByLang[l], d4MinNoSkillPerLng)
	}
	for _, l := range d4Languages {
		atLeast(t, l+" turns that need a skill", skillByLang[l], d4MinSkillPerLng)
	}
	atLeast(t, "mixed-language turns", mixed, d4MinMixed)
	atLeast(t, "noisy turns (x3)", 3*n.noisy, total)
	atLeast(t, "tool loops", loops, d4MinToolLoops)
	for _, a := range []string{"openclaw", "claude-code", "nanoclaw", "hermes", "plain"} {
		atLeast(t, "turns from "+a, n.agents[a], d4MinPerAgent)
	}
	for _, a := range []string{"openai", "anthropic"} {
		atLeast(t, a+" turns", n.apis[a], d4MinPerAPI)
	}
	apisOf := map[string]map[string]bool{}
	for _, turn := range s.Turns {
		if apisOf[turn.Agent] == nil {
			apisOf[turn.Agent] = map[string]bool{}
		}
		apisOf[turn.Agent][turn.API] = true
	}
	if !apisOf["openclaw"]["openai"] || !apisOf["openclaw"]["anthropic"] {
		t.Errorf("openclaw turns use %v, want both APIs", apisOf["openclaw"])
	}
}

// d4Language reads a note's leading "language: xx" and whether the note
// marks the turn as mixed ("; mixed: ...").
func d4Language(note string) (lang string, mixed bool, err error) {
	first, rest, _ := strings.Cut(note, ";")
	code, ok := strings.CutPrefix(first, "language: ")
	if !ok || !slices.Contains(d4Languages, code) {
		return "", false, fmt.Errorf("%q does not start with \"language: xx\" (xx one of %v)", note, d4Languages)
	}
	if strings.TrimSpace(rest) == "" {
		return code, false, fmt.Errorf("%q says nothing after the language", note)
	}
	return code, strings.Contains(rest, " mixed: "), nil
}

// d4Body is the part of either API's body the agent checks read.
type d4Body struct {
	Model    string          `json:"model"`
	System   json.RawMessage `json:"system"`
	Stream   bool            `json:"stream"`
	Metadata *struct {
		UserID string `json:"user_id"`
	} `json:"metadata"`
	MaxTokens int               `json:"max_tokens"`
	Tools     []json.RawMessage `json:"tools"`
	Messages  []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
}

// d4Texts returns the text of a message's content, string or blocks.
func d4Texts(raw json.RawMessage) (texts []string, toolResults int) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []string{s}, 0
	}
	var blocks []struct {
		Type    string          `json:"type"`
		Text    string          `json:"text"`
		Content json.RawMessage `json:"content"`
	}
	_ = json.Unmarshal(raw, &blocks)
	for _, b := range blocks {
		switch b.Type {
		case "text":
			texts = append(texts, b.Text)
		case "tool_result":
			toolResults++
		}
	}
	return texts, toolResults
}

// d4CheckTurn checks what the README promises of each agent's requests
// and of the noisy flag, and reports whether the request is a tool loop
// (it carries a tool result).
func d4CheckTurn(turn SkillTurn) (loop bool, err error) {
	var b d4Body
	if err := json.Unmarshal(turn.Request, &b); err != nil {
		return false, err
	}
	var keys map[string]json.RawMessage
	_ = json.Unmarshal(turn.Request, &keys)
	var systemMsgs, others int
	var all []string
	for _, m := range b.Messages {
		texts, results := d4Texts(m.Content)
		all = append(all, texts...)
		if m.Role == "tool" || results > 0 {
			loop = true
		}
		if m.Role == "system" || m.Role == "developer" {
			systemMsgs++
		} else {
			others++
		}
	}
	joined := strings.Join(all, "\n")
	if !turn.Noisy && (loop || others != 1) {
		return loop, fmt.Errorf("not noisy, but it is more than a system prompt and one ask (%d messages, tool loop %v)", others, loop)
	}
	lastTexts, _ := d4Texts(b.Messages[len(b.Messages)-1].Content)
	last := strings.Join(lastTexts, "\n")
	switch turn.Agent {
	case "claude-code":
		if b.Metadata == nil || !strings.HasPrefix(b.Metadata.UserID, "user_") || !strings.Contains(b.Metadata.UserID, "_session_") {
			return loop, fmt.Errorf("want metadata.user_id user_…_account_…_session_…")
		}
		if !strings.Contains(string(b.System), "You are Claude Code, Anthropic's official CLI for Claude.") && len(b.Tools) > 0 {
			return loop, fmt.Errorf("system lacks the CLI identity block")
		}
		if len(b.Tools) > 0 { // a working turn, not a title/quota/compact call
			var sys []struct{ Text string }
			if json.Unmarshal(b.System, &sys) != nil || len(sys) != 2 || !strings.Contains(sys[1].Text, "<env>") {
				return loop, fmt.Errorf("want two system blocks, the second with <env>")
			}
			if b.MaxTokens != 32000 || !b.Stream || !strings.Contains(joined, "<system-reminder>") || !turn.Noisy {
				return loop, fmt.Errorf("want max_tokens 32000, stream, a <system-reminder> and noisy")
			}
		}
	case "openclaw":
		if !b.Stream || !strings.Contains(last, "<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>") || !turn.Noisy {
			return loop, fmt.Errorf("want stream, the internal-context message last, and noisy")
		}
		if !strings.Contains(joined+string(b.System), "<!-- openclaw:attempt:DYNAMIC -->") {
			return loop, fmt.Errorf("system prompt lacks the STABLE/DYNAMIC split")
		}
		if turn.API == "openai" {
			want := []string{"max_completion_tokens", "messages", "model", "stream", "stream_options", "tool_choice", "tools"}
			got := make([]string, 0, len(keys))
			for k := range keys {
				got = append(got, k)
			}
			slices.Sort(got)
			if !slices.Equal(got, want) {
				return loop, fmt.Errorf("body keys %v, want exactly %v", got, want)
			}
		}
	case "hermes":
		if systemMsgs != 1 || !strings.Contains(joined, "MEMORY (your personal notes)") || !strings.Contains(joined, "USER PROFILE") ||
			!strings.Contains(joined, "<available_skills>") || !strings.Contains(joined, "Telegram") {
			return loop, fmt.Errorf("want one system message with identity, MEMORY, USER PROFILE, skills index and the Telegram hint")
		}
	case "nanoclaw":
		if !strings.Contains(joined, "<messages>\n<message sender=") || !turn.Noisy || b.Metadata == nil {
			return loop, fmt.Errorf("want a <messages><message sender=…> envelope, metadata and noisy")
		}
	}
	return loop, nil
}
