package evalsets

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/metaclaw/metaclaw/app/learner/skills"
)

// heldout2Dir is the second held-out set, written independently of dev/,
// dev2/ and heldout/ (see heldout2/README.md). It has skill turns only.
const heldout2Dir = "heldout2"

// The second held-out set's promised sizes.
const (
	h2MinNewSkills       = 60
	h2MinMistakeSkills   = 3
	h2MinTurns           = 190
	h2MinNoisyTurns      = 95
	h2MinNoSkillTurns    = 40
	h2MinNonEnglish      = 10
	h2MinAPITurns        = 40
	h2MinAgentTurns      = 5
	h2MinStarterRelevant = 40 // "most starter skills" are the relevant skill of some turn
	h2MinGroups          = 12
)

// h2Groups are the near-neighbour groups the set tells apart (README.md,
// "Near-neighbour groups"): every member is the relevant skill of at least
// one turn.
var h2Groups = [][]string{
	{"write-dockerfile", "docker-compose-local-dev", "debug-kubernetes-pod"},
	{"resolve-merge-conflict", "recover-lost-git-work", "write-commit-message"},
	{"python-virtualenv-setup", "fix-python-import-errors"},
	{"profile-slow-code", "fix-memory-leak", "avoid-n-plus-one-queries"},
	{"write-sql-query", "avoid-n-plus-one-queries", "zero-downtime-schema-migration"},
	{"fix-cors-errors", "configure-nginx-reverse-proxy"},
	{"renew-tls-certificate", "diagnose-dns-problems"},
	{"write-unit-tests", "test-before-bugfix", "debug-failing-test"},
	{"triage-production-incident", "write-postmortem"},
	{"spreadsheet-lookup-formulas", "pivot-table-summaries"},
	{"join-merge-dataframes", "clean-csv-data"},
	{"write-cover-letter", "tailor-resume", "prepare-job-interview", "negotiate-salary-offer"},
	{"give-constructive-feedback", "deliver-bad-news-politely"},
	{"tighten-prose-editing", "write-blog-post", "write-product-description"},
	{"read-scientific-paper-critically", "literature-search", "summarize-long-document", "verify-claims-primary-sources", "cite-sources"},
	{"make-flashcards-spaced-repetition", "exam-study-schedule", "tutor-without-giving-answers"},
	{"chase-unpaid-invoice", "consumer-refund-complaint", "write-customer-support-reply"},
	{"monthly-budget-plan", "pay-off-debt-plan"},
	{"dispute-bank-charge", "spot-phishing"},
	{"plan-travel-itinerary", "pack-for-trip", "flight-delay-cancellation-rights"},
	{"beginner-strength-training", "running-training-plan"},
	{"sleep-better-routine", "health-symptom-triage"},
	{"fix-clogged-drain", "fix-running-toilet"},
	{"review-rental-lease", "get-deposit-back"},
	{"dont-claim-done-without-running", "verify-tool-results"},
	{"keep-changes-in-scope", "safe-refactoring"},
	{"summarize-work-at-handoff", "progress-updates-long-tasks", "write-weekly-update"},
}

// h2NonEnglish are the languages a turn's note names when its ask is not in
// English.
var h2NonEnglish = []string{"Spanish", "Italian", "Portuguese", "German", "French"}

func loadHeldout2(t *testing.T) *Set {
	t.Helper()
	s := loadSet(t, heldout2Dir)
	if len(s.Conversations) > 0 || len(s.Questions) > 0 {
		t.Errorf("%s has memory files; it promises skill turns only", heldout2Dir)
	}
	return s
}

// TestHeldout2Skills checks the library: the whole starter bank without
// asks, at least 60 new skills, and the common_mistakes ones.
func TestHeldout2Skills(t *testing.T) {
	dir := filepath.Join(heldout2Dir, "skills")
	lib := heldoutSkills(t, dir)
	fresh, mistakes := countLibrary(t, lib)
	for name := range lib {
		data, err := os.ReadFile(filepath.Join(dir, name, "SKILL.md"))
		if err != nil {
			t.Fatal(err)
		}
		in, err := skills.Parse(data)
		if err == nil && len(in.Asks) > 0 || bytes.Contains(data, []byte("\nasks:")) {
			t.Errorf("%s: has an asks: key; the set's skills carry none", name)
		}
	}
	for name := range starterNames(t) {
		if _, ok := lib[name]; !ok {
			t.Errorf("starter skill %s is missing from %s", name, dir)
		}
	}
	atLeast(t, "new skills", fresh, h2MinNewSkills)
	atLeast(t, mistakesCategory+" skills", mistakes, h2MinMistakeSkills)
}

// TestHeldout2Turns checks the promised sizes and labels, and parses every
// request with the proxy's own readers.
func TestHeldout2Turns(t *testing.T) {
	s := loadHeldout2(t)
	lib := heldoutSkills(t, s.SkillsDir)
	starter := starterNames(t)
	n := tallyTurns(t, s.Turns, lib)
	noisy, none, agents, apis := n.noisy, n.none, n.agents, n.apis
	var foreign int
	for _, turn := range s.Turns {
		if len(turn.Relevant) > 2 {
			t.Errorf("turn %s: %d relevant skills; the set labels one, sometimes two", turn.ID, len(turn.Relevant))
		}
		for _, lang := range h2NonEnglish {
			if strings.Contains(turn.Note, lang) {
				foreign++
				break
			}
		}
		if turn.Note == "" {
			t.Errorf("turn %s: no note", turn.ID)
		}
		if !turn.Noisy && (turn.Agent == "openclaw" || turn.Agent == "claude-code" || turn.Agent == "nanoclaw") {
			t.Errorf("turn %s: every %s turn is wrapped the way the agent sends it, so noisy", turn.ID, turn.Agent)
		}
	}
	starterRelevant := starterCovered(t, lib, n.relevant)
	t.Logf("turns: %d (%d noisy, %d need no skill, %d not in English); agents %v; APIs %v; %d of %d starter skills relevant somewhere",
		len(s.Turns), noisy, none, foreign, agents, apis, starterRelevant, len(starter))
	atLeast(t, "turns", len(s.Turns), h2MinTurns)
	atLeast(t, "noisy turns", noisy, h2MinNoisyTurns)
	atLeast(t, "turns that need no skill", none, h2MinNoSkillTurns)
	atLeast(t, "non-English turns", foreign, h2MinNonEnglish)
	atLeast(t, "starter skills relevant somewhere", starterRelevant, h2MinStarterRelevant)
	for _, a := range []string{"openclaw", "claude-code", "nanoclaw", "hermes", "plain"} {
		atLeast(t, "turns from "+a, agents[a], h2MinAgentTurns)
	}
	for _, a := range []string{"openai", "anthropic"} {
		atLeast(t, a+" turns", apis[a], h2MinAPITurns)
	}
}

// TestHeldout2Groups checks that both (all) sides of every near-neighbour
// group are the relevant skill of some turn.
func TestHeldout2Groups(t *testing.T) {
	s := loadHeldout2(t)
	relevant := map[string]bool{}
	for _, turn := range s.Turns {
		for _, r := range turn.Relevant {
			relevant[r] = true
		}
	}
	for _, g := range h2Groups {
		for _, name := range g {
			if !relevant[name] {
				t.Errorf("group %v: %s is the relevant skill of no turn", g, name)
			}
		}
	}
	atLeast(t, "near-neighbour groups", len(h2Groups), h2MinGroups)
}

// TestHeldout2AgentMarkers checks that each agent's requests carry that
// agent's real structure: OpenClaw's prompt sections and internal-context
// message, Claude Code's identity and reminders, NanoClaw's message
// envelope, Hermes's identity.
func TestHeldout2AgentMarkers(t *testing.T) {
	s := loadHeldout2(t)
	for _, turn := range s.Turns {
		body := string(turn.Request)
		var want []string
		switch turn.Agent {
		case "openclaw":
			want = []string{"<!-- openclaw:attempt:STABLE -->", "<!-- openclaw:attempt:DYNAMIC -->", "<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>"}
			if !h2LastIsInternalContext(turn.Request) {
				t.Errorf("turn %s: the last OpenClaw message is not the internal context", turn.ID)
			}
		case "claude-code":
			if strings.Contains(body, `"content":"quota"`) || strings.Contains(body, "Analyze if this message indicates a new conversation topic") || strings.Contains(body, "Summarize this coding conversation") {
				continue // the client's own quota and title requests
			}
			want = []string{"You are Claude Code, Anthropic's official CLI for Claude.", "<system-reminder>"}
		case "nanoclaw":
			want = []string{"Claude Agent SDK", "mcp__nanoclaw__send_message"}
			if !strings.Contains(body, "<messages>") && !strings.Contains(body, "[SCHEDULED TASK") {
				t.Errorf("turn %s: a NanoClaw prompt is a <messages> envelope or a scheduled task", turn.ID)
			}
		case "hermes":
			if strings.Contains(body, "Generate a short, descriptive title") {
				continue
			}
			want = []string{"You are Hermes Agent"}
		}
		for _, w := range want {
			if !strings.Contains(body, h2JSONEscaped(w)) {
				t.Errorf("turn %s (%s): request lacks %q", turn.ID, turn.Agent, w)
			}
		}
	}
}

func h2LastIsInternalContext(raw json.RawMessage) bool {
	var r struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if json.Unmarshal(raw, &r) != nil || len(r.Messages) == 0 {
		return false
	}
	last := r.Messages[len(r.Messages)-1]
	return last.Role == "user" && bytes.Contains(last.Content, []byte("<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>"))
}

// h2JSONEscaped returns s as it appears inside a JSON string.
func h2JSONEscaped(s string) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	out := strings.TrimSpace(buf.String())
	return out[1 : len(out)-1]
}
