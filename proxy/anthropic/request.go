package anthropic

import (
	"bytes"
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// MessagesRequest is a Messages API request body. Like openai.ChatRequest it
// keeps the original JSON object so unknown members pass through untouched
// on native forwarding, and offers typed accessors and setters.
//
// A MessagesRequest is not safe for concurrent modification.
type MessagesRequest struct {
	obj  object
	msgs *msgSplit // the split "messages", see split
	read *msgRead  // what Messages last read, see Messages
}

// ParseMessagesRequest parses and validates a request body. Validation
// failures are *RequestError (status 400, invalid_request_error) with Code
// invalid_utf8, invalid_json, invalid_body (not an object),
// missing_messages, invalid_messages (not an array, or an element that is
// not an object with a string "role") or invalid_type ("model" not a
// string, "stream" not a boolean, "max_tokens" not an integer, "system" not
// a string or array). A null member counts as absent.
func ParseMessagesRequest(body []byte) (*MessagesRequest, error) {
	if !utf8.Valid(body) {
		return nil, invalid(CodeInvalidUTF8, "request body is not valid UTF-8")
	}
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) > 0 && trimmed[0] != '{' && json.Valid(trimmed) {
		return nil, invalid(CodeInvalidBody, "request body must be a JSON object")
	}
	obj, err := parseObject(body)
	if err != nil {
		return nil, invalid(CodeInvalidJSON, "request body is not valid JSON: %v", err)
	}
	r := &MessagesRequest{obj: obj}
	if err := r.validate(); err != nil {
		return nil, err
	}
	return r, nil
}

// validate checks the members the proxy relies on. The body must be valid
// UTF-8, as ParseMessagesRequest has checked.
func (r *MessagesRequest) validate() error {
	if err := r.checkTypes(); err != nil {
		return err
	}
	raw := r.obj.Get("messages")
	if isNull(raw) {
		return invalid(CodeMissingMessages, "messages: field required")
	}
	split, err := splitMessages(raw)
	if err != nil {
		return err
	}
	r.msgs = split
	return nil
}

// checkTypes checks the types of the top-level members other than
// "messages".
func (r *MessagesRequest) checkTypes() error {
	checks := []struct {
		name, desc string
		ok         func(json.RawMessage) bool
	}{
		{"model", "a string", func(v json.RawMessage) bool { return firstByte(v) == '"' }},
		{"stream", "a boolean", isBool},
		{"max_tokens", "an integer", isInteger},
		{"system", "a string or an array of text blocks", func(v json.RawMessage) bool {
			return firstByte(v) == '"' || firstByte(v) == '['
		}},
	}
	for _, c := range checks {
		if v := r.obj.Get(c.name); !isNull(v) && !c.ok(v) {
			return invalid(CodeInvalidType, "%s: must be %s", c.name, c.desc)
		}
	}
	return nil
}

// isBool reports whether v is true or false.
func isBool(v json.RawMessage) bool {
	s := string(bytes.TrimSpace(v))
	return s == "true" || s == "false"
}

// isInteger reports whether v is a JSON number without fraction that fits
// an int.
func isInteger(v json.RawMessage) bool {
	var n int
	return json.Unmarshal(v, &n) == nil
}

// firstByte returns the first non-space byte of raw, or 0.
func firstByte(raw []byte) byte {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return 0
	}
	return raw[0]
}

// Marshal returns the request body with all modifications applied and all
// other members in their original order and bytes.
func (r *MessagesRequest) Marshal() ([]byte, error) {
	return r.obj.Marshal(), nil
}

// Clone returns an independent copy of r.
func (r *MessagesRequest) Clone() *MessagesRequest {
	return &MessagesRequest{obj: r.obj.Clone(), msgs: r.msgs}
}

// Field returns the raw JSON of a top-level member, or nil when absent.
func (r *MessagesRequest) Field(name string) json.RawMessage { return r.obj.Get(name) }

// Fields returns the names of the top-level members in order.
func (r *MessagesRequest) Fields() []string {
	names := make([]string, len(r.obj.Fields))
	for i, f := range r.obj.Fields {
		names[i] = f.Key
	}
	return names
}

// SetField sets a top-level member to raw JSON, keeping its position if it
// exists. The caller must pass valid JSON.
func (r *MessagesRequest) SetField(name string, raw json.RawMessage) {
	r.obj.Set(name, bytes.Clone(raw))
}

// SetFieldValue sets a top-level member to the JSON encoding of v.
func (r *MessagesRequest) SetFieldValue(name string, v any) error {
	b, err := marshalJSON(v)
	if err != nil {
		return fmt.Errorf("encode %s: %w", name, err)
	}
	r.obj.Set(name, b)
	return nil
}

// DeleteField removes a top-level member if present.
func (r *MessagesRequest) DeleteField(name string) { r.obj.Del(name) }

// decode unmarshals a member into v; it reports false when the member is
// absent, null or of the wrong type.
func (r *MessagesRequest) decode(name string, v any) bool {
	raw := r.obj.Get(name)
	if isNull(raw) {
		return false
	}
	return json.Unmarshal(raw, v) == nil
}
