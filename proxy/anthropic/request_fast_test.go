package anthropic

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/metaclaw/metaclaw/proxy/internal/jsontest"
	"github.com/metaclaw/metaclaw/proxy/internal/rawjson"
)

// validateByDecoding is validate as it was before the fast path, with
// encoding/json: the reference for FuzzValidateAgrees. The member type
// checks are unchanged, and shared.
func validateByDecoding(r *MessagesRequest) error {
	if err := r.checkTypes(); err != nil {
		return err
	}
	raw := r.obj.Get("messages")
	if isNull(raw) {
		return invalid(CodeMissingMessages, "messages: field required")
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return invalid(CodeInvalidMessages, "messages: must be an array")
	}
	for i, item := range items {
		var head struct {
			Role *string `json:"role"`
		}
		if firstByte(item) != '{' || json.Unmarshal(item, &head) != nil || head.Role == nil {
			return invalid(CodeInvalidMessages, "messages.%d: must be an object with a string role", i)
		}
	}
	return nil
}

// FuzzValidateAgrees holds validate's gjson checks to the json.Unmarshal
// based ones they replaced, over generated requests and raw bodies.
func FuzzValidateAgrees(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3}, "x")
	f.Add([]byte{1, 1, 1, 1, 1, 1, 1, 1, 1}, "y")
	f.Add([]byte(`{"messages":[{"role":"u","ROLE":null},{"Role":"a","role":5}]}`), "")
	f.Add([]byte(`{"messages":[{"r\u006fle":"u"},{"role":"a","Role":null,"rOLE":"b"}],"model":5}`), "")
	f.Add([]byte(`{"messages":[[[[[]]]],"x"],"stream":1}`), "")
	f.Fuzz(func(t *testing.T, data []byte, text string) {
		body := data
		if len(data) == 0 || data[0] != '{' {
			body = (&gen{b: data, text: text}).request()
		}
		checkValidate(t, body)
	})
}

// checkValidate holds validate to validateByDecoding on body.
func checkValidate(t *testing.T, body []byte) {
	t.Helper()
	obj, err := parseObject(body)
	if err != nil {
		return
	}
	got := (&MessagesRequest{obj: obj}).validate()
	want := validateByDecoding(&MessagesRequest{obj: obj})
	if !sameError(got, want) {
		t.Fatalf("validate = %v, by decoding %v\n%.300s", got, want, body)
	}
}

// TestValidateDepth holds validate to validateByDecoding at
// encoding/json's nesting limit (too slow an input for the fuzzer to
// shrink).
func TestValidateDepth(t *testing.T) {
	for _, n := range []int{rawjson.MaxDepth - 2, rawjson.MaxDepth - 1, rawjson.MaxDepth} {
		deep := strings.Repeat("[", n) + strings.Repeat("]", n)
		checkValidate(t, []byte(`{"messages":`+deep+`}`))                                      // n deep
		checkValidate(t, []byte(`{"messages":[{"role":"user","x":`+deep[1:len(deep)-1]+`}]}`)) // n+1 deep
	}
}

// injectSystemByDecoding is InjectSystem as it was before splicing, with
// encoding/json: the reference for FuzzInjectSystemSplice.
func injectSystemByDecoding(r *MessagesRequest, text string) error {
	raw := r.obj.Get("system")
	switch firstByte(raw) {
	case '[':
		var blocks []json.RawMessage
		if err := json.Unmarshal(raw, &blocks); err != nil {
			return fmt.Errorf("inject system: %w", err)
		}
		return r.setSystemBlocks(blocks, text)
	case '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return fmt.Errorf("inject system: %w", err)
		}
		if s != "" {
			text = s + "\n\n" + text
		}
	}
	return r.SetFieldValue("system", text)
}

// FuzzInjectSystemSplice holds InjectSystem to the decoding path it
// replaced: both must give the same JSON value, whatever the request and
// the text. Only a system nested deeper than encoding/json accepts may
// make the old path fail, and then System fails too.
func FuzzInjectSystemSplice(f *testing.F) {
	f.Add([]byte(`{"system":"S","messages":[]}`), "MEM")
	f.Add([]byte(`{"system" : "x\"y\u00e9\n\/\ud800" ,"messages":[{"role":"user","content":"u"}],"model":"m"}`), "a\"b\\c\n\u2028\x01é\xff<>&")
	f.Add([]byte(`{"system":"first","system":"second","messages":[]}`), "t")
	f.Add([]byte(`{"system":"","messages":[]}`), "t")
	f.Add([]byte(`{"system":null,"messages":[]}`), "t")
	f.Add([]byte(`{"messages":[]}`), "t")
	f.Add([]byte(`{"system":[ {"type":"text","text":"A","cache_control":{"type":"ephemeral"}} , 5 ],"messages":[]}`), "t")
	f.Add([]byte(`{"system":[],"messages":[]}`), "")
	f.Add([]byte(`{"system":[[[[[[]]]]]],"messages":[]}`), "t")
	f.Fuzz(func(t *testing.T, body []byte, text string) {
		fast, err := ParseMessagesRequest(body)
		if err != nil {
			return
		}
		slow, _ := ParseMessagesRequest(body)
		if err := fast.InjectSystem(text); err != nil {
			t.Fatalf("InjectSystem: %v", err)
		}
		if err := injectSystemByDecoding(slow, text); err != nil {
			if _, serr := slow.System(); serr == nil {
				t.Fatalf("only the decoding path failed: %v\n%s", err, body)
			}
			return
		}
		a, _ := fast.Marshal()
		b, _ := slow.Marshal()
		if diff := jsontest.Diff(t, b, a); diff != "" {
			t.Fatalf("(-decoded +spliced):\n%s\nbody %s", diff, body)
		}
		if _, err := ParseMessagesRequest(a); err != nil {
			t.Fatalf("spliced request does not parse: %v\n%s", err, a)
		}
	})
}
