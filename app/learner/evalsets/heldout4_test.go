package evalsets

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/metaclaw/metaclaw/app/learner/skills"
)

// heldout4Dir is the fourth held-out set: one imagined person's library
// (data engineering at work, a small ceramics shop, a household) over the
// whole starter bank, and agent turns labelled without sight of the
// retrieval code or the other sets. Its README says how it was written.
const heldout4Dir = "heldout4"

// The fourth held-out set's promised sizes.
const (
	h4StarterSkills    = 49
	h4MinNewSkills     = 65
	h4MinMistakeSkills = 4
	h4MinTurns         = 180
	h4MinNoisyTurns    = 60
	h4MinNoSkillTurns  = 30
	h4MinNonEnglish    = 12
	h4MinStarterUsed   = 40
	h4MinToolLoops     = 20
	h4MinAcceptable    = 30
	h4MinTurnsPerAgent = 5
	h4MinTurnsPerAPI   = 40
	h4MaxRelevant      = 2
	h4MinGroups        = 12
	h4MinBodyWords     = 80
	h4MaxBodyWords     = 250
)

// h4Groups are the set's near-neighbour groups: skills easy to confuse
// with each other (README, "Near-neighbour groups").
var h4Groups = map[string][]string{
	"sql":              {"write-sql-query", "sql-window-functions", "warehouse-query-tuning"},
	"dbt-history":      {"dbt-incremental-models", "dbt-snapshots-scd2", "mistake-full-refresh-in-prod"},
	"numbers-disagree": {"check-data-before-conclusions", "reconcile-two-data-sources", "data-quality-tests"},
	"warehouse-cost":   {"snowflake-cost-control", "bigquery-partitioning-costs"},
	"scheduling":       {"cron-scheduled-jobs", "airflow-dag-authoring", "airflow-backfill-reruns"},
	"charts":           {"choose-chart-type", "dashboard-for-stakeholders"},
	"statistics":       {"statistics-sanity-check", "ab-test-readout", "mistake-average-of-averages"},
	"time":             {"date-time-timezone-pitfalls", "mistake-utc-day-boundaries", "schedule-across-time-zones"},
	"vague-requests":   {"ask-one-clarifying-question", "data-request-intake"},
	"hard-messages":    {"deliver-bad-news-politely", "customer-service-replies", "mentoring-junior-analyst"},
	"shop-b2b":         {"wholesale-and-consignment", "handmade-pricing"},
	"money":            {"family-budget-monthly", "subscription-audit", "bookkeeping-monthly-close"},
	"tax":              {"personal-tax-return", "vat-small-business-eu"},
	"travel":           {"family-trip-itinerary", "packing-list", "flight-delay-compensation"},
	"home":             {"home-maintenance-calendar", "home-repair-troubleshooting", "insurance-claims"},
	"quotes":           {"compare-options-decision-table", "hiring-tradespeople"},
	"explaining":       {"explain-to-non-technical-reader", "present-analysis-to-leadership", "kids-homework-help"},
	"languages":        {"translate-and-localize", "italian-practice-corrections"},
	"files":            {"batch-file-operations-dry-run", "family-photo-library"},
	"local-data":       {"clean-csv-data", "pandas-large-files", "duckdb-on-local-files"},
	"health":           {"child-fever-and-illness", "doctor-visit-prep"},
	"joins":            {"mistake-join-fanout-sums", "lookml-explores-joins"},
}

// h4Languages are the languages a turn's note may name ("language: xx").
var h4Languages = []string{"de", "es", "fr", "it", "pt"}

var h4LanguageNote = regexp.MustCompile(`\blanguage: ([a-z]{2})\b`)

func TestHeldout4Skills(t *testing.T) {
	dir := filepath.Join(heldout4Dir, "skills")
	lib := heldoutSkills(t, dir)
	fresh, mistakes := countLibrary(t, lib)
	atLeast(t, "new skills", fresh, h4MinNewSkills)
	atLeast(t, mistakesCategory+" skills", mistakes, h4MinMistakeSkills)
	if got, want := len(lib), h4StarterSkills+fresh; got != want {
		t.Errorf("skills: %d, want the %d starter skills plus %d new", got, h4StarterSkills, fresh)
	}

	// Every starter skill, byte for byte, less its asks.
	n := checkStarterCopies(t, heldout4Dir)
	if n != h4StarterSkills {
		t.Errorf("the starter bank has %d skills, the set promises %d", n, h4StarterSkills)
	}

	// No asks anywhere; new skills read like the bank's.
	isStarter := starterNames(t)
	for name, data := range readSkillFiles(t, dir, lib) {
		if isStarter[name] {
			continue
		}
		in, err := skills.Parse(data)
		if err != nil {
			t.Errorf("%s/SKILL.md: %v", name, err)
			continue
		}
		if words := len(strings.Fields(in.Body)); words < h4MinBodyWords || words > h4MaxBodyWords {
			t.Errorf("%s: body of %d words, want %d–%d", name, words, h4MinBodyWords, h4MaxBodyWords)
		}
		if !strings.Contains(in.Body, "Avoid:") || !strings.Contains(in.Body, "\n1. ") && !strings.HasPrefix(in.Body, "1. ") {
			t.Errorf("%s: body wants numbered steps and an Avoid: line", name)
		}
		if mistake := lib[name] == mistakesCategory; mistake != strings.HasPrefix(in.Description, "Mistake to avoid:") {
			t.Errorf("%s: a %s skill's description, and only its, starts \"Mistake to avoid:\"", name, mistakesCategory)
		}
	}
}

func TestHeldout4Turns(t *testing.T) {
	s := loadSet(t, heldout4Dir)
	lib := heldoutSkills(t, s.SkillsDir)
	n := tallyTurns(t, s.Turns, lib)
	var loops, acceptable int
	languages := map[string]int{}
	for i, turn := range s.Turns {
		if want := fmt.Sprintf("h4-%03d", i+1); turn.ID != want {
			t.Errorf("turn %d has id %q, want %q", i+1, turn.ID, want)
		}
		if len(turn.Relevant) > h4MaxRelevant {
			t.Errorf("turn %s: %d relevant skills, want at most %d", turn.ID, len(turn.Relevant), h4MaxRelevant)
		}
		for _, name := range turn.Acceptable {
			if slices.Contains(turn.Relevant, name) {
				t.Errorf("turn %s: %s is both relevant and acceptable", turn.ID, name)
			}
		}
		if len(turn.Acceptable) > 0 {
			acceptable++
		}
		shape, err := h4Shape(turn)
		if err != nil {
			t.Errorf("turn %s: %v", turn.ID, err)
			continue
		}
		if shape.toolLoop {
			loops++
		}
		if !turn.Noisy && !shape.plain {
			t.Errorf("turn %s carries more than a system prompt and one plain ask but is not marked noisy", turn.ID)
		}
		if m := h4LanguageNote.FindStringSubmatch(turn.Note); m != nil {
			if !slices.Contains(h4Languages, m[1]) {
				t.Errorf("turn %s: note names language %q, want one of %v", turn.ID, m[1], h4Languages)
			}
			languages[m[1]]++
		}
	}
	nonEnglish := 0
	for _, c := range languages {
		nonEnglish += c
	}
	t.Logf("turns: %d (%d noisy, %d need no skill, %d tool loops, %d with acceptable); languages %v; agents %v; APIs %v",
		len(s.Turns), n.noisy, n.none, loops, acceptable, languages, n.agents, n.apis)
	atLeast(t, "turns", len(s.Turns), h4MinTurns)
	atLeast(t, "noisy turns", n.noisy, h4MinNoisyTurns)
	atLeast(t, "turns that need no skill", n.none, h4MinNoSkillTurns)
	atLeast(t, "turns not in English", nonEnglish, h4MinNonEnglish)
	atLeast(t, "tool loops", loops, h4MinToolLoops)
	atLeast(t, "turns with acceptable skills", acceptable, h4MinAcceptable)
	for _, a := range []string{"openclaw", "claude-code", "nanoclaw", "hermes", "plain"} {
		atLeast(t, "turns from "+a, n.agents[a], h4MinTurnsPerAgent)
	}
	for _, a := range []string{"openai", "anthropic"} {
		atLeast(t, a+" turns", n.apis[a], h4MinTurnsPerAPI)
	}
	atLeast(t, "starter skills relevant to some turn", starterCovered(t, lib, n.relevant), h4MinStarterUsed)
}

func TestHeldout4Groups(t *testing.T) {
	s := loadSet(t, heldout4Dir)
	lib := heldoutSkills(t, s.SkillsDir)
	atLeast(t, "near-neighbour groups", len(h4Groups), h4MinGroups)
	seen := map[string]string{}
	for g, members := range h4Groups {
		if len(members) < 2 || len(members) > 4 {
			t.Errorf("group %s has %d skills, want 2–4", g, len(members))
		}
		for _, m := range members {
			if _, ok := lib[m]; !ok {
				t.Errorf("group %s: %s is not in skills/", g, m)
			}
			if other, dup := seen[m]; dup {
				t.Errorf("%s is in groups %s and %s", m, other, g)
			}
			seen[m] = g
			// Some turn needs m and no other member of its group: the set
			// asks retrieval to tell them apart.
			apart := slices.ContainsFunc(s.Turns, func(turn SkillTurn) bool {
				return slices.Contains(turn.Relevant, m) && !slices.ContainsFunc(turn.Relevant, func(r string) bool {
					return r != m && slices.Contains(members, r)
				})
			})
			if !apart {
				t.Errorf("group %s: no turn needs %s without another member of the group", g, m)
			}
		}
	}
}

// h4TurnShape is what the shape test reads of a request beyond what its
// API's reader checks.
type h4TurnShape struct {
	plain    bool // a system prompt and one plain ask, nothing else
	toolLoop bool // it carries tool calls and their results
}

func h4Shape(turn SkillTurn) (h4TurnShape, error) {
	var r struct {
		Messages []struct {
			Role      string          `json:"role"`
			Content   json.RawMessage `json:"content"`
			ToolCalls json.RawMessage `json:"tool_calls"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(turn.Request, &r); err != nil {
		return h4TurnShape{}, err
	}
	var shape h4TurnShape
	asks := 0
	for _, m := range r.Messages {
		if len(m.ToolCalls) > 0 && string(m.ToolCalls) != "null" {
			shape.toolLoop = true
		}
		if m.Role == "tool" {
			shape.toolLoop = true
		}
		var blocks []struct {
			Type string `json:"type"`
		}
		if json.Unmarshal(m.Content, &blocks) == nil {
			for _, b := range blocks {
				if b.Type == "tool_use" || b.Type == "tool_result" {
					shape.toolLoop = true
				}
			}
		}
		switch m.Role {
		case "system", "developer":
		case "user":
			asks++
		default:
			asks += 2 // history or tool traffic
		}
	}
	shape.plain = asks == 1 && !shape.toolLoop
	return shape, nil
}
