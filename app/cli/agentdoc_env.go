package cli

import (
	"encoding/json"
	"errors"
	"strings"
)

// envFormat edits .env files (NanoClaw): one KEY=VALUE per line, # starts
// a comment line, a value may be wrapped in one pair of matching quotes.
// That is how NanoClaw reads the file (qwibitai/nanoclaw src/env.ts,
// readEnvFile, commit 0683c6ec): the last line for a key wins.
type envFormat struct{}

func (envFormat) name() string { return ".env" }

func (envFormat) parse(data []byte) (agentDoc, error) {
	text := strings.ReplaceAll(string(data), "\r\n", "\n")
	d := &envDoc{}
	if text != "" {
		d.lines = strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	}
	return d, nil
}

// envDoc is a .env file as lines.
type envDoc struct{ lines []string }

// entry parses one line into its key and value.
func envEntry(line string) (key, value string, ok bool) {
	t := strings.TrimSpace(line)
	if t == "" || strings.HasPrefix(t, "#") {
		return "", "", false
	}
	key, value, ok = strings.Cut(t, "=")
	key, value = strings.TrimSpace(key), strings.TrimSpace(value)
	if len(value) >= 2 && (value[0] == '"' || value[0] == '\'') && value[len(value)-1] == value[0] {
		value = value[1 : len(value)-1]
	}
	return key, value, ok && key != ""
}

func (d *envDoc) get(key []string) (json.RawMessage, bool, error) {
	if len(key) != 1 {
		return nil, false, errors.New(".env keys have one part")
	}
	var raw json.RawMessage
	for _, l := range d.lines {
		if k, v, ok := envEntry(l); ok && k == key[0] {
			raw, _ = json.Marshal(v)
		}
	}
	return raw, raw != nil, nil
}

func (d *envDoc) set(key []string, v json.RawMessage) error {
	var s string
	if len(key) != 1 || json.Unmarshal(v, &s) != nil {
		return errors.New(".env values are strings under one-part keys")
	}
	if strings.ContainsAny(s, "\n\r") {
		return errors.New(".env values cannot span lines")
	}
	line := key[0] + "=" + s
	if strings.ContainsAny(s, " \t#'\"") || strings.TrimSpace(s) != s {
		line = key[0] + `="` + s + `"`
	}
	last := -1
	for i, l := range d.lines {
		if k, _, ok := envEntry(l); ok && k == key[0] {
			last = i
		}
	}
	if last < 0 {
		d.lines = append(d.lines, line)
	} else {
		d.lines[last] = line
	}
	return nil
}

func (d *envDoc) del(key []string) error {
	out := d.lines[:0:0]
	for _, l := range d.lines {
		if k, _, ok := envEntry(l); !ok || len(key) != 1 || k != key[0] {
			out = append(out, l)
		}
	}
	d.lines = out
	return nil
}

func (d *envDoc) bytes() ([]byte, error) {
	if len(d.lines) == 0 {
		return nil, nil
	}
	return []byte(strings.Join(d.lines, "\n") + "\n"), nil
}

func (d *envDoc) tree() (any, error) {
	m := map[string]any{}
	for _, l := range d.lines {
		if k, v, ok := envEntry(l); ok {
			m[k] = v
		}
	}
	return m, nil
}
