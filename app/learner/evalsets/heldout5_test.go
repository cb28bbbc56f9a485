package evalsets

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/metaclaw/metaclaw/app/learner/skills"
)

// h5Dir is the fifth held-out set: Lucía Ferrer's library (the starter
// bank less its asks, plus her own skills) and turns from her agents.
const h5Dir = "heldout5"

// What heldout5/README.md promises.
const (
	h5MinNewSkills       = 65
	h5MinMistakeSkills   = 4
	h5MinBodyWords       = 80
	h5MaxBodyWords       = 250
	h5MinTurns           = 190
	h5MinNoisyTurns      = 60
	h5MinNoSkillTurns    = 30
	h5MinAcceptableTurns = 30
	h5MinToolLoops       = 20
	h5MinPerAgent        = 5
	h5MinPerAPI          = 40
	h5MaxRelevant        = 2
	h5MinStarterCovered  = 40
	h5MinNonEnglishPct   = 40
	h5MinGroups          = 12
	h5MinNoSkillLangs    = 3 // languages among the turns that need no skill
)

// h5Languages are the language codes a note may carry ("language: xx");
// a turn without one has its ask in English.
var h5Languages = []string{"es", "it", "pt", "fr", "de"}

var (
	h5IDRE   = regexp.MustCompile(`^h5-\d{3}$`)
	h5LangRE = regexp.MustCompile(`language: ([a-z]+)`)
	// h5NoiseMarkers are wrappings that make a single message noisy.
	h5NoiseMarkers = []string{"<system-reminder>", "<additional_data>", "<chat_history>", "<messages>", "BEGIN_OPENCLAW_INTERNAL_CONTEXT", "<document"}
)

// h5Groups are the near-neighbour groups the README lists: skills easy
// to confuse with each other.
var h5Groups = map[string][]string{
	"translation QA":           {"translation-qa-checks", "broken-inline-tags-mistakes", "regex-find-replace-cat", "review-freelancer-translation"},
	"bilingual and i18n files": {"xliff-file-handling", "flask-babel-i18n", "wordpress-multilingual-wpml", "translate-and-localize"},
	"terminology":              {"termbase-management", "extract-glossary-terms", "tmx-memory-maintenance", "client-style-guide"},
	"locale conventions":       {"target-language-typography", "localisation-number-format-mistakes", "portuguese-variants-pt-br-pt-pt", "translate-and-localize"},
	"quotes":                   {"translation-quote-estimate", "cat-analysis-word-counts", "write-client-proposal", "double-check-arithmetic-units"},
	"invoicing":                {"fattura-elettronica-sdi", "invoice-foreign-clients", "forfettario-invoice-mistakes", "pay-freelancers-compensi"},
	"tax":                      {"regime-forfettario-taxes", "f24-tax-deadlines", "cross-border-tax-residency", "flag-outdated-information"},
	"client messages":          {"payment-reminder-client", "handle-client-quality-complaint", "deliver-bad-news-politely", "formal-italian-business-email"},
	"wordpress":                {"wordpress-safe-updates", "wordpress-live-edit-mistakes", "wordpress-hacked-cleanup", "wordpress-slow-site", "upgrade-dependencies"},
	"portal operations":        {"flask-portal-deploy", "letsencrypt-certificate-renewal", "site-backups-restore", "cron-scheduled-jobs"},
	"portal data":              {"flask-migrate-alembic", "idempotent-scripts", "write-sql-query"},
	"confidentiality":          {"flask-file-upload-security", "gdpr-client-documents", "handle-secrets-safely", "wrong-recipient-attachment-mistakes", "least-privilege-credentials"},
	"project planning":         {"translation-project-schedule", "assign-freelancer-workload", "break-down-big-task", "client-brief-intake", "ask-one-clarifying-question"},
	"regulated domains":        {"medical-device-translation", "legal-translation-conventions", "sworn-translation-procedure"},
	"games and media":          {"game-localization-strings", "pseudo-localization-testing", "subtitle-srt-timing"},
	"machine translation":      {"machine-translation-post-editing", "deepl-api-glossary-scripts", "api-calls-retries-rate-limits"},
	"source files":             {"character-encoding-mojibake", "clean-csv-data", "ocr-scanned-pdf-for-translation", "dtp-layout-after-translation"},
	"cooking":                  {"weekly-meal-planning", "batch-cooking-freezer", "recipe-scaling-conversion"},
	"family logistics":         {"family-calendar-coordination", "schedule-across-time-zones", "family-travel-planning", "teen-school-italy"},
	"care and health":          {"elderly-parent-care-remote", "medication-list-caregivers", "health-appointments-italy"},
	"money":                    {"household-budget", "categorize-bank-transactions", "clean-csv-data"},
	"choir":                    {"choir-part-practice", "lyrics-pronunciation-guide"},
	"cycling":                  {"cycling-route-planning", "bike-maintenance-basics"},
	"paperwork":                {"expat-paperwork-italy-spain", "cross-border-tax-residency", "sworn-translation-procedure"},
	"e-mail":                   {"email-dns-spf-dkim", "spot-phishing", "email-triage"},
	"spanish and italian":      {"spanish-italian-false-friends", "translate-and-localize", "formal-italian-business-email"},
}

func TestHeldout5Skills(t *testing.T) {
	dir := filepath.Join(h5Dir, "skills")
	lib := heldoutSkills(t, dir)
	fresh, mistakes := countLibrary(t, lib)
	starter := checkStarterCopies(t, h5Dir)
	atLeast(t, "starter skills in the library", len(lib)-fresh, starter)
	atLeast(t, "new skills", fresh, h5MinNewSkills)
	atLeast(t, mistakesCategory+" skills among the new", mistakes, h5MinMistakeSkills)

	isStarter := starterNames(t)
	useWhen := 0
	for name, data := range readSkillFiles(t, dir, lib) {
		if isStarter[name] {
			continue
		}
		text := strings.Replace(string(data), "\ncategory: "+mistakesCategory+"\n", "\ncategory: general\n", 1)
		in, err := skills.Parse([]byte(text))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if n := len(strings.Fields(in.Body)); n < h5MinBodyWords || n > h5MaxBodyWords {
			t.Errorf("%s: body has %d words, want %d-%d", name, n, h5MinBodyWords, h5MaxBodyWords)
		}
		if strings.HasPrefix(in.Description, "Use when") || strings.HasPrefix(in.Description, "Use before") {
			useWhen++
		}
	}
	if useWhen*2 <= fresh || useWhen == fresh {
		t.Errorf("%d of %d new descriptions start \"Use when/before\"; the README says most, not all", useWhen, fresh)
	}
}

func TestHeldout5Turns(t *testing.T) {
	s := loadSet(t, h5Dir)
	lib := heldoutSkills(t, s.SkillsDir)
	n := tallyTurns(t, s.Turns, lib)

	var acceptable, loops int
	langs := map[string][]string{} // language -> turn ids
	noSkillLangs := map[string]bool{}
	for _, turn := range s.Turns {
		if !h5IDRE.MatchString(turn.ID) {
			t.Errorf("turn id %q is not h5-NNN", turn.ID)
		}
		if len(turn.Relevant) > h5MaxRelevant {
			t.Errorf("turn %s: %d relevant skills, at most %d", turn.ID, len(turn.Relevant), h5MaxRelevant)
		}
		for _, name := range turn.Relevant {
			if slices.Contains(turn.Acceptable, name) {
				t.Errorf("turn %s: %s is both relevant and acceptable", turn.ID, name)
			}
		}
		if len(turn.Acceptable) > 0 {
			acceptable++
		}
		lang := h5Language(t, turn)
		if lang != "en" {
			langs[lang] = append(langs[lang], turn.ID)
		}
		if len(turn.Relevant) == 0 {
			noSkillLangs[lang] = true
		}
		loop, err := h5ToolLoop(turn)
		if err != nil {
			t.Errorf("turn %s: %v", turn.ID, err)
		}
		if loop {
			loops++
			if !turn.Noisy {
				t.Errorf("turn %s: a tool loop must be noisy", turn.ID)
			}
		}
		if !turn.Noisy && h5Wrapped(turn) {
			t.Errorf("turn %s: more than a system prompt and one plain ask, but not marked noisy", turn.ID)
		}
		note := strings.ToLower(turn.Note)
		if (strings.Contains(note, "housekeeping") || strings.Contains(note, "heartbeat")) && len(turn.Relevant) > 0 {
			t.Errorf("turn %s: client housekeeping needs no skill", turn.ID)
		}
	}

	nonEnglish := 0
	for _, ids := range langs {
		nonEnglish += len(ids)
	}
	covered := starterCovered(t, lib, n.relevant)
	t.Logf("turns: %d (%d noisy, %d need no skill, %d with acceptable skills, %d tool loops); agents %v; APIs %v",
		len(s.Turns), n.noisy, n.none, acceptable, loops, n.agents, n.apis)
	t.Logf("non-English asks: %d (%d%%) %v; starter skills relevant to some turn: %d", nonEnglish, h5Pct(nonEnglish, len(s.Turns)), h5Counts(langs), covered)

	atLeast(t, "turns", len(s.Turns), h5MinTurns)
	atLeast(t, "noisy turns", n.noisy, h5MinNoisyTurns)
	atLeast(t, "turns that need no skill", n.none, h5MinNoSkillTurns)
	atLeast(t, "languages of the turns that need no skill", len(noSkillLangs), h5MinNoSkillLangs)
	atLeast(t, "turns with an acceptable skill", acceptable, h5MinAcceptableTurns)
	atLeast(t, "tool loops", loops, h5MinToolLoops)
	atLeast(t, "starter skills relevant to some turn", covered, h5MinStarterCovered)
	atLeast(t, "percent of turns with a non-English ask", h5Pct(nonEnglish, len(s.Turns)), h5MinNonEnglishPct)
	for _, a := range []string{"openclaw", "claude-code", "nanoclaw", "hermes", "plain"} {
		atLeast(t, "turns from "+a, n.agents[a], h5MinPerAgent)
	}
	for _, a := range []string{"openai", "anthropic"} {
		atLeast(t, a+" turns", n.apis[a], h5MinPerAPI)
	}
	for _, l := range h5Languages {
		atLeast(t, l+" turns", len(langs[l]), 1)
	}
	h5CheckReadmeLanguages(t, langs)
}

func TestHeldout5Groups(t *testing.T) {
	lib := heldoutSkills(t, filepath.Join(h5Dir, "skills"))
	starter := starterNames(t)
	readme, err := os.ReadFile(filepath.Join(h5Dir, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	atLeast(t, "near-neighbour groups", len(h5Groups), h5MinGroups)
	for group, names := range h5Groups {
		if len(names) < 2 {
			t.Errorf("group %q has fewer than two skills", group)
		}
		fresh := false
		for _, name := range names {
			if _, ok := lib[name]; !ok {
				t.Errorf("group %q: skill %s is not in skills/", group, name)
			}
			fresh = fresh || !starter[name]
			if !strings.Contains(string(readme), name) {
				t.Errorf("group %q: README does not mention %s", group, name)
			}
		}
		if !fresh {
			t.Errorf("group %q has no new skill", group)
		}
		if !strings.Contains(string(readme), "**"+group+"**") {
			t.Errorf("README does not list group %q", group)
		}
	}
}

// h5Language returns the language of a turn's ask from its note: "en"
// without a language note, the code of the one "language: xx" otherwise.
func h5Language(t *testing.T, turn SkillTurn) string {
	t.Helper()
	m := h5LangRE.FindAllStringSubmatch(turn.Note, -1)
	switch {
	case len(m) == 0:
		return "en"
	case len(m) > 1:
		t.Errorf("turn %s: note names %d languages", turn.ID, len(m))
	case !slices.Contains(h5Languages, m[0][1]):
		t.Errorf("turn %s: language %q is not one of %v", turn.ID, m[0][1], h5Languages)
	}
	return m[0][1]
}

// h5ToolLoop reports whether a request carries tool results.
func h5ToolLoop(turn SkillTurn) (bool, error) {
	var r struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(turn.Request, &r); err != nil {
		return false, err
	}
	for _, m := range r.Messages {
		if m.Role == "tool" {
			return true, nil
		}
		var blocks []struct {
			Type string `json:"type"`
		}
		if json.Unmarshal(m.Content, &blocks) == nil && slices.ContainsFunc(blocks, func(b struct {
			Type string `json:"type"`
		}) bool {
			return b.Type == "tool_result"
		}) {
			return true, nil
		}
	}
	return false, nil
}

// h5Wrapped reports whether a request is more than a system prompt plus
// one plain ask: several messages, several content blocks, or a wrapping.
func h5Wrapped(turn SkillTurn) bool {
	var r struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if json.Unmarshal(turn.Request, &r) != nil {
		return true
	}
	var rest []json.RawMessage
	for _, m := range r.Messages {
		if m.Role != "system" && m.Role != "developer" {
			rest = append(rest, m.Content)
		}
	}
	if len(rest) != 1 {
		return true
	}
	for _, mk := range h5NoiseMarkers {
		if strings.Contains(string(rest[0]), mk) {
			return true
		}
	}
	var blocks []json.RawMessage
	return json.Unmarshal(rest[0], &blocks) == nil && len(blocks) > 1
}

// h5CheckReadmeLanguages checks the README's list of non-English turns
// ("- es (N): h5-001, ...") against the turns' language notes.
func h5CheckReadmeLanguages(t *testing.T, langs map[string][]string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(h5Dir, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string][]string{}
	line := regexp.MustCompile(`(?m)^- ([a-z]{2}) \((\d+)\): (.+)$`)
	for _, m := range line.FindAllStringSubmatch(string(data), -1) {
		ids := strings.Split(m[3], ", ")
		listed[m[1]] = ids
		if want := m[2]; want != strconv.Itoa(len(ids)) {
			t.Errorf("README: %s lists %d ids but says %s", m[1], len(ids), want)
		}
	}
	for _, l := range h5Languages {
		got, want := slices.Clone(listed[l]), slices.Clone(langs[l])
		sort.Strings(got)
		sort.Strings(want)
		if !slices.Equal(got, want) {
			t.Errorf("README lists %d %s turns, the notes mark %d: README %v, notes %v", len(got), l, len(want), got, want)
		}
	}
}

func h5Counts(langs map[string][]string) map[string]int {
	out := map[string]int{}
	for l, ids := range langs {
		out[l] = len(ids)
	}
	return out
}

// h5Pct is part as a whole percentage of total.
func h5Pct(part, total int) int {
	if total == 0 {
		return 0
	}
	return 100 * part / total
}
