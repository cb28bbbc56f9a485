// Package jsonx finds the JSON object in a model's answer: models asked for
// strict JSON still wrap it in a ```json fence or surround it with prose.
// It is internal to app/learner and imports only the standard library.
package jsonx

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
)

// ErrNoObject is returned when the text holds no JSON object.
var ErrNoObject = errors.New("no JSON object in the answer")

// maxTries bounds how many '{' positions are tried.
const maxTries = 64

// FirstObject returns the first complete JSON object in text, looking
// inside a ```json (or bare ```) fence first when there is one.
func FirstObject(text string) (json.RawMessage, error) {
	if inner, ok := fenced(text); ok {
		if obj, err := scan(inner); err == nil {
			return obj, nil
		}
	}
	return scan(text)
}

// fenced returns the content of the first ``` fence.
func fenced(text string) (string, bool) {
	start := strings.Index(text, "```")
	if start < 0 {
		return "", false
	}
	rest := text[start+3:]
	if nl := strings.IndexByte(rest, '\n'); nl >= 0 && !strings.Contains(rest[:nl], "{") {
		rest = rest[nl+1:] // skip the info string ("json")
	}
	if end := strings.Index(rest, "```"); end >= 0 {
		rest = rest[:end]
	}
	return rest, true
}

// scan tries each '{' in turn and returns the first that starts a valid
// JSON object.
func scan(text string) (json.RawMessage, error) {
	for i, tries := 0, 0; tries < maxTries; tries++ {
		j := strings.IndexByte(text[i:], '{')
		if j < 0 {
			break
		}
		i += j
		dec := json.NewDecoder(strings.NewReader(text[i:]))
		dec.UseNumber()
		var raw json.RawMessage
		if err := dec.Decode(&raw); err == nil && len(raw) > 0 && raw[0] == '{' {
			return bytes.Clone(raw), nil
		}
		i++
	}
	return nil, ErrNoObject
}
