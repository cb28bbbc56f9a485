package memory

import (
	"regexp"
	"strings"

	"github.com/metaclaw/metaclaw/store"
)

// RuleConfidence is the confidence of rule-based memories: lower than a
// model's, and replaced by the model pass that follows.
const RuleConfidence = 0.5

// rule is one conservative pattern over a user's sentence.
type rule struct {
	re         *regexp.Regexp
	typ        string
	importance float64
	topic      func(m []string) string
	content    func(m []string) string
}

var rules = []rule{
	{re: regexp.MustCompile(`(?i:\bmy name is|\bcall me)\s+(\p{Lu}[\p{L}'-]+(?:\s+\p{Lu}[\p{L}'-]+)?)`),
		typ: store.MemoryFact, importance: 0.8,
		topic: fixed("name"), content: func(m []string) string { return "The user's name is " + m[1] + "." }},
	{re: regexp.MustCompile(`(?i:\bi (?:live|am based|'m based) in)\s+(\p{Lu}[\p{L}'-]+(?:[ ,]+\p{Lu}[\p{L}'-]+){0,3})`),
		typ: store.MemoryFact, importance: 0.6,
		topic: fixed("home location"), content: func(m []string) string { return "The user lives in " + m[1] + "." }},
	{re: regexp.MustCompile(`(?i:\bi work (?:at|for))\s+(\p{Lu}[\p{L}0-9&'-]*(?:\s+\p{Lu}[\p{L}0-9&'-]*){0,3})`),
		typ: store.MemoryFact, importance: 0.6,
		topic: fixed("employer"), content: func(m []string) string { return "The user works at " + m[1] + "." }},
	{re: regexp.MustCompile(`(?i)\bmy time ?zone is\s+([a-z_/+\-0-9:]{2,40})`),
		typ: store.MemoryFact, importance: 0.6,
		topic: fixed("timezone"), content: func(m []string) string { return "The user's time zone is " + m[1] + "." }},
	{re: regexp.MustCompile(`(?i)\bmy (?:favou?rite|preferred) ([\p{L} ]{2,30}?) is\s+([^,;]{2,60})`),
		typ: store.MemoryPreference, importance: 0.6,
		topic:   func(m []string) string { return "favorite " + strings.ToLower(m[1]) },
		content: func(m []string) string { return "The user's favorite " + strings.ToLower(m[1]) + " is " + m[2] + "." }},
	{re: regexp.MustCompile(`(?i)^(?:i|we) (?:really |strongly |always )?prefer\s+(.{3,120})`),
		typ: store.MemoryPreference, importance: 0.6,
		topic: fixed(""), content: func(m []string) string { return "The user prefers " + m[1] + "." }},
	{re: regexp.MustCompile(`(?i)^(?:please\s+)?(?:always|never|from now on|in future|going forward)\b,?\s*(.{5,160})`),
		typ: store.MemoryProcedure, importance: 0.6,
		topic: fixed(""), content: func(m []string) string { return `The user asked: "` + m[0] + `".` }},
	{re: regexp.MustCompile(`(?i)^(?:i'?d|i would)\s+like\s+you\s+to\s+(?:always|never)\b\s*(.{5,160})|^i\s+want\s+you\s+to\s+(?:always|never)\b\s*(.{5,160})`),
		typ: store.MemoryProcedure, importance: 0.6,
		topic: fixed(""), content: func(m []string) string { return `The user asked: "` + m[0] + `".` }},
	{re: regexp.MustCompile(`(?i)^(?:please\s+)?(?:remember|don'?t\s+forget|do\s+not\s+forget)(?:\s+(?:this|that))?\s*[:,-]?\s+(.{5,200})`),
		typ: store.MemoryFact, importance: 0.7,
		topic: fixed(""), content: func(m []string) string { return "The user asked to remember: " + m[1] + "." }},
	{re: regexp.MustCompile(`(?i)^(?:please\s+)?(?:(?:take\s+)?note\s+that|please\s+note\s*:|(?:keep|bear)\s+in\s+mind(?:\s+that)?)\s*[:,-]?\s*(.{5,200})`),
		typ: store.MemoryFact, importance: 0.7,
		topic: fixed(""), content: func(m []string) string { return "The user asked to keep in mind: " + m[1] + "." }},
	{re: regexp.MustCompile(`(?i)^(?:just\s+so\s+you\s+know|fyi|for\s+(?:future\s+)?reference)\s*[:,-]?\s+(.{5,200})`),
		typ: store.MemoryFact, importance: 0.6,
		topic: fixed(""), content: func(m []string) string { return "The user noted: " + m[1] + "." }},
}

func fixed(s string) func([]string) string { return func([]string) string { return s } }

// sentenceRE splits text into sentences, keeping the end mark.
var sentenceRE = regexp.MustCompile(`[^.!?\n]+[.!?]*`)

// RuleExtract is the conservative stand-in for the extraction model: a few
// patterns over what the user said ("my name is", "I work at", "I
// prefer", "from now on", "remember that", "please remember:", "note
// that", "keep in mind", "I'd like you to always" ...), never over the
// assistant's answers, never over questions. Its memories carry
// RuleConfidence.
func RuleExtract(exs []Exchange) []Candidate {
	var out []Candidate
	seen := map[string]bool{}
	for _, ex := range exs {
		for _, s := range sentenceRE.FindAllString(ex.User, -1) {
			s = strings.TrimSpace(s)
			if strings.HasSuffix(s, "?") {
				continue
			}
			s = strings.TrimRight(s, ".! ")
			for _, r := range rules {
				m := r.re.FindStringSubmatch(s)
				if m == nil {
					continue
				}
				for i := range m {
					m[i] = strings.TrimSpace(m[i])
				}
				c := Candidate{Type: r.typ, Topic: r.topic(m), Content: cut(r.content(m), maxContentLen),
					Importance: r.importance, Confidence: RuleConfidence}
				if key := store.ContentKey(c.Content); !seen[key] {
					seen[key] = true
					out = append(out, c)
				}
				break
			}
		}
	}
	return out
}
