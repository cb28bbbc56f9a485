// Package benchtest holds what the tests of `metaclaw bench` share: a
// scripted model (on proxy/fakeupstream) that plays the agent, the skill
// evolver and the memory extractor on app/bench/testdata's mini
// benchmark, and the scores it earns there, computed by hand. Only tests
// import it.
package benchtest

import (
	"encoding/json"
	"strings"

	"github.com/metaclaw/metaclaw/proxy/fakeupstream"
)

// Markers the model looks for in its system prompt: the skill the evolver
// adds after day 1 and the memory extracted from day 1, once MetaClaw
// injects them.
const (
	SkillMarker  = "SKILL-MARKER"
	MemoryMarker = "MEMORY-MARKER"
	SkillName    = "dated-status-report-names"
)

// Usage of every agent reply and of every learning reply.
var (
	AgentUsage    = fakeupstream.Usage{PromptTokens: 100, CompletionTokens: 10}
	LearningUsage = fakeupstream.Usage{PromptTokens: 50, CompletionTokens: 5}
)

// Model returns the scripted model. How it answers (the scores follow in
// Scores):
//
//	day01 r1 (A,C of 4)   \bbox{A}                  0.75 (one missed)
//	day01 r2 (file)       writes day01/report.json   0 (no date prefix, no owner)
//	day01 r3 (B of 5)     "I think it is B."         0 (no \bbox)
//	day02 r1 (file)       skill+memory: a dated report with an owner (passes);
//	                      skill: dated without owner; else report.json (fail)
//	day02 r2 (A,B,D of 6) skill: \bbox{A,B,D} 1; else \bbox{A,B,C} 1−2/6
//	day03 r1 (C of 4)     memory: \boxed{C} 1; else \bbox{C,D} 0.75
//	day03 r2 (file)       as day02 r1
//
// The evolver adds the skill after day 1 and proposes nothing after day 2;
// the extractor records the memory from day 1 and nothing from day 2.
// before, when set, is called with every conversation first (tests use it
// to interrupt a run).
func Model(before func(fakeupstream.Conversation)) *fakeupstream.Model {
	agent := func(r fakeupstream.Reply) fakeupstream.Reply { r.Usage = &AgentUsage; return r }
	text := func(s string) []fakeupstream.Reply { return []fakeupstream.Reply{agent(fakeupstream.Reply{Text: s})} }
	write := func(path, content string) []fakeupstream.Reply {
		args, _ := json.Marshal(map[string]string{"path": path, "content": content})
		return []fakeupstream.Reply{
			agent(fakeupstream.Reply{ToolCalls: []fakeupstream.ToolCall{{Name: "write", Arguments: string(args)}}}),
			agent(fakeupstream.Reply{Text: "Saved " + path + "."}),
		}
	}
	learn := func(s string) []fakeupstream.Reply {
		return []fakeupstream.Reply{{Text: s, Usage: &LearningUsage}}
	}
	has := func(markers ...string) func(fakeupstream.Conversation) bool {
		return func(c fakeupstream.Conversation) bool {
			if before != nil {
				before(c)
			}
			for _, m := range markers {
				if !strings.Contains(c.System, m) {
					return false
				}
			}
			return true
		}
	}
	report := func(round, dir, date string) []fakeupstream.Rule {
		dated := dir + "/" + date + "_status_report.json"
		return []fakeupstream.Rule{
			{Name: round + "-both", User: "[" + round + "]", Match: has(SkillMarker, MemoryMarker),
				Steps: write(dated, `{"owner": "sam", "status": "ok"}`)},
			{Name: round + "-skill", User: "[" + round + "]", Match: has(SkillMarker), Steps: write(dated, `{"status": "ok"}`)},
			{Name: round, User: "[" + round + "]", Match: has(), Steps: write(dir+"/report.json", `{"status": "ok"}`)},
		}
	}
	rules := []fakeupstream.Rule{
		{Name: "evolver-day1", System: "You maintain the skill library", User: "[d1r1]", Steps: learn(evolverOps)},
		{Name: "evolver", System: "You maintain the skill library", Steps: learn(`{"operations": []}`)},
		{Name: "extract-day1", System: "You maintain the long-term memory", User: "[d1r1]", Steps: learn(memories)},
		{Name: "extract", System: "You maintain the long-term memory", Steps: learn(`{"memories": []}`)},
		{Name: "judge", System: "process reward model", Steps: learn(`{"score": -1, "reason": "the user had to correct it"}`)},
		{Name: "asks", System: "example requests", Steps: learn(`{"asks": ["name my status report with today's date", "who owns this report?", "nombre del informe con fecha"]}`)},
		{Name: "d1r1", User: "[d1r1]", Match: has(), Steps: text(`Both A and C look right, but I pick \bbox{A}.`)},
		{Name: "d1r2", User: "[d1r2]", Match: has(), Steps: write("day01/report.json", `{"status": "ok"}`)},
		{Name: "d1r3", User: "[d1r3]", Match: has(), Steps: text("I think it is B.")},
	}
	rules = append(rules, report("d2r1", "day02", "20260317")...)
	rules = append(rules,
		fakeupstream.Rule{Name: "d2r2-skill", User: "[d2r2]", Match: has(SkillMarker), Steps: text(`\bbox{A,B,D}`)},
		fakeupstream.Rule{Name: "d2r2", User: "[d2r2]", Match: has(), Steps: text(`\bbox{A,B,C}`)},
		fakeupstream.Rule{Name: "d3r1-memory", User: "[d3r1]", Match: has(MemoryMarker), Steps: text(`It is \boxed{C}.`)},
		fakeupstream.Rule{Name: "d3r1", User: "[d3r1]", Match: has(), Steps: text(`\bbox{C,D}`)},
	)
	rules = append(rules, report("d3r2", "day03", "20260318")...)
	rules = append(rules, fakeupstream.Rule{Name: "feedback", Match: func(c fakeupstream.Conversation) bool {
		return strings.HasPrefix(c.LastUser, "[Previous Feedback]") || strings.HasPrefix(c.LastUser, "That is all for today")
	}, Steps: text("Noted, thank you.")})
	return fakeupstream.NewModel(fakeupstream.TextReply("unexpected request"), rules...)
}

const evolverOps = `{"operations": [{"op": "add", "name": "` + SkillName + `",
 "description": "When you write a status report file into a day folder.",
 "category": "productivity", "tags": ["status", "report"],
 "body": "Name every status report file YYYYMMDD_status_report.json, with today's date first. ` + SkillMarker + `",
 "reason": "The report was named without its date."}]}`

const memories = `{"memories": [{"type": "preference", "topic": "status report owner",
 "content": "The user wants every status report to name its owner (` + MemoryMarker + `).", "importance": 0.9, "confidence": 0.9}]}`

// Scores are the round scores each arm earns, by day and round, computed
// by hand from the model above and the mini benchmark's keys:
// multi_choice 1 − (FP+FN)/options, 0 without a box; file_check 1 or 0.
var Scores = map[string]map[string]float64{
	"base": {"day01/r1": 0.75, "day01/r2": 0, "day01/r3": 0, "day02/r1": 0, "day02/r2": 1 - 2.0/6,
		"day03/r1": 0.75, "day03/r2": 0},
	"skills": {"day01/r1": 0.75, "day01/r2": 0, "day01/r3": 0, "day02/r1": 0, "day02/r2": 1,
		"day03/r1": 0.75, "day03/r2": 0},
	"skills+memory": {"day01/r1": 0.75, "day01/r2": 0, "day01/r3": 0, "day02/r1": 1, "day02/r2": 1,
		"day03/r1": 1, "day03/r2": 1},
}
