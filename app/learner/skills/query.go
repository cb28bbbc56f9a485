package skills

import (
	"encoding/json"
	"regexp"
	"strings"
)

// Message is one message of a conversation, reduced to role and text.
type Message struct {
	Role string // system, user, assistant, tool
	Text string
}

// MaxQueryLen bounds the retrieval query, in bytes.
const MaxQueryLen = 2000

var (
	// OpenClaw prefixes the user's text with "[Sun 2026-11-29 20:59 UTC] ".
	datePrefixRE = regexp.MustCompile(`(?m)^\s*\[(Mon|Tue|Wed|Thu|Fri|Sat|Sun) \d{4}-\d{2}-\d{2} \d{2}:\d{2}(:\d{2})?( [A-Za-z0-9+:\-/_]+)?\]\s*`)
	// OpenClaw appends "Runtime: agent=main | session=… | host=…" on a
	// session's first turn.
	runtimeRE = regexp.MustCompile(`(?m)^\s*Runtime: .*$`)
	// OpenClaw's internal-context message, and Claude Code's reminders.
	internalRE = regexp.MustCompile(`(?s)<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>.*?<<<END_OPENCLAW_INTERNAL_CONTEXT>>>`)
	reminderRE = regexp.MustCompile(`(?s)<(system-reminder|command-name|command-message|command-args|local-command-stdout)>.*?</(system-reminder|command-name|command-message|command-args|local-command-stdout)>`)
)

// CleanQuery builds the retrieval query from the user's recent messages
// only: the last two user messages that still hold text once agent
// boilerplate is removed (OpenClaw's date prefix, Runtime line and
// internal-context message, Claude Code's reminders, JSON envelopes). System
// prompts, assistant text and tool results never enter the query. It
// returns "" when the user said nothing to retrieve on.
func CleanQuery(msgs []Message) string {
	var parts []string
	for i := len(msgs) - 1; i >= 0 && len(parts) < 2; i-- {
		if msgs[i].Role != "user" {
			continue
		}
		if t := cleanText(msgs[i].Text); t != "" {
			parts = append(parts, t)
		}
	}
	q := strings.Join(parts, "\n")
	if len(q) > MaxQueryLen {
		q = q[:MaxQueryLen]
	}
	return strings.TrimSpace(q)
}

func cleanText(t string) string {
	// Each expression runs only when text it needs is there: most messages
	// hold none of it, and a regexp that cannot match still costs a scan
	// (the two anchored at line starts cost as much as the rest of
	// retrieval).
	if strings.Contains(t, "<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>") {
		t = internalRE.ReplaceAllString(t, " ")
	}
	if strings.Contains(t, "</") {
		t = reminderRE.ReplaceAllString(t, " ")
	}
	if strings.Contains(t, "[") {
		t = datePrefixRE.ReplaceAllString(t, "")
	}
	if strings.Contains(t, "Runtime: ") {
		t = runtimeRE.ReplaceAllString(t, "")
	}
	t = strings.TrimSpace(t)
	if strings.HasPrefix(t, "{") || strings.HasPrefix(t, "[") {
		t = unwrapJSON(t)
	}
	return strings.TrimSpace(t)
}

// envelopeKeys are the JSON members that carry what a person wrote.
var envelopeKeys = map[string]bool{"text": true, "message": true, "content": true, "prompt": true,
	"query": true, "input": true, "instruction": true, "question": true, "task": true}

// unwrapJSON keeps only the human text of a JSON envelope; text that is
// not JSON is returned as it is.
func unwrapJSON(t string) string {
	var v any
	if json.Unmarshal([]byte(t), &v) != nil {
		return t
	}
	var out []string
	collectText(v, "", &out)
	return strings.Join(out, "\n")
}

func collectText(v any, key string, out *[]string) {
	switch x := v.(type) {
	case string:
		if envelopeKeys[key] {
			*out = append(*out, cleanText(x))
		}
	case []any:
		for _, e := range x {
			collectText(e, key, out)
		}
	case map[string]any:
		for k, e := range x {
			collectText(e, strings.ToLower(k), out)
		}
	}
}
