// Package skills is MetaClaw's skill library on the learning side: the
// SKILL.md file format (YAML front matter and a Markdown body) and its
// categories, importing and exporting skill directories, installing the
// starter bank, and selecting the skills to inject into a turn: ranked by
// the retrieval core (app/learner/retrieval), adjusted by each skill's
// efficacy, and injected only when the evidence says they fit, within
// skills.top_k and a token budget. The Retriever is the proxy's skill
// injector itself (learning.Injector); learner.Build hands it to the
// proxy. Persistence is in store.
package skills

import (
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/metaclaw/metaclaw/store"
	"go.yaml.in/yaml/v3"
)

// Categories a skill may have ("" is allowed too). general and
// common_mistakes (the reference MetaClaw's category of general habits
// about mistakes to avoid) are habits: see IsHabit.
var Categories = []string{"coding", "research", "data-analysis", "productivity", "security", "communication",
	"automation", "agentic", "general", CategoryCommonMistakes}

// Habit categories.
const (
	CategoryGeneral        = "general"
	CategoryCommonMistakes = "common_mistakes"
)

// IsHabit reports whether a category is one of the general habits (general,
// common_mistakes), which share a turn's general_top_k allowance.
func IsHabit(category string) bool {
	return category == CategoryGeneral || category == CategoryCommonMistakes
}

// categorySynonyms are other spellings of the categories, as the
// reference's skill banks write them.
var categorySynonyms = map[string]string{"data_analysis": "data-analysis", "common-mistakes": CategoryCommonMistakes}

// NormalizeCategory returns the canonical spelling of a category and
// whether it is known; an unknown one comes back lower-cased and trimmed.
func NormalizeCategory(c string) (string, bool) {
	c = strings.ToLower(strings.TrimSpace(c))
	if syn, ok := categorySynonyms[c]; ok {
		c = syn
	}
	return c, c == "" || validCategory(c)
}

var nameRE = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

// Limits on a skill's parts.
const (
	MaxNameLen        = 64
	MaxDescriptionLen = 500
	MaxBodyLen        = 8000
	MaxTags           = 10
	MaxAsks           = 16
	MaxAskLen         = 300
)

// frontMatter is the YAML header of a SKILL.md file.
type frontMatter struct {
	Name        string   `yaml:"name"`
	Description string   `yaml:"description"`
	Category    string   `yaml:"category,omitempty"`
	Tags        []string `yaml:"tags,omitempty"`
	// Asks are requests the skill is the right help for (not in the
	// reference's format, which ignores unknown keys).
	Asks askList `yaml:"asks,omitempty"`
}

// askList is the asks: key, read leniently: a list of strings or one
// string; anything else is ignored rather than refusing the skill, as the
// key is ours, not the reference's.
type askList []string

func (a *askList) UnmarshalYAML(n *yaml.Node) error {
	var list []string
	switch {
	case n.Kind == yaml.SequenceNode && n.Decode(&list) == nil:
		*a = list
	case n.Kind == yaml.ScalarNode && n.Tag == "!!str":
		*a = []string{n.Value}
	}
	return nil
}

// Parse reads a SKILL.md file. It returns an error naming what is wrong;
// nothing of an invalid file is used. A category of another spelling
// (data_analysis) is normalised; an unknown one never refuses the skill:
// see ParseFile.
func Parse(data []byte) (store.SkillInput, error) {
	in, _, err := ParseFile(data)
	return in, err
}

// ParseFile is Parse, also returning a notice when the file's category is
// unknown: the skill is filed under general, and the category it had is
// kept as a tag (when a tag fits), so nothing of the file is lost.
func ParseFile(data []byte) (store.SkillInput, string, error) {
	in, err := parse(data)
	if err != nil {
		return in, "", err
	}
	var notice string
	in.Category, in.Tags, notice = FileCategory(in.Category, in.Tags, MaxTags)
	return in, notice, Validate(in)
}

// FileCategory is the one category rule, for files, imports and the
// evolver alike: the category in its canonical spelling
// (NormalizeCategory: data_analysis is data-analysis, common_mistakes a
// category of its own), or, when it is unknown, general, with the unknown
// name added to the tags (when fewer than maxTags) and a notice saying so.
func FileCategory(category string, tags []string, maxTags int) (string, []string, string) {
	cat, known := NormalizeCategory(category)
	if known {
		return cat, tags, ""
	}
	notice := fmt.Sprintf("category %q is not one of %s: filed under general", cat, strings.Join(Categories, ", "))
	if len(tags) < maxTags && !slices.Contains(tags, cat) {
		tags = append(tags, cat)
		notice += fmt.Sprintf(" (tag %q keeps it)", cat)
	}
	return CategoryGeneral, tags, notice
}

func parse(data []byte) (store.SkillInput, error) {
	if !utf8.Valid(data) {
		return store.SkillInput{}, fmt.Errorf("not valid UTF-8")
	}
	head, body, err := splitFrontMatter(data)
	if err != nil {
		return store.SkillInput{}, err
	}
	var fm frontMatter
	dec := yaml.NewDecoder(bytes.NewReader(head))
	dec.KnownFields(false)
	if err := dec.Decode(&fm); err != nil {
		return store.SkillInput{}, fmt.Errorf("front matter: %w", err)
	}
	in := store.SkillInput{Name: strings.TrimSpace(fm.Name), Description: strings.TrimSpace(fm.Description),
		Category: strings.TrimSpace(fm.Category), Tags: normTags(fm.Tags), Body: strings.TrimSpace(string(body)),
		Asks: NormAsks(fm.Asks)}
	return in, nil
}

// splitFrontMatter separates the YAML between the leading "---" lines from
// the body.
func splitFrontMatter(data []byte) ([]byte, []byte, error) {
	s := strings.TrimPrefix(string(data), "\ufeff")
	s = strings.ReplaceAll(s, "\r\n", "\n")
	if !strings.HasPrefix(s, "---\n") {
		return nil, nil, fmt.Errorf("missing front matter: the file must start with a line '---'")
	}
	rest := s[4:]
	end := strings.Index(rest, "\n---\n")
	if end < 0 {
		if strings.HasSuffix(rest, "\n---") {
			end = len(rest) - 4
		} else {
			return nil, nil, fmt.Errorf("front matter is not closed by a line '---'")
		}
	}
	body := ""
	if end+5 <= len(rest) {
		body = rest[end+5:]
	}
	return []byte(rest[:end]), []byte(body), nil
}

func normTags(tags []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, t := range tags {
		t = strings.ToLower(strings.TrimSpace(t))
		if t != "" && !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}

// NormAsks trims asks, drops empty and repeated ones, cuts each to
// MaxAskLen bytes (at a rune boundary) and keeps at most MaxAsks.
func NormAsks(asks []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, a := range asks {
		a = strings.Join(strings.Fields(a), " ")
		if len(a) > MaxAskLen {
			a = strings.ToValidUTF8(a[:MaxAskLen], "")
		}
		if a != "" && !seen[strings.ToLower(a)] && len(out) < MaxAsks {
			seen[strings.ToLower(a)] = true
			out = append(out, a)
		}
	}
	return out
}

// Validate checks a skill's parts against the format's rules.
func Validate(in store.SkillInput) error {
	switch {
	case in.Name == "":
		return fmt.Errorf("name is missing")
	case len(in.Name) > MaxNameLen || !nameRE.MatchString(in.Name):
		return fmt.Errorf("name %q must be kebab-case (a-z, 0-9, single hyphens), at most %d characters", in.Name, MaxNameLen)
	case in.Description == "":
		return fmt.Errorf("description is missing: say when to use the skill")
	case len(in.Description) > MaxDescriptionLen:
		return fmt.Errorf("description is longer than %d characters", MaxDescriptionLen)
	case in.Body == "":
		return fmt.Errorf("body is empty")
	case len(in.Body) > MaxBodyLen:
		return fmt.Errorf("body is longer than %d characters", MaxBodyLen)
	case len(in.Tags) > MaxTags:
		return fmt.Errorf("more than %d tags", MaxTags)
	case in.Category != "" && !validCategory(in.Category):
		return fmt.Errorf("category %q is not one of %s", in.Category, strings.Join(Categories, ", "))
	}
	return nil
}

func validCategory(c string) bool {
	for _, k := range Categories {
		if k == c {
			return true
		}
	}
	return false
}

// Format renders a skill as a SKILL.md file.
func Format(s store.Skill) []byte {
	fm := frontMatter{Name: s.Name, Description: s.Description, Category: s.Category, Tags: s.Tags, Asks: s.Asks}
	var buf bytes.Buffer
	buf.WriteString("---\n")
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	_ = enc.Encode(fm)
	enc.Close()
	buf.WriteString("---\n")
	buf.WriteString(s.Body)
	buf.WriteString("\n")
	return buf.Bytes()
}
