// Package skills is MetaClaw's skill library on the learning side: the
// SKILL.md file format (YAML front matter and a Markdown body), importing
// and exporting skill directories, installing the starter bank, cleaning a
// conversation into a retrieval query, and selecting the skills to inject
// into a turn (keyword BM25, embeddings, or both) within a token budget.
// Persistence is in store; app wires the selection into the proxy.
package skills

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/metaclaw/metaclaw/store"
	"go.yaml.in/yaml/v3"
)

// Categories a skill may have ("" is allowed too).
var Categories = []string{"coding", "research", "data-analysis", "productivity", "security", "communication",
	"automation", "agentic", "general"}

var nameRE = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

// Limits on a skill's parts.
const (
	MaxNameLen        = 64
	MaxDescriptionLen = 500
	MaxBodyLen        = 8000
	MaxTags           = 10
)

// frontMatter is the YAML header of a SKILL.md file.
type frontMatter struct {
	Name        string   `yaml:"name"`
	Description string   `yaml:"description"`
	Category    string   `yaml:"category,omitempty"`
	Tags        []string `yaml:"tags,omitempty"`
}

// Parse reads a SKILL.md file. It returns an error naming what is wrong;
// nothing of an invalid file is used.
func Parse(data []byte) (store.SkillInput, error) {
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
		Category: strings.TrimSpace(fm.Category), Tags: normTags(fm.Tags), Body: strings.TrimSpace(string(body))}
	return in, Validate(in)
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
	fm := frontMatter{Name: s.Name, Description: s.Description, Category: s.Category, Tags: s.Tags}
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
