package bench

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// Question types.
const (
	MultiChoice = "multi_choice"
	FileCheck   = "file_check"
)

// Benchmark is a benchmark read from its folder.
type Benchmark struct {
	Name         string
	Dir          string // the folder of all_tests.json
	EvalDir      string
	WorkspaceSrc string
	StateDir     string // OpenClaw state with the session seeds
	Days         []Day
}

// Day is one test of all_tests.json: a day of the benchmark.
type Day struct {
	ID      string   `json:"id"`
	Desc    string   `json:"desc"`
	Agent   string   `json:"agent"`
	Session string   `json:"session"`
	Eval    string   `json:"eval"`
	Arc     string   `json:"arc"`
	Tags    []string `json:"preference_tags"`
	Groups  []Group  `json:"-"`
}

// Group is a run of rounds sharing one feedback chain.
type Group struct {
	ID     string  `json:"id"`
	Desc   string  `json:"desc"`
	Rounds []Round `json:"rounds"`
}

// Round is one question.
type Round struct {
	ID       string   `json:"id"`
	Type     string   `json:"type"`
	Question string   `json:"question"`
	Eval     Eval     `json:"eval"`
	Feedback Feedback `json:"feedback"`
	Update   []Update `json:"update"`
}

// Eval says how a round is scored.
type Eval struct {
	Options           map[string]string `json:"options"` // multi_choice
	Answer            Letters           `json:"answer"`  // multi_choice: "A,C" or ["A","C"]
	Command           string            `json:"command"` // file_check
	ExpectExit        *int              `json:"expect_exit"`
	ExpectStdout      *string           `json:"expect_stdout"`
	ExpectStdoutRegex bool              `json:"expect_stdout_regex"`
	Timeout           float64           `json:"timeout"` // seconds; 0 = 30
}

// Feedback holds a round's feedback texts.
type Feedback struct {
	Correct   string            `json:"correct"`
	Incorrect string            `json:"incorrect"`
	Options   map[string]string `json:"options"` // multi_choice: why each option is right or wrong
}

// Update changes the workspace (or the session) before a round.
type Update struct {
	Type    string          `json:"type"`   // workspace or session
	Action  string          `json:"action"` // new, append, insert, delete
	Path    string          `json:"path"`
	Source  string          `json:"source"` // relative to eval/<eval>/
	Param   json.RawMessage `json:"param"`
	Channel string          `json:"channel"`
}

// Letters is a set of option letters, upper case, sorted.
type Letters []string

var letterRE = regexp.MustCompile(`[A-Za-z]`)

// lettersOf returns the distinct letters of s, upper case, sorted.
func lettersOf(s string) Letters {
	seen := map[string]bool{}
	var out Letters
	for _, l := range letterRE.FindAllString(s, -1) {
		l = strings.ToUpper(l)
		if !seen[l] {
			seen[l] = true
			out = append(out, l)
		}
	}
	sort.Strings(out)
	return out
}

// UnmarshalJSON reads a string or a list of strings, keeping the letters.
func (l *Letters) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*l = lettersOf(s)
		return nil
	}
	var list []any
	if err := json.Unmarshal(b, &list); err != nil {
		return fmt.Errorf("answer must be a string or a list: %w", err)
	}
	var all strings.Builder
	for _, v := range list {
		fmt.Fprint(&all, v, ",")
	}
	*l = lettersOf(all.String())
	return nil
}

// allTests is all_tests.json.
type allTests struct {
	Name         string `json:"name"`
	StateDir     string `json:"openclaw_state_dir"`
	EvalDir      string `json:"eval_dir"`
	WorkspaceSrc string `json:"workspace_src"`
	Test         []Day  `json:"test"`
}

// Load reads a benchmark: path is its folder (holding all_tests.json) or
// the all_tests.json file itself.
func Load(path string) (*Benchmark, error) {
	file := path
	if st, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("benchmark %s: %w", path, err)
	} else if st.IsDir() {
		file = filepath.Join(path, "all_tests.json")
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("benchmark: %w (point at the folder that holds all_tests.json, e.g. benchmark/data/metaclaw-bench)", err)
	}
	var at allTests
	if err := json.Unmarshal(data, &at); err != nil {
		return nil, fmt.Errorf("benchmark %s: %w", file, err)
	}
	dir, _ := filepath.Abs(filepath.Dir(file))
	b := &Benchmark{Name: at.Name, Dir: dir}
	if b.Name == "" {
		b.Name = filepath.Base(dir)
	}
	if err := b.resolveDirs(at); err != nil {
		return nil, err
	}
	if len(at.Test) == 0 {
		return nil, fmt.Errorf("benchmark %s lists no tests", file)
	}
	for _, d := range at.Test {
		if err := b.loadDay(&d); err != nil {
			return nil, err
		}
		b.Days = append(b.Days, d)
	}
	return b, nil
}

// resolveDirs finds eval_dir, workspace_src and openclaw_state_dir.
func (b *Benchmark) resolveDirs(at allTests) error {
	var errs []error
	find := func(field, value, conventional string, must bool) string {
		if p := resolvePath(b.Dir, value); p != "" {
			return p
		}
		if p := filepath.Join(b.Dir, conventional); isDir(p) {
			return p
		}
		if must {
			errs = append(errs, fmt.Errorf("benchmark %s: %s %q not found (nor %s)", b.Dir, field, value, conventional))
		}
		return ""
	}
	b.EvalDir = find("eval_dir", at.EvalDir, "eval", true)
	b.WorkspaceSrc = find("workspace_src", at.WorkspaceSrc, filepath.Join("workspaces", "shared"), true)
	b.StateDir = find("openclaw_state_dir", at.StateDir, "openclaw_state", false)
	return errors.Join(errs...)
}

// resolvePath resolves a path of all_tests.json: absolute, or relative to
// the benchmark folder or one of its parents (the reference writes them
// relative to its project root, or under ${METACLAW_ROOT}). It returns ""
// when no such folder exists.
func resolvePath(dir, p string) string {
	if p == "" {
		return ""
	}
	rel, rooted := strings.CutPrefix(p, "${METACLAW_ROOT}")
	if !rooted && filepath.IsAbs(p) {
		if isDir(p) {
			return p
		}
		return ""
	}
	rel = strings.TrimLeft(rel, `/\`)
	for d := dir; ; d = filepath.Dir(d) {
		if c := filepath.Join(d, rel); isDir(c) {
			return c
		}
		if filepath.Dir(d) == d {
			return ""
		}
	}
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// loadDay reads a day's questions.json.
func (b *Benchmark) loadDay(d *Day) error {
	if d.ID == "" || d.Eval == "" {
		return fmt.Errorf("benchmark %s: a test without id or eval", b.Dir)
	}
	file := filepath.Join(b.EvalDir, d.Eval, "questions.json")
	data, err := os.ReadFile(file)
	if err != nil {
		return fmt.Errorf("day %s: %w", d.ID, err)
	}
	var groups []Group
	if len(data) > 0 && strings.TrimSpace(string(data))[0] == '{' {
		var g Group
		err = json.Unmarshal(data, &g)
		groups = []Group{g}
	} else {
		err = json.Unmarshal(data, &groups)
	}
	if err != nil {
		return fmt.Errorf("day %s: %s: %w", d.ID, file, err)
	}
	for gi := range groups {
		for ri := range groups[gi].Rounds {
			if err := checkRound(&groups[gi].Rounds[ri]); err != nil {
				return fmt.Errorf("day %s, round %s: %w", d.ID, groups[gi].Rounds[ri].ID, err)
			}
		}
	}
	d.Groups = groups
	return nil
}

func checkRound(r *Round) error {
	if r.Type == "" {
		r.Type = MultiChoice
	}
	switch {
	case r.ID == "":
		return errors.New("no id")
	case r.Type != MultiChoice && r.Type != FileCheck:
		return fmt.Errorf("unknown type %q", r.Type)
	case r.Type == MultiChoice && len(r.Eval.Answer) == 0:
		return errors.New("multi_choice without eval.answer")
	case r.Type == FileCheck && r.Eval.Command == "":
		return errors.New("file_check without eval.command")
	}
	return nil
}

// Rounds returns the number of rounds of a day.
func (d *Day) Rounds() int {
	n := 0
	for _, g := range d.Groups {
		n += len(g.Rounds)
	}
	return n
}

// SeedMessage is a message of a day's session seed.
type SeedMessage struct {
	Role, Text string
}

// SeedPath returns the file of a day's session seed ("" without one).
func (b *Benchmark) SeedPath(d *Day) string {
	if b.StateDir == "" || d.Session == "" {
		return ""
	}
	p := filepath.Join(b.StateDir, "agents", d.Agent, "sessions", d.Session+".jsonl")
	if _, err := os.Stat(p); err != nil {
		return ""
	}
	return p
}

// Seed reads a day's session seed: the user and assistant text messages of
// its OpenClaw transcript, in order. A day without one has none.
func (b *Benchmark) Seed(d *Day) ([]SeedMessage, error) {
	p := b.SeedPath(d)
	if p == "" {
		return nil, nil
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return nil, fmt.Errorf("day %s: session seed: %w", d.ID, err)
	}
	var out []SeedMessage
	for i, line := range strings.Split(string(data), "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		var ev struct {
			Type    string `json:"type"`
			Message struct {
				Role    string          `json:"role"`
				Content json.RawMessage `json:"content"`
			} `json:"message"`
		}
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			return nil, fmt.Errorf("day %s: session seed line %d: %w", d.ID, i+1, err)
		}
		role := ev.Message.Role
		if ev.Type != "message" || (role != "user" && role != "assistant") {
			continue
		}
		if text := seedText(ev.Message.Content); text != "" {
			out = append(out, SeedMessage{Role: role, Text: text})
		}
	}
	return out, nil
}

// seedText joins the text parts of a transcript message's content.
func seedText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Type, Text string
	}
	_ = json.Unmarshal(raw, &parts)
	var texts []string
	for _, p := range parts {
		if p.Type == "text" && p.Text != "" {
			texts = append(texts, p.Text)
		}
	}
	return strings.Join(texts, "\n")
}
