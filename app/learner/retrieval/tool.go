package retrieval

import (
	"encoding/json"
	"sort"
	"strings"
)

// A tool loop works on one instruction, but what it needs next depends
// on what its tools just reported: a failing test, a locked database, a
// rate limit. The loop's latest tool results count in the query, reduced
// as pasted text is (kinds and error lines) and only when they report a
// failure: a file written or a listing read says nothing about the task.

// maxToolResults is how many of the loop's latest tool results are read.
const maxToolResults = 3

// repeatedKind names a loop whose tools reported the same failure twice
// or more: the situation, in the words a person would use for it.
const repeatedKind = "the same command failed repeatedly, same error again"

// toolFailures reduces the tool results of the current loop, newest
// first, to their kinds and error lines; "" when none reports a failure.
func toolFailures(results []string) string {
	var out []string
	seen := map[string]int{}
	repeated := false
	for _, r := range results {
		red := reduceFailure(toolText(r))
		if red == "" {
			continue
		}
		for _, line := range strings.Split(red, "\n") {
			seen[line]++
			repeated = repeated || seen[line] == 2
		}
		if seen[red] <= 1 || len(out) == 0 {
			out = append(out, red)
		}
	}
	if repeated {
		out = append(out, repeatedKind)
	}
	return cut(strings.Join(dedupeLines(out), "\n"))
}

// reduceFailure is reducePaste for tool output: its kinds and error
// lines, or "" when it has no error line.
func reduceFailure(text string) string {
	if !errLineRE.MatchString(text) {
		return ""
	}
	return reducePaste(text)
}

// dedupeLines drops repeated lines, keeping the first of each.
func dedupeLines(parts []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, p := range parts {
		for _, l := range strings.Split(p, "\n") {
			if l != "" && !seen[l] {
				seen[l] = true
				out = append(out, l)
			}
		}
	}
	return out
}

// toolOutputKeys are the members of a JSON tool result that carry its
// output (Hermes: {"output": …, "exit_code": …, "error": …}).
var toolOutputKeys = map[string]bool{"output": true, "stdout": true, "stderr": true, "error": true,
	"content": true, "result": true, "message": true}

// toolText is a tool result's text, its output members when it is a JSON
// object; "" for a JSON result that says it succeeded (exit code 0, no
// error), whatever its output mentions.
func toolText(t string) string {
	trim := strings.TrimSpace(t)
	if !strings.HasPrefix(trim, "{") {
		return t
	}
	var m map[string]any
	if json.Unmarshal([]byte(trim), &m) != nil {
		return t
	}
	if code, ok := m["exit_code"].(float64); ok && code == 0 && (m["error"] == nil || m["error"] == "") {
		return ""
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var out []string
	for _, k := range keys {
		if s, ok := m[k].(string); ok && toolOutputKeys[strings.ToLower(k)] {
			out = append(out, s)
		}
	}
	return strings.Join(out, "\n")
}
