package evalsets

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// SkillTurn is one labelled agent turn: the request exactly as the agent
// sent it, and the skills that fit it.
type SkillTurn struct {
	ID string `json:"id"`
	// Agent names who sent it: openclaw, claude-code, nanoclaw, hermes,
	// plain (an SDK or script) or another connected agent.
	Agent string `json:"agent"`
	// API is the request's shape: "openai" (/v1/chat/completions) or
	// "anthropic" (/v1/messages).
	API string `json:"api"`
	// Noisy marks a turn wrapped the way real agents send them: tool
	// loops, tool results, envelopes, reminders, pasted logs.
	Noisy bool `json:"noisy"`
	// Request is the whole request body.
	Request json.RawMessage `json:"request"`
	// Relevant lists the skills that fit (names in skills/); empty means
	// the turn needs no skill.
	Relevant []string `json:"relevant"`
	// Acceptable lists skills that would not be wrong to inject but are
	// not needed; they count neither as hits nor as misses.
	Acceptable []string `json:"acceptable,omitempty"`
	Note       string   `json:"note,omitempty"`
}

// Message is one turn of a conversation.
type Message struct {
	Role string `json:"role"` // user or assistant
	Text string `json:"text"`
}

// Conversation is one session of one person.
type Conversation struct {
	Person    string    `json:"person"`
	SessionID string    `json:"session_id"`
	Date      time.Time `json:"date"` // when the session took place
	Turns     []Message `json:"turns"`
}

// Evidence points at one turn of one session (Turn indexes
// Conversation.Turns from 0).
type Evidence struct {
	SessionID string `json:"session_id"`
	Turn      int    `json:"turn"`
}

// Question is asked by Person at AskedAt; its answer is in Evidence.
type Question struct {
	ID       string     `json:"id"`
	Person   string     `json:"person"`
	AskedAt  time.Time  `json:"asked_at"`
	Question string     `json:"question"`
	Answer   string     `json:"answer,omitempty"`
	Evidence []Evidence `json:"evidence"`
	// Kind is "single" (one fact), "multi" (needs every piece of
	// evidence) or "temporal" (about when something happened).
	Kind string `json:"kind"`
}

// SkillAsks are one skill's asks (store.Skill.Asks): requests it is the
// right help for, written by a model from the skill's text alone, as the
// learner has them written (evolve.WriteAsks), without sight of the turns.
type SkillAsks struct {
	Skill string   `json:"skill"`
	Asks  []string `json:"asks"`
}

// SkillAsksIn are one skill's asks in other languages
// (store.Skill.AsksIn), by language code, written the same way with the
// learner's prompt for them (evolve.WriteAsksIn).
type SkillAsksIn struct {
	Skill string              `json:"skill"`
	Asks  map[string][]string `json:"asks"`
}

// Set is one loaded evaluation set.
type Set struct {
	Dir           string
	SkillsDir     string // pass to the skills importer
	Turns         []SkillTurn
	Conversations []Conversation
	Questions     []Question
	Asks          []SkillAsks   // asks.jsonl; none when the set has no such file
	AsksIn        []SkillAsksIn // asks_in.jsonl; likewise
}

// Load reads the set in dir. Missing memory files leave those parts empty;
// a malformed line is an error naming the file and line.
func Load(dir string) (*Set, error) {
	s := &Set{Dir: dir, SkillsDir: filepath.Join(dir, "skills")}
	if err := readLines(filepath.Join(dir, "turns.jsonl"), &s.Turns); err != nil {
		return nil, err
	}
	if err := readLines(filepath.Join(dir, "memory", "conversations.jsonl"), &s.Conversations); err != nil {
		return nil, err
	}
	if err := readLines(filepath.Join(dir, "memory", "questions.jsonl"), &s.Questions); err != nil {
		return nil, err
	}
	if err := readLines(filepath.Join(dir, "asks.jsonl"), &s.Asks); err != nil {
		return nil, err
	}
	if err := readLines(filepath.Join(dir, "asks_in.jsonl"), &s.AsksIn); err != nil {
		return nil, err
	}
	return s, nil
}

func readLines[T any](path string, out *[]T) error {
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return err
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 1<<20), 16<<20)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var v T
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&v); err != nil {
			return fmt.Errorf("%s:%d: %w", path, n, err)
		}
		*out = append(*out, v)
	}
	return sc.Err()
}
