package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/metaclaw/metaclaw/store/config"
)

// docFiles are the user's documents the check reads: the README and docs/.
func docFiles(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("../../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	return append([]string{"../../README.md"}, files...)
}

var (
	codeSpanRE  = regexp.MustCompile("`([^`\n]+)`")
	fenceRE     = regexp.MustCompile("(?s)```[a-z]*\n(.*?)```")
	linkRE      = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	headingRE   = regexp.MustCompile(`(?m)^#+ (.+)$`)
	commandRE   = regexp.MustCompile(`(?:^|[\s(])(?:bin/)?metaclaw((?: [^\s|#]+(?:\|[^\s#]+)*)+)`)
	configKeyRE = regexp.MustCompile(`^[a-z][a-z0-9_]*(\.[a-z0-9_*]+)+$`)
)

// TestDocsNameRealCommands checks that every `metaclaw …` command line the
// README and docs/ show names a command (and subcommand) the CLI has, with
// flags it takes.
func TestDocsNameRealCommands(t *testing.T) {
	t.Setenv("METACLAW_HOME", t.TempDir())
	seen := map[string]bool{}
	for _, f := range docFiles(t) {
		for _, line := range commandLines(t, f) {
			for _, m := range commandRE.FindAllStringSubmatch(line, -1) {
				words := strings.Fields(m[1])
				key := strings.Join(words, " ")
				if seen[key] {
					continue
				}
				seen[key] = true
				if msg := checkCommand(words); msg != "" {
					t.Errorf("%s: `metaclaw %s`: %s", filepath.Base(f), key, msg)
				}
			}
		}
	}
	if len(seen) < 10 {
		t.Fatalf("found only %d command lines in the docs; is the extraction broken?", len(seen))
	}
}

// commandLines returns the lines of code spans and fenced blocks of a file.
func commandLines(t *testing.T, path string) []string {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, m := range fenceRE.FindAllStringSubmatch(string(data), -1) {
		lines = append(lines, strings.Split(m[1], "\n")...)
	}
	for _, m := range codeSpanRE.FindAllStringSubmatch(fenceRE.ReplaceAllString(string(data), ""), -1) {
		lines = append(lines, m[1])
	}
	for i, l := range lines {
		lines[i] = strings.ReplaceAll(l, `\|`, "|") // a | inside a table cell
	}
	return lines
}

// checkCommand says what is wrong with one documented command line, or "".
func checkCommand(words []string) string {
	name := words[0]
	if strings.HasPrefix(name, "-") || isPlaceholder(name) {
		return "" // metaclaw --help, metaclaw COMMAND
	}
	found := false
	for _, c := range commands() {
		found = found || c.name == name
	}
	if !found {
		return "no such command"
	}
	args := []string{name}
	if len(words) > 1 && isSubcommand(words[1]) {
		args = append(args, words[1]) // one subcommand or argument selects the command
	}
	if alts := alternatives(words); alts != nil {
		for _, alt := range alts {
			if msg := checkInvocation(append(args[:1:1], alt...)); msg != "" {
				return msg
			}
		}
		return ""
	}
	if len(args) == 1 && len(words) > 1 && isPlaceholder(words[1]) {
		return "" // metaclaw connect AGENT: the command exists; its flags depend on the agent
	}
	help, msg := helpOf(args)
	if msg != "" {
		return msg
	}
	for _, w := range words[1:] {
		flag, _, _ := strings.Cut(strings.TrimLeft(w, "-["), "=")
		flag = strings.TrimRight(flag, "]")
		if !strings.HasPrefix(w, "--") && !strings.HasPrefix(w, "[--") || flag == "help" {
			continue
		}
		if help != "" && !strings.Contains(help, "-"+flag+" ") && !strings.Contains(help, "-"+flag+"\n") &&
			!strings.Contains(help, "-"+flag+"\t") && !strings.Contains(help, "--"+flag) {
			return "flag --" + flag + " is not in its usage"
		}
	}
	return ""
}

// alternatives expands "list|show|search" in the subcommand position into
// one invocation each.
func alternatives(words []string) [][]string {
	if len(words) < 2 || !strings.Contains(words[1], "|") {
		return nil
	}
	var out [][]string
	for _, alt := range strings.Split(strings.Trim(words[1], "[]`\\"), "|") {
		alt = strings.Trim(alt, "\\")
		if alt != "" && !isPlaceholder(alt) && !strings.HasPrefix(alt, "-") {
			out = append(out, []string{alt})
		}
	}
	return out
}

func checkInvocation(args []string) string {
	_, msg := helpOf(args)
	return msg
}

// helpOf runs the command with --help and returns what it printed, or
// why the command line is not one the CLI knows.
func helpOf(args []string) (string, string) {
	var out, errOut bytes.Buffer
	env := &Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errOut}
	Main(append(append([]string{}, args...), "--help"), env)
	text := out.String() + errOut.String()
	if strings.Contains(text, "unknown") {
		return "", strings.TrimSpace(text)
	}
	return text, ""
}

// isSubcommand reports whether the word after the command names a
// subcommand (or an agent), not a flag, a placeholder or a value.
func isSubcommand(w string) bool {
	return !strings.HasPrefix(w, "-") && !isPlaceholder(w) && !strings.ContainsAny(w, `"'~/.=<[|`)
}

func isPlaceholder(w string) bool {
	w = strings.Trim(w, "[]")
	return w != "" && strings.ToUpper(w) == w && strings.ToLower(w) != w
}

// TestDocsNameRealConfigKeys checks every configuration key the README and
// docs/ name in a code span (`llm.api_key`, `rl.*`, `rl.prm_*`).
func TestDocsNameRealConfigKeys(t *testing.T) {
	t.Parallel()
	sections := map[string]bool{}
	for _, k := range config.Keys() {
		if s, _, ok := strings.Cut(k, "."); ok {
			sections[s] = true
		}
	}
	checked := 0
	for _, f := range docFiles(t) {
		for _, span := range commandLines(t, f) {
			for _, word := range strings.Fields(span) {
				word = strings.Trim(word, ",;:()")
				s, _, ok := strings.Cut(word, ".")
				if !ok || !sections[s] || !configKeyRE.MatchString(word) {
					continue
				}
				checked++
				if !keyExists(word) {
					t.Errorf("%s: `%s` is not a configuration key", filepath.Base(f), word)
				}
			}
		}
	}
	if checked < 10 {
		t.Fatalf("found only %d configuration keys in the docs; is the extraction broken?", checked)
	}
}

// keyExists reports whether key names a configuration key, or with a *
// the prefix of at least one.
func keyExists(key string) bool {
	if prefix, _, wild := strings.Cut(key, "*"); wild {
		for _, k := range config.Keys() {
			if strings.HasPrefix(k, prefix) {
				return true
			}
		}
		return false
	}
	_, ok := config.Lookup(key)
	return ok
}

// TestDocsLinksResolve checks that every relative link of the README and
// docs/ points at a file of the repository, and every #anchor at a heading.
func TestDocsLinksResolve(t *testing.T) {
	t.Parallel()
	for _, f := range docFiles(t) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range linkRE.FindAllStringSubmatch(string(data), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			path, anchor, _ := strings.Cut(target, "#")
			file := f
			if path != "" {
				file = filepath.Join(filepath.Dir(f), path)
				if _, err := os.Stat(file); err != nil {
					t.Errorf("%s: link %q: %v", filepath.Base(f), target, err)
					continue
				}
			}
			if anchor != "" && !hasAnchor(t, file, anchor) {
				t.Errorf("%s: link %q: no heading makes the anchor #%s", filepath.Base(f), target, anchor)
			}
		}
	}
}

func hasAnchor(t *testing.T, file, anchor string) bool {
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range headingRE.FindAllStringSubmatch(string(data), -1) {
		if slug(m[1]) == anchor {
			return true
		}
	}
	return false
}

// slug is GitHub's anchor for a heading: lower case, punctuation dropped,
// spaces as hyphens.
func slug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(heading)) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127:
			b.WriteRune(r)
		}
	}
	return b.String()
}
