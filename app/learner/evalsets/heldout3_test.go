package evalsets

import (
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/metaclaw/metaclaw/app/learner/skills"
)

// heldout3Dir is the third held-out set, relative to this package's
// directory. Its README says how it was written and labelled.
const heldout3Dir = "heldout3"

// The third held-out set's promised sizes.
const (
	h3MinNewSkills      = 70
	h3MinSkills         = 49 + h3MinNewSkills // the starter bank plus the new skills
	h3MinMistakeSkills  = 4
	h3MinTurns          = 170
	h3MinNoisyTurns     = 60
	h3MinNoSkillTurns   = 35
	h3MinNonEnglish     = 12
	h3MinStarterCovered = 40 // starter skills that are the relevant skill of some turn
	h3MinGroups         = 15
	h3MinPerAgent       = 5
	h3MinPerAPI         = 40
	h3MaxRelevant       = 2
)

// h3Groups are the near-neighbour groups: skills that are easy to confuse.
// Every member must be the relevant skill of at least one turn.
var h3Groups = map[string][]string{
	"git":              {"git-merge-conflicts", "git-recover-lost-work", "write-commit-message"},
	"containers":       {"dockerfile-best-practices", "docker-compose-local-dev", "kubernetes-crashloop-debugging"},
	"incidents":        {"on-call-incident-response", "blameless-postmortem"},
	"slowness":         {"performance-profiling", "memory-leak-debugging", "mistake-n-plus-one-queries"},
	"database-changes": {"zero-downtime-schema-migrations", "database-backup-restore", "write-sql-query"},
	"accounts":         {"personal-account-security", "hacked-account-recovery", "spot-phishing"},
	"ml-evaluation":    {"ml-data-leakage", "ml-classification-metrics", "statistics-sanity-check"},
	"llm-apps":         {"llm-prompt-design", "rag-chunking-retrieval"},
	"tables":           {"spreadsheet-formulas-lookups", "clean-csv-data", "pandas-speed-up"},
	"job-hunt":         {"resume-cv-tailoring", "cover-letter-writing", "job-interview-prep", "salary-negotiation"},
	"hard-messages":    {"give-constructive-feedback", "deliver-bad-news-politely", "customer-complaint-reply"},
	"money":            {"monthly-budget-plan", "debt-payoff-plan", "loan-mortgage-comparison"},
	"health":           {"symptom-triage-see-a-doctor", "medication-interaction-check"},
	"travel-claims":    {"travel-itinerary-planning", "flight-delay-cancellation-rights", "formal-complaint-letter"},
	"learning":         {"language-learning-routine", "exam-study-plan", "translate-and-localize"},
	"parenting":        {"kids-screen-time-routines", "toddler-tantrums-calm-discipline", "homework-help-without-answers"},
	"food":             {"meal-planning-on-budget", "recipe-scaling-substitutions"},
	"errors":           {"go-error-handling", "mistake-swallowing-exceptions", "read-stack-trace"},
	"http-apis":        {"api-design-rest", "api-calls-retries-rate-limits"},
	"web-security":     {"web-app-security-owasp", "oauth-oidc-login", "handle-secrets-safely"},
	"frontend":         {"react-state-and-effects", "frontend-performance-web-vitals", "css-layout-flexbox-grid", "web-accessibility-checks"},
	"numbers":          {"mistake-floating-point-money", "double-check-arithmetic-units"},
	"mobile":           {"android-app-lifecycle", "swiftui-state-management", "mobile-app-store-release"},
	"web-edge":         {"nginx-reverse-proxy", "tls-certificate-problems"},
	"python-deps":      {"python-virtualenv-packaging", "upgrade-dependencies", "check-dependency-supply-chain"},
	"email":            {"mistake-forwarding-whole-thread", "email-triage"},
	"small-business":   {"small-business-pricing", "social-media-posts-small-business", "freelance-invoicing"},
	"code-edits":       {"match-project-conventions", "safe-refactoring", "read-before-edit-file"},
	"ci":               {"github-actions-workflows", "debug-failing-test"},
	"talks":            {"presentation-slide-deck", "speech-toast-writing"},
}

// h3LanguageNote is how a turn's note names a language other than English.
var h3LanguageNote = regexp.MustCompile(`language: (es|it|pt|de|fr)\b`)

func TestHeldout3Skills(t *testing.T) {
	dir := filepath.Join(heldout3Dir, "skills")
	lib := heldoutSkills(t, dir)
	fresh, mistakes := countLibrary(t, lib)
	atLeast(t, "skills", len(lib), h3MinSkills)
	atLeast(t, "new skills", fresh, h3MinNewSkills)
	atLeast(t, mistakesCategory+" skills", mistakes, h3MinMistakeSkills)

	for name, data := range readSkillFiles(t, dir, lib) {
		if lib[name] == mistakesCategory {
			in, err := skills.Parse(data)
			if err == nil && !strings.HasPrefix(in.Description, "Mistake to avoid:") {
				t.Errorf("%s: a %s skill's description must start with \"Mistake to avoid:\"", name, mistakesCategory)
			}
		}
	}
}

func TestHeldout3StarterCopies(t *testing.T) {
	checkStarterCopies(t, heldout3Dir)
}

func TestHeldout3Turns(t *testing.T) {
	s := loadSet(t, heldout3Dir)
	lib := heldoutSkills(t, s.SkillsDir)
	n := tallyTurns(t, s.Turns, lib)
	noisy, none, agents, apis := n.noisy, n.none, n.agents, n.apis
	var foreign, two, withAcceptable, loops int
	for _, turn := range s.Turns {
		if len(turn.Relevant) == 2 {
			two++
		}
		if len(turn.Relevant) > h3MaxRelevant {
			t.Errorf("turn %s: %d relevant skills, want at most %d", turn.ID, len(turn.Relevant), h3MaxRelevant)
		}
		if len(turn.Acceptable) > 0 {
			withAcceptable++
		}
		if h3LanguageNote.MatchString(turn.Note) {
			foreign++
		}
		if strings.Contains(string(turn.Request), `"tool_call_id"`) || strings.Contains(string(turn.Request), `"tool_result"`) {
			loops++
		}
	}
	covered := starterCovered(t, lib, n.relevant)
	t.Logf("turns: %d (%d noisy, %d need no skill, %d not in English, %d tool loops, %d with two relevant, %d with acceptable); starter skills covered %d; agents %v; APIs %v",
		len(s.Turns), noisy, none, foreign, loops, two, withAcceptable, covered, agents, apis)
	atLeast(t, "turns", len(s.Turns), h3MinTurns)
	atLeast(t, "noisy turns", noisy, h3MinNoisyTurns)
	atLeast(t, "turns that need no skill", none, h3MinNoSkillTurns)
	atLeast(t, "turns not in English", foreign, h3MinNonEnglish)
	atLeast(t, "starter skills relevant to some turn", covered, h3MinStarterCovered)
	for _, a := range []string{"openclaw", "claude-code", "nanoclaw", "hermes", "plain"} {
		atLeast(t, "turns from "+a, agents[a], h3MinPerAgent)
	}
	for _, a := range []string{"openai", "anthropic"} {
		atLeast(t, a+" turns", apis[a], h3MinPerAPI)
	}
	if len(s.Conversations) > 0 || len(s.Questions) > 0 {
		t.Errorf("%s has a memory part; it is a skill-turn set only", heldout3Dir)
	}
}

func TestHeldout3Groups(t *testing.T) {
	s := loadSet(t, heldout3Dir)
	lib := heldoutSkills(t, s.SkillsDir)
	relevant := map[string]bool{}
	for _, turn := range s.Turns {
		for _, name := range turn.Relevant {
			relevant[name] = true
		}
	}
	atLeast(t, "near-neighbour groups", len(h3Groups), h3MinGroups)
	seen := map[string]string{}
	for group, members := range h3Groups {
		if len(members) < 2 || len(members) > 5 {
			t.Errorf("group %s has %d members, want 2 to 5", group, len(members))
		}
		for _, name := range members {
			if _, ok := lib[name]; !ok {
				t.Errorf("group %s: %s is not in skills/", group, name)
			}
			if !relevant[name] {
				t.Errorf("group %s: %s is the relevant skill of no turn", group, name)
			}
			if other, dup := seen[name]; dup {
				t.Errorf("%s is in groups %s and %s", name, other, group)
			}
			seen[name] = group
		}
	}
	names := slices.Sorted(func(yield func(string) bool) {
		for g := range h3Groups {
			if !yield(g) {
				return
			}
		}
	})
	t.Logf("%d near-neighbour groups: %s", len(h3Groups), strings.Join(names, ", "))
}
