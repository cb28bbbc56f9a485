// Command gen writes the development set's turns.jsonl and memory files
// from the specifications in this folder: each turn's human text, its
// labels and the agent that sends it, wrapped the way that agent wraps
// requests (see wrap.go). Run it from the repository root:
//
//	go run ./app/learner/evalsets/dev/gen
//
// The development set is the one retrieval is tuned on; the held-out set
// next to it is written independently and never read from here.
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/metaclaw/metaclaw/app/learner/evalsets"
)

// spec is one labelled turn before wrapping.
type spec struct {
	id    string
	agent string // a key of wrappers
	text  string // what the person wrote this turn
	rel   []string
	acc   []string
	hist  []string // earlier messages of the person in the same session, oldest first
	tools []step   // the tool loop the agent ran after text, before this request
	note  string
}

// step is one tool call of an agent's loop and its result.
type step struct {
	tool, args, output string
}

func main() {
	out := filepath.Join("app", "learner", "evalsets", "dev")
	if len(os.Args) > 1 {
		out = os.Args[1]
	}
	var all []spec
	for _, part := range [][]spec{codingTurns, dataTurns, workTurns, noSkillTurns, noisyTurns, noisyMoreTurns} {
		all = append(all, part...)
	}
	seen := map[string]bool{}
	var buf bytes.Buffer
	for _, s := range all {
		if seen[s.id] {
			log.Fatalf("turn id %s repeats", s.id)
		}
		seen[s.id] = true
		w, ok := wrappers[s.agent]
		if !ok {
			log.Fatalf("turn %s: unknown agent %q", s.id, s.agent)
		}
		req, err := json.Marshal(w.build(s))
		if err != nil {
			log.Fatalf("turn %s: %v", s.id, err)
		}
		t := evalsets.SkillTurn{ID: s.id, Agent: w.agent, API: w.api, Noisy: w.noisy || len(s.tools) > 0 || hasPaste(s.text),
			Request: req, Relevant: nonNil(s.rel), Acceptable: s.acc, Note: s.note}
		line, err := json.Marshal(t)
		if err != nil {
			log.Fatal(err)
		}
		buf.Write(line)
		buf.WriteByte('\n')
	}
	write(filepath.Join(out, "turns.jsonl"), buf.Bytes())
	writeMemory(filepath.Join(out, "memory"))
	fmt.Printf("wrote %d turns\n", len(all))
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func write(path string, data []byte) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		log.Fatal(err)
	}
}
