package openai

import (
	"bytes"
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// ChatRequest is a Chat Completions request body. It keeps the original
// JSON object (member order and raw values) so that every member the proxy
// does not touch is forwarded byte for byte; typed accessors decode the
// members the proxy needs on demand, and setters replace single members.
//
// A ChatRequest is not safe for concurrent modification.
type ChatRequest struct {
	obj  object
	msgs *msgCache // the split "messages", see items
}

// ParseChatRequest parses and validates a request body. Validation failures
// are returned as *RequestError (status 400, type invalid_request_error)
// with code invalid_utf8, invalid_json, invalid_body (not an object),
// missing_messages, invalid_messages (not an array, or an element that is
// not an object with a string "role") or invalid_type ("model" not a
// string, "stream" not a boolean). A null member counts as absent.
func ParseChatRequest(body []byte) (*ChatRequest, error) {
	if !utf8.Valid(body) {
		return nil, invalid(CodeInvalidUTF8, "", "request body is not valid UTF-8")
	}
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) > 0 && trimmed[0] != '{' && json.Valid(trimmed) {
		return nil, invalid(CodeInvalidBody, "", "request body must be a JSON object")
	}
	obj, err := parseObject(body)
	if err != nil {
		return nil, invalid(CodeInvalidJSON, "", "request body is not valid JSON: %v", err)
	}
	r := &ChatRequest{obj: obj}
	if err := r.validate(); err != nil {
		return nil, err
	}
	return r, nil
}

// validate checks the members the proxy relies on.
func (r *ChatRequest) validate() error {
	if err := checkType(r.obj.Get("model"), '"', "model", "a string"); err != nil {
		return err
	}
	if err := checkBool(r.obj.Get("stream"), "stream"); err != nil {
		return err
	}
	if isNull(r.obj.Get("messages")) {
		return invalid(CodeMissingMessages, "messages", "missing required parameter: 'messages'")
	}
	_, _, err := r.items()
	return err
}

// checkType reports an invalid_type error when raw is present, not null and
// does not start with want.
func checkType(raw json.RawMessage, want byte, name, desc string) error {
	if isNull(raw) || firstByte(raw) == want {
		return nil
	}
	return invalid(CodeInvalidType, name, "'%s' must be %s", name, desc)
}

// checkBool reports an invalid_type error when raw is present, not null and
// not a boolean.
func checkBool(raw json.RawMessage, name string) error {
	if isNull(raw) {
		return nil
	}
	if s := string(bytes.TrimSpace(raw)); s == "true" || s == "false" {
		return nil
	}
	return invalid(CodeInvalidType, name, "'%s' must be a boolean", name)
}

// firstByte returns the first non-space byte of raw, or 0.
func firstByte(raw []byte) byte {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return 0
	}
	return raw[0]
}

// Marshal returns the request body to send upstream: the original members
// in their original order with all modifications applied.
func (r *ChatRequest) Marshal() ([]byte, error) {
	return r.obj.Marshal(), nil
}

// Clone returns an independent copy of r.
func (r *ChatRequest) Clone() *ChatRequest {
	return &ChatRequest{obj: r.obj.Clone(), msgs: r.msgs}
}

// Field returns the raw JSON of a top-level member, or nil when absent.
func (r *ChatRequest) Field(name string) json.RawMessage {
	return r.obj.Get(name)
}

// Fields returns the names of the top-level members in order.
func (r *ChatRequest) Fields() []string {
	names := make([]string, len(r.obj.Fields))
	for i, f := range r.obj.Fields {
		names[i] = f.Key
	}
	return names
}

// SetField sets a top-level member to raw JSON, keeping its position if it
// already exists. The caller must pass valid JSON.
func (r *ChatRequest) SetField(name string, raw json.RawMessage) {
	r.obj.Set(name, bytes.Clone(raw))
}

// SetFieldValue sets a top-level member to the JSON encoding of v.
func (r *ChatRequest) SetFieldValue(name string, v any) error {
	b, err := marshalJSON(v)
	if err != nil {
		return fmt.Errorf("encode %s: %w", name, err)
	}
	r.obj.Set(name, b)
	return nil
}

// DeleteField removes a top-level member if present, e.g. proxy-only
// members such as "session_id" that must not reach the provider.
func (r *ChatRequest) DeleteField(name string) {
	r.obj.Del(name)
}

// decode unmarshals a member into v; it reports false when the member is
// absent, null or of the wrong type.
func (r *ChatRequest) decode(name string, v any) bool {
	raw := r.obj.Get(name)
	if isNull(raw) {
		return false
	}
	return json.Unmarshal(raw, v) == nil
}
