package evolve

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/metaclaw/metaclaw/app/learner/internal/jsonx"
	"github.com/metaclaw/metaclaw/app/learner/skills"
)

// Operations.
const (
	OpAdd    = "add"
	OpUpdate = "update"
	OpRetire = "retire"
)

// Limits on the evolver's output. Anything beyond them rejects the whole
// output.
const (
	MaxOps            = 5
	MaxNameLen        = 64
	MinDescriptionLen = 10
	MaxDescriptionLen = 300
	MinBodyLen        = 20
	MaxBodyLen        = 4000
	MaxTags           = 8
	maxTagLen         = 40
	maxReasonLen      = 500
)

var nameRE = regexp.MustCompile(`^[a-z0-9]+(?:-[a-z0-9]+)*$`)

// Op is one operation proposed by the evolver, as validated and applied.
type Op struct {
	Op          string   `json:"op"`
	Name        string   `json:"name"`
	Description string   `json:"description,omitempty"`
	Category    string   `json:"category,omitempty"`
	Tags        []string `json:"tags,omitempty"`
	Body        string   `json:"body,omitempty"`
	Reason      string   `json:"reason,omitempty"`
	Turns       []int64  `json:"turns,omitempty"`
	// MergedFrom is set when a proposed add nearly duplicated an existing
	// skill and became an update of it: the name the add proposed.
	MergedFrom string `json:"merged_from,omitempty"`
	// CategoryNote says when the proposed category was unknown and the
	// skill was filed under general (skills.FileCategory).
	CategoryNote string `json:"category_note,omitempty"`
}

// rejection is an output that breaks a rule; nothing of it is applied.
type rejection struct{ why string }

func (r *rejection) Error() string { return r.why }

func reject(format string, args ...any) error { return &rejection{why: fmt.Sprintf(format, args...)} }

// parseOutput reads the evolver's answer: one JSON object with an
// "operations" array. It returns the operations and their raw JSON (for
// the log). Unknown members are ignored; wrong types reject the output.
func parseOutput(answer string) ([]Op, string, error) {
	obj, err := jsonx.FirstObject(answer)
	if err != nil {
		return nil, "", reject("unparsable output: %v", err)
	}
	var out struct {
		Operations json.RawMessage `json:"operations"`
	}
	if err := json.Unmarshal(obj, &out); err != nil {
		return nil, "", reject("unparsable output: %v", err)
	}
	if len(out.Operations) == 0 || bytes.Equal(out.Operations, []byte("null")) {
		return nil, "", reject(`output has no "operations" array`)
	}
	raw := string(out.Operations)
	var ops []Op
	if err := json.Unmarshal(out.Operations, &ops); err != nil {
		return nil, raw, reject("malformed operations: %v", err)
	}
	if len(ops) > MaxOps {
		return nil, raw, reject("%d operations, at most %d allowed", len(ops), MaxOps)
	}
	for i := range ops {
		if err := normalize(&ops[i]); err != nil {
			return nil, raw, reject("operation %d (%s %q): %v", i+1, ops[i].Op, ops[i].Name, err)
		}
	}
	return ops, raw, nil
}

// normalize trims an operation's fields and checks them on their own.
func normalize(op *Op) error {
	op.Op = strings.ToLower(strings.TrimSpace(op.Op))
	op.Name = strings.TrimSpace(op.Name)
	op.Description = strings.TrimSpace(op.Description)
	op.Body = strings.TrimSpace(op.Body)
	op.Reason = shorten(strings.TrimSpace(op.Reason), maxReasonLen)
	op.MergedFrom, op.CategoryNote = "", ""
	if len(op.Name) > MaxNameLen || !nameRE.MatchString(op.Name) {
		return fmt.Errorf("name must be kebab-case (a-z, 0-9, single hyphens), 1 to %d characters", MaxNameLen)
	}
	switch op.Op {
	case OpRetire:
		op.Description, op.Category, op.Tags, op.Body = "", "", nil, ""
		return nil
	case OpAdd, OpUpdate:
	default:
		return fmt.Errorf("unknown op %q (want add, update or retire)", op.Op)
	}
	if n := utf8.RuneCountInString(op.Description); n < MinDescriptionLen || n > MaxDescriptionLen {
		return fmt.Errorf("description has %d characters, want %d to %d", n, MinDescriptionLen, MaxDescriptionLen)
	}
	if n := utf8.RuneCountInString(op.Body); n < MinBodyLen || n > MaxBodyLen {
		return fmt.Errorf("body has %d characters, want %d to %d", n, MinBodyLen, MaxBodyLen)
	}
	tags, err := normTags(op.Tags)
	if err != nil {
		return err
	}
	op.Category, op.Tags, op.CategoryNote = skills.FileCategory(op.Category, tags, MaxTags)
	return nil
}

func normTags(in []string) ([]string, error) {
	var out []string
	for _, t := range in {
		t = strings.ToLower(strings.TrimSpace(t))
		if t == "" || slices.Contains(out, t) {
			continue
		}
		if utf8.RuneCountInString(t) > maxTagLen {
			return nil, fmt.Errorf("tag %q is longer than %d characters", t, maxTagLen)
		}
		out = append(out, t)
	}
	if len(out) > MaxTags {
		return nil, fmt.Errorf("%d tags, at most %d allowed", len(out), MaxTags)
	}
	return out, nil
}

// checkTurns rejects turn ids that are not of the session.
func checkTurns(ops []Op, session map[int64]bool) error {
	for _, op := range ops {
		for _, id := range op.Turns {
			if !session[id] {
				return reject("operation %s %q cites turn %d, which is not of this session", op.Op, op.Name, id)
			}
		}
	}
	return nil
}

// shorten cuts s to at most n bytes on a rune boundary.
func shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
