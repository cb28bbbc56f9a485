package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
)

// tomlFormat edits TOML settings files (ZeroClaw, IronClaw) line by line:
// a key is a `name = value` line in its `[table]` section, so comments and
// layout stay. Only keys in standard tables are edited; every edit is
// checked by parsing the result with a TOML parser (checkEdit), and one
// that would change anything else is refused with the file untouched.
type tomlFormat struct{}

func (tomlFormat) name() string { return "TOML" }

func (tomlFormat) parse(data []byte) (agentDoc, error) {
	var v map[string]any
	if _, err := toml.Decode(string(data), &v); err != nil {
		return nil, err
	}
	text := strings.ReplaceAll(string(data), "\r\n", "\n")
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	if text == "" {
		lines = nil
	}
	return &tomlDoc{lines: lines}, nil
}

// tomlDoc is a TOML file as lines.
type tomlDoc struct{ lines []string }

func (d *tomlDoc) tree() (any, error) {
	var v map[string]any
	if _, err := toml.Decode(strings.Join(d.lines, "\n"), &v); err != nil {
		return nil, err
	}
	return normalize(v)
}

func (d *tomlDoc) get(key []string) (json.RawMessage, bool, error) {
	t, err := d.tree()
	if err != nil {
		return nil, false, err
	}
	v, ok := treeGet(t, key)
	if !ok {
		return nil, false, nil
	}
	raw, err := json.Marshal(v)
	return raw, true, err
}

// header parses a `[a.b."c"]` line into its keys; ok is false for other
// lines (and for `[[array]]` headers).
func tomlHeader(line string) (keys []string, ok bool) {
	s := strings.TrimSpace(line)
	if i := strings.Index(s, "#"); i >= 0 && !strings.ContainsAny(s[:i], `"'`) {
		s = strings.TrimSpace(s[:i])
	}
	if !strings.HasPrefix(s, "[") || strings.HasPrefix(s, "[[") || !strings.HasSuffix(s, "]") {
		return nil, false
	}
	return tomlKeys(s[1 : len(s)-1])
}

// tomlKeys splits a dotted key of bare and quoted parts.
func tomlKeys(s string) ([]string, bool) {
	var keys []string
	for s = strings.TrimSpace(s); s != ""; {
		var k string
		switch s[0] {
		case '"', '\'':
			end := strings.IndexByte(s[1:], s[0])
			if end < 0 {
				return nil, false
			}
			k, s = s[1:end+1], s[end+2:]
			if s0 := strings.TrimSpace(s); s0 == "" || s0[0] == '.' {
				s = s0
			}
		default:
			end := strings.IndexAny(s, ". \t")
			if end < 0 {
				end = len(s)
			}
			k, s = s[:end], s[end:]
		}
		keys = append(keys, k)
		s = strings.TrimSpace(s)
		if strings.HasPrefix(s, ".") {
			s = strings.TrimSpace(s[1:])
		} else if s != "" {
			return nil, false
		}
	}
	return keys, len(keys) > 0
}

// section returns the index of table's header line (-1 for the root or
// when absent) and the end of its section (the next header or EOF).
func (d *tomlDoc) section(table []string) (head, end int, found bool) {
	head, found = -1, len(table) == 0
	for i, l := range d.lines {
		k, ok := tomlHeader(l)
		if !ok && !strings.HasPrefix(strings.TrimSpace(l), "[[") {
			continue
		}
		if found {
			return head, i, true
		}
		if ok && strings.Join(k, "\x00") == strings.Join(table, "\x00") {
			head, found = i, true
		}
	}
	return head, len(d.lines), found
}

// keyLine finds the `name = ...` line of name between from and to.
func (d *tomlDoc) keyLine(from, to int, name string) int {
	for i := from; i < to; i++ {
		l := strings.TrimSpace(d.lines[i])
		before, _, ok := strings.Cut(l, "=")
		if !ok || strings.HasPrefix(l, "#") {
			continue
		}
		if k, ok := tomlKeys(before); ok && len(k) == 1 && k[0] == name {
			return i
		}
	}
	return -1
}

func (d *tomlDoc) set(key []string, v json.RawMessage) error {
	if len(key) == 0 {
		return errors.New("empty key")
	}
	lit, err := tomlLiteral(v)
	if err != nil {
		return fmt.Errorf("%s: %w", strings.Join(key, "."), err)
	}
	table, name := key[:len(key)-1], key[len(key)-1]
	line := tomlKey(name) + " = " + lit
	head, end, found := d.section(table)
	if !found {
		d.lines = append(d.lines, "", "["+tomlDotted(table)+"]", line)
		return nil
	}
	if i := d.keyLine(head+1, end, name); i >= 0 {
		d.lines[i] = line
		return nil
	}
	at := end
	for at > head+1 && strings.TrimSpace(d.lines[at-1]) == "" {
		at--
	}
	d.lines = append(d.lines[:at], append([]string{line}, d.lines[at:]...)...)
	return nil
}

func (d *tomlDoc) del(key []string) error {
	if len(key) == 0 {
		return nil
	}
	head, end, found := d.section(key)
	if found && head >= 0 { // a whole table: remove its header when it has no keys left
		for i := head + 1; i < end; i++ {
			if l := strings.TrimSpace(d.lines[i]); l != "" && !strings.HasPrefix(l, "#") {
				return fmt.Errorf("%s still has settings", tomlDotted(key))
			}
		}
		d.lines = append(d.lines[:head], d.lines[end:]...)
		d.trimBlank(head)
		return nil
	}
	head, end, found = d.section(key[:len(key)-1])
	if !found {
		return nil
	}
	if i := d.keyLine(head+1, end, key[len(key)-1]); i >= 0 {
		d.lines = append(d.lines[:i], d.lines[i+1:]...)
	}
	return nil
}

// trimBlank drops a doubled blank line left at i by a removal.
func (d *tomlDoc) trimBlank(i int) {
	if i > 0 && i <= len(d.lines) && strings.TrimSpace(d.lines[i-1]) == "" && (i == len(d.lines) || strings.TrimSpace(d.lines[i]) == "") {
		d.lines = append(d.lines[:i-1], d.lines[i:]...)
	}
}

func (d *tomlDoc) bytes() ([]byte, error) {
	if len(d.lines) == 0 {
		return nil, nil
	}
	return []byte(strings.TrimLeft(strings.Join(d.lines, "\n"), "\n") + "\n"), nil
}

// tomlKey writes a key bare when it can be, quoted otherwise.
func tomlKey(k string) string {
	for _, r := range k {
		if !(r == '_' || r == '-' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return tomlString(k)
		}
	}
	if k == "" {
		return `""`
	}
	return k
}

func tomlDotted(keys []string) string {
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = tomlKey(k)
	}
	return strings.Join(parts, ".")
}

// tomlString is a TOML basic string.
func tomlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// tomlLiteral writes a JSON scalar (string, integer, bool) as TOML.
func tomlLiteral(v json.RawMessage) (string, error) {
	var x any
	if err := json.Unmarshal(v, &x); err != nil {
		return "", err
	}
	switch x := x.(type) {
	case string:
		return tomlString(x), nil
	case bool:
		return strconv.FormatBool(x), nil
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1<<53 {
			return strconv.FormatInt(int64(x), 10), nil
		}
	}
	return "", fmt.Errorf("connect writes only strings, integers and booleans into TOML, not %s", v)
}
