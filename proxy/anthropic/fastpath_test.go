package anthropic

import (
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/metaclaw/metaclaw/proxy/internal/rawjson"
)

// gen turns fuzz bytes into a stream of small decisions and uses a fuzz
// string as the text of the requests it builds.
type gen struct {
	b    []byte
	text string
}

// newGen returns a generator that makes the decisions data gives, then
// pseudo-random ones seeded with data, then zeros: the mutator mostly
// makes short inputs, which would otherwise leave most decisions at 0 and
// reach rare combinations (a repeated image source field set to null, say)
// too seldom.
func newGen(data []byte, text string) *gen {
	h := fnv.New64a()
	h.Write(data)
	rng := rand.New(rand.NewPCG(h.Sum64(), uint64(len(data))))
	b := append(slices.Clone(data), make([]byte, 1024)...)
	for i := len(data); i < len(b); i++ {
		b[i] = byte(rng.Uint32())
	}
	return &gen{b: b, text: text}
}

// pick returns a decision in [0, n); 0 once the bytes run out, so the
// generator makes 0 its usual choice.
func (g *gen) pick(n int) int {
	if len(g.b) == 0 {
		return 0
	}
	v := int(g.b[0]) % n
	g.b = g.b[1:]
	return v
}

// rawEscapes are escapes encoding/json never writes but decodes: of ASCII
// and NUL, of paired and lone surrogates, a high surrogate before a
// non-surrogate or before another high one, and every short escape.
var rawEscapes = []string{`\u0041\/`, `\ud83d\ude00`, `\ud800`, `\udc00x`, `\ud800\u0041`, `\ud800\ud800`,
	`\u00e9\u2028`, `\u0000`, `\udbff\udfff\udc00`, `\ud800\udbff\udc00`, `\"\\\/\b\f\n\r\t`}

// rawInvalid are bytes that are not UTF-8: a stray continuation byte, a
// truncated sequence, an encoded surrogate, a rune past U+10FFFF.
var rawInvalid = []string{"\x80", "\xc3", "\xed\xa0\x80", "\xf4\x90\x80\x80", "é\xff"}

// str returns a JSON string holding s, now and then with one of
// rawEscapes or (rarely, as only SetField can bring it) of rawInvalid
// added before the closing quote, or written with s's bytes as they are.
func (g *gen) str(s string) string {
	b, _ := json.Marshal(s)
	switch g.pick(32) {
	case 1, 2, 3, 4, 5, 6:
		return string(b[:len(b)-1]) + rawEscapes[g.pick(len(rawEscapes))] + `"`
	case 7:
		return string(b[:len(b)-1]) + rawInvalid[g.pick(len(rawInvalid))] + `"`
	case 8:
		return rawString(s)
	}
	return string(b)
}

// rawString returns a JSON string holding s's bytes as they are, invalid
// UTF-8 included: only quotes, backslashes and control characters are
// escaped.
func rawString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\':
			b.WriteString(`\` + string(c))
		case c < 0x20:
			fmt.Fprintf(&b, `\u%04x`, c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// ws returns white space to put around a member or element, usually none.
func (g *gen) ws() string {
	return []string{"", "", "", " ", "\n\t", " \r\n "}[g.pick(6)]
}

// anyValue returns a JSON value of a type the fuzzer chooses. (Values
// nested as deep as encoding/json accepts are too slow for fuzzing:
// TestConversationFastPath and TestValidateDepth try them.)
func (g *gen) anyValue(s string) string {
	switch g.pick(24) {
	case 1:
		return "5"
	case 2:
		return "null"
	case 3:
		return "false"
	case 4:
		return `{"x":[1,{"y":"]"}]}`
	case 5:
		return `["a",{}]`
	case 6:
		return "-1.5E+3"
	case 7:
		return "true"
	case 8:
		return `{ "a" : [ 1 , true , null ] ,"b":"\u00e9\ud800" , "a" : {} }`
	case 9:
		return "[]"
	case 10:
		return "{}"
	case 11:
		return `""`
	case 12:
		return "0.0e-0"
	}
	return g.str(s)
}

// typed returns a value of the type decoding wants (a string, or a
// boolean when want is "bool"), or null, and now and then one of any type.
func (g *gen) typed(want, s string) string {
	switch {
	case g.pick(12) == 11:
		return g.anyValue(s)
	case g.pick(10) == 9:
		return "null"
	case want == "bool":
		return []string{"true", "false"}[g.pick(2)]
	}
	return g.str(s)
}

// member appends `"key":val` to parts unless the fuzzer leaves it out, and
// now and then the key again with a value of another type.
func (g *gen) member(parts []string, key, val string) []string {
	k, _ := json.Marshal(key)
	return g.rawMember(parts, string(k), val)
}

// rawMember is member with key already a JSON string, white space of the
// fuzzer's choice around the key and the value; the repeat comes after the
// member or, now and then, before it.
func (g *gen) rawMember(parts []string, key, val string) []string {
	if g.pick(4) == 3 {
		return parts
	}
	member := g.ws() + key + g.ws() + ":" + g.ws() + val + g.ws()
	switch g.pick(12) {
	case 10:
		return append(parts, key+":"+g.anyValue("before"), member)
	case 11:
		return append(parts, member, key+":"+g.anyValue("again"))
	}
	return append(parts, member)
}

// extraKeys are keys, as JSON strings, of members decoding keeps in Extra,
// or spelled to catch a reader out: known keys escaped (the same keys) or
// in another case (other keys), escapes of NUL and of surrogates, the
// empty key.
var extraKeys = []string{`"extra"`, `"citations"`, `"Type"`, `"TEXT"`, `"c\u006fntent"`, `"t\u0065xt"`, `"\u0000"`,
	`"\ud800"`, `"k\udc00\ud83d\ude00"`, `""`, `"é"`, `"cache_control"`, `"Role"`}

// extraKey returns a key from extraKeys or, rarely, one that is not UTF-8.
func (g *gen) extraKey() string {
	if g.pick(32) == 31 {
		return "\"k\xff\""
	}
	return extraKeys[g.pick(len(extraKeys))]
}

// extras appends a fuzzer-chosen number of members with keys from
// extraKey and values of any type.
func (g *gen) extras(parts []string) []string {
	for range g.pick(4) {
		parts = g.rawMember(parts, g.extraKey(), g.anyValue("extra"))
	}
	return parts
}

// jsonObject joins members into a JSON object.
func jsonObject(parts []string) string { return "{" + strings.Join(parts, ",") + "}" }

// jsonArray joins elements into a JSON array, with white space of the
// fuzzer's choice before each.
func (g *gen) jsonArray(items []string) string {
	for i := range items {
		items[i] = g.ws() + items[i]
	}
	return "[" + strings.Join(items, ",") + "]"
}

// blockTypes are the block types the generator uses, one unknown.
var blockTypes = []string{"text", "text", "image", "tool_use", "tool_result", "tool_result", "thinking", "redacted_thinking", "document"}

// block returns a content block, its members of fuzzer-chosen presence and
// types; depth limits tool_result content nesting.
func (g *gen) block(depth int) string {
	if g.pick(16) == 15 {
		return g.anyValue("not a block")
	}
	var b []string
	b = g.member(b, "type", g.typed("string", blockTypes[g.pick(len(blockTypes))]))
	b = g.member(b, "text", g.typed("string", g.text))
	for _, k := range []string{"id", "name", "tool_use_id", "thinking", "signature", "data"} {
		if g.pick(3) == 0 {
			b = g.member(b, k, g.typed("string", k+" "+g.text))
		}
	}
	if g.pick(3) == 0 {
		b = g.member(b, "source", g.source())
	}
	if g.pick(3) == 0 {
		b = g.member(b, "is_error", g.typed("bool", ""))
	}
	if g.pick(3) == 0 {
		b = g.member(b, "input", g.anyValue("input"))
	}
	if g.pick(4) == 0 {
		b = g.member(b, "cache_control", g.anyValue("ephemeral"))
	}
	b = g.extras(b)
	if depth < 2 && g.pick(2) == 0 {
		b = g.member(b, "content", g.content(depth+1))
	}
	return jsonObject(b)
}

// source returns an image source: mostly an object whose members match
// ImageSource's fields exactly, in another case or not at all, each
// field's often repeated with strings, nulls (which struct decoding skips)
// or values of other types.
func (g *gen) source() string {
	if g.pick(10) == 9 {
		return g.anyValue("source")
	}
	var s []string
	for _, f := range sourceFields {
		for range g.pick(4) {
			k := f
			switch g.pick(6) {
			case 4:
				k = strings.ToUpper(k)
			case 5:
				k = strings.ReplaceAll(strings.ReplaceAll(k, "i", "ı"), "t", "T") // dotless i does not fold to i
			}
			val := []string{g.str(f), "null", "null", g.anyValue(f)}[g.pick(4)]
			s = append(s, fmt.Sprintf("%q:%s", k, val))
		}
	}
	return jsonObject(s)
}

// content returns message, system or tool result content.
func (g *gen) content(depth int) string {
	switch g.pick(6) {
	case 1:
		return g.anyValue(g.text)
	case 2:
		return g.str(g.text)
	}
	var blocks []string
	for range g.pick(4) {
		blocks = append(blocks, g.block(depth))
	}
	return g.jsonArray(blocks)
}

// message returns a message whose role is usually a string.
func (g *gen) message() string {
	if g.pick(24) == 23 {
		return g.anyValue("not a message")
	}
	var m []string
	roleKey := []string{"role", "role", "role", "Role", "ROLE"}[g.pick(5)]
	if g.pick(12) != 11 {
		m = append(m, fmt.Sprintf("%q:%s", roleKey, g.typed("string", []string{"user", "assistant", "user"}[g.pick(3)])))
	}
	if g.pick(3) != 2 {
		m = g.member(m, "content", g.content(0))
	}
	if g.pick(4) == 3 {
		m = g.extras(m)
	}
	if g.pick(8) == 7 {
		m = g.member(m, "role", g.typed("string", "assistant"))
	}
	return jsonObject(m)
}

// request returns a request body with fuzzer-chosen system and messages.
func (g *gen) request() []byte {
	parts := []string{`"model":"m"`, `"max_tokens":16`}
	parts = g.member(parts, "system", g.content(0))
	msgs := g.anyValue("messages")
	if g.pick(16) != 15 {
		var items []string
		for range 1 + g.pick(4) {
			items = append(items, g.message())
		}
		msgs = g.jsonArray(items)
	}
	parts = g.member(parts, "messages", msgs)
	return []byte(jsonObject(parts))
}

// decodedConversation is Conversation as the proxy computed it before the
// fast path: System and Messages decoded, Join("\n"), and hasUserContent.
func decodedConversation(r *MessagesRequest) (Conversation, error) {
	sys, err := decodeSystem(r.obj.Get("system"))
	if err != nil {
		return Conversation{}, err
	}
	msgs, err := r.decodeMessages()
	if err != nil {
		return Conversation{}, err
	}
	c := Conversation{System: sys.Join("\n"), Messages: make([]RoleText, len(msgs))}
	for i, m := range msgs {
		c.Messages[i] = RoleText{Role: m.Role, Text: m.Content.Join("\n"), ToolResultsOnly: !hasUserContent(m.Content)}
	}
	return c, nil
}

// hasUserContent is the proxy's former test for a user message that is
// not only tool results, kept as the reference for ToolResultsOnly.
func hasUserContent(c Content) bool {
	if c.Kind != ContentBlocks {
		return true
	}
	for _, b := range c.Blocks {
		if b.Type != "tool_result" {
			return true
		}
	}
	return false
}

// sameError reports whether a and b are both nil or equal errors.
func sameError(a, b error) bool {
	var ra, rb *RequestError
	if errors.As(a, &ra) && errors.As(b, &rb) {
		return *ra == *rb
	}
	return a == nil && b == nil
}

// fastConversation is Conversation read with gjson alone: it reports false
// when System or Messages would decode.
func fastConversation(r *MessagesRequest) (Conversation, bool) {
	sys, ok := readSystem(r.obj.Get("system"))
	if !ok {
		return Conversation{}, false
	}
	msgs, ok := r.readMessages()
	if !ok {
		return Conversation{}, false
	}
	return conversationOf(sys, msgs), true
}

// parseGenerated parses a generated body as the proxy meets it: with
// ParseMessagesRequest, or, for a body that is not valid UTF-8 (which
// ParseMessagesRequest refuses), by setting its members with SetField on a
// parsed request, when the body with its invalid bytes replaced parses (so
// that only the bytes of strings and keys differ from a body that passes
// validate).
func parseGenerated(body []byte) (*MessagesRequest, bool) {
	if utf8.Valid(body) {
		r, err := ParseMessagesRequest(body)
		return r, err == nil
	}
	if _, err := ParseMessagesRequest([]byte(strings.ToValidUTF8(string(body), "\uFFFD"))); err != nil {
		return nil, false
	}
	obj, err := parseObject(body)
	if err != nil {
		return nil, false
	}
	r, err := ParseMessagesRequest([]byte(`{"messages":[]}`))
	if err != nil {
		panic(err)
	}
	for _, f := range obj.Fields {
		r.SetField(f.Key, f.Val)
	}
	return r, true
}

// readable reports whether the fast path may read the request's members:
// "system" and "messages" are valid UTF-8.
func readable(r *MessagesRequest) bool {
	return utf8.Valid(r.obj.Get("system")) && utf8.Valid(r.obj.Get("messages"))
}

// checkConversation holds fastConversation and Conversation on body to
// decodedConversation. It reports whether body parses and whether the fast
// path read it.
func checkConversation(t *testing.T, body []byte) (parsed, fast bool) {
	t.Helper()
	r, ok := parseGenerated(body)
	if !ok {
		return false, false
	}
	want, wantErr := decodedConversation(r)
	got, ok := fastConversation(r)
	if ok != (wantErr == nil && readable(r)) {
		t.Fatalf("fast path ok = %v, decoding error = %v\n%s", ok, wantErr, body)
	}
	if diff := cmp.Diff(want, got); ok && diff != "" {
		t.Fatalf("fastConversation (-decoded +fast):\n%s\n%s", diff, body)
	}
	checkAnswer(t, r, body)
	return true, ok
}

// checkAnswer holds Conversation on r to decodedConversation.
func checkAnswer(t *testing.T, r *MessagesRequest, body []byte) {
	t.Helper()
	want, wantErr := decodedConversation(r)
	got, err := r.Conversation()
	if !sameError(err, wantErr) {
		t.Fatalf("Conversation error %v, decoding error %v\n%s", err, wantErr, body)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("Conversation (-decoded +got):\n%s\n%s", diff, body)
	}
}

// addGenSeeds adds seeds for the generator.
func addGenSeeds(f *testing.F) {
	for i, s := range []string{"", "\x01\x02\x03\x04", "\xff\xfe\xfd\xfc\xfb\xfa\xf9", "abcdefghijklmnopqrstuvwxyz0123456789"} {
		f.Add([]byte(s), []string{"text \u00e9 \\ \" \n\u2028 <&>", "", "a\xffb\xc3", "\x00\xed\xa0\x80\U0001F600"}[i])
	}
}

// FuzzConversationAgrees holds the fast conversation reader to decoding:
// over requests whose system, messages and blocks have members of
// fuzzer-chosen presence, types and repeats, it must accept exactly what
// System and Messages decode (when valid UTF-8) and read the same texts,
// roles and tool result flags; Conversation must give decoding's errors.
func FuzzConversationAgrees(f *testing.F) {
	addGenSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte, text string) {
		checkConversation(t, newGen(data, text).request())
	})
}

// TestConversationFastPath shows the fast path reads an ordinary Claude
// Code request (so the fuzz test above is not vacuous) and that requests
// decoding rejects or reads in an unusual way get decoding's answer.
func TestConversationFastPath(t *testing.T) {
	claudeCode := `{"model":"claude-sonnet-4-5","max_tokens":32000,"stream":true,` +
		`"system":[{"type":"text","text":"You are Claude Code.","cache_control":{"type":"ephemeral"}},{"type":"text","text":"Follow the repository's conventions.\n"}],` +
		`"tools":[{"name":"Read","description":"Reads a file","input_schema":{"type":"object","properties":{"path":{"type":"string"}}}}],` +
		`"metadata":{"user_id":"u"},"messages":[` +
		`{"role":"user","content":[{"type":"text","text":"<system-reminder>ctx</system-reminder>"},{"type":"text","text":"Fix the \"bug\"\n","cache_control":{"type":"ephemeral"}}]},` +
		`{"role":"assistant","content":[{"type":"thinking","thinking":"Let me look.","signature":"sig=="},{"type":"text","text":"Reading."},` +
		`{"type":"tool_use","id":"toolu_01","name":"Read","input":{"path":"a.go"}}]},` +
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_01","content":"package a\n"},` +
		`{"type":"tool_result","tool_use_id":"toolu_02","is_error":true,"content":[{"type":"text","text":"no such file"},` +
		`{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBOR"}}]}]},` +
		`{"role":"assistant","content":"Done."},{"role":"user","content":[{"type":"image","source":{"type":"url","url":"https://x/y.png"}},{"type":"text","text":"and this?"}]}]}`
	if _, fast := checkConversation(t, []byte(claudeCode)); !fast {
		t.Fatal("the fast path refused an ordinary Claude Code request")
	}
	deep := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	for _, tt := range []struct {
		body string
		fast bool
	}{
		{`{"system":"s","messages":[{"role":"user","content":"a","content":[{"type":"tool_result"}]}]}`, true},
		{`{"messages":[{"role":"user","content":[{"type":"text","text":5,"text":"last wins"}]}]}`, true},
		{`{"messages":[{"role":"user","content":[{"type":"text","text":"x","text":5}]}]}`, false},
		{`{"messages":[{"role":"user","content":[{"type":"image","source":{"type":"base64","TYPE":5}}]}]}`, false},
		{`{"messages":[{"role":"user","content":[{"type":"image","source":{"fıle_id":5}}]}]}`, true},
		{`{"messages":[{"role":"user","content":[{"type":"image","source":"u"}]}]}`, false},
		{`{"messages":[{"role":"user","content":[{"type":"tool_result","content":{"type":"text"}}]}]}`, false},
		{`{"messages":[{"role":"user","content":[{"type":"tool_result","content":[null]}]}]}`, false},
		{`{"messages":[{"role":"user","content":[{"type":"tool_result","is_error":"yes"}]}]}`, false},
		{`{"messages":[{"role":null,"Role":"user","content":[]}]}`, true},
		{`{"messages":[{"r\u006fle":"user","content":[{"t\u0079pe":"text","text":"escaped keys"}]}]}`, true},
		{`{"messages":[{"role":"user","content":5}]}`, false},
		{`{"system":[5],"messages":[{"role":"user","content":5}]}`, false},
		{`{"system":[{"type":"text","input":` + deep(rawjson.MaxDepth-2) + `}],"messages":[]}`, true},
		{`{"system":[{"type":"text","input":` + deep(rawjson.MaxDepth-1) + `}],"messages":[]}`, false},
		{`{"system":[{"type":"text","input":"` + deep(rawjson.MaxDepth) + `"}],"messages":[]}`, true},
		{`{"messages":[{"role":"user","content":[{"type":"text","input":` + deep(rawjson.MaxDepth-4) + `}]}]}`, true},
	} {
		if parsed, fast := checkConversation(t, []byte(tt.body)); !parsed || fast != tt.fast {
			t.Errorf("parsed %v, fast path %v, want true, %v: %.200s", parsed, fast, tt.fast, tt.body)
		}
	}
}

// TestConversationAfterChange shows Conversation reads the messages as
// they are, not as validate split them, once the member has changed.
func TestConversationAfterChange(t *testing.T) {
	r := mustParse(t, `{"system":"s","messages":[{"role":"user","content":"old"}]}`)
	for _, tt := range []struct {
		messages string // "" deletes the member
		fast     bool
	}{
		{`[{"role":"assistant","content":[{"type":"text","text":"new"}]}]`, true},
		{`[{"content":"no role"}]`, false}, // decodes, but the split refuses it as validate does
		{`[{"role":"user","content":5}]`, false},
		{"", true},
	} {
		if tt.messages == "" {
			r.DeleteField("messages")
		} else {
			r.SetField("messages", json.RawMessage(tt.messages))
		}
		checkAnswer(t, r, []byte(tt.messages))
		if _, fast := fastConversation(r); fast != tt.fast {
			t.Errorf("messages %s: fast path %v, want %v", tt.messages, fast, tt.fast)
		}
	}
}

// TestFoldEqual holds foldEqual to encoding/json's matching of keys to a
// field, including runes whose case folding reaches ASCII letters.
func TestFoldEqual(t *testing.T) {
	var v struct {
		F string `json:"sk_id"`
	}
	for _, key := range []string{"sk_id", "SK_ID", "Sk_Id", "\u017fk_id", "s\u212a_id", "sk_ıd", "sk_İd", "sk_idx", "sk_i", "ßk_id", ""} {
		v.F = ""
		err := json.Unmarshal([]byte(fmt.Sprintf(`{%q:"x"}`, key)), &v)
		if matched := err == nil && v.F == "x"; matched != foldEqual(key, "sk_id") {
			t.Errorf("key %q: decoder matched %v, foldEqual says %v", key, matched, !matched)
		}
	}
}

// TestSourceFieldsMatchImageSource keeps sourceFields in step with
// ImageSource's JSON names.
func TestSourceFieldsMatchImageSource(t *testing.T) {
	b, _ := json.Marshal(ImageSource{Type: "a", MediaType: "b", Data: "c", URL: "d", FileID: "e"})
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil || len(m) != len(sourceFields) {
		t.Fatalf("ImageSource has members %v, sourceFields %v", m, sourceFields)
	}
	for _, f := range sourceFields {
		if _, ok := m[f]; !ok {
			t.Errorf("ImageSource has no member %q", f)
		}
	}
}

// validateByDecoding is validate as it was before the fast path, with
// encoding/json: the reference for FuzzValidateAgrees.
func validateByDecoding(r *MessagesRequest) error {
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
		b, err := marshalJSON(Block{Type: "text", Text: text})
		if err != nil {
			return fmt.Errorf("inject system: %w", err)
		}
		r.obj.Set("system", rawArray(append(blocks, b)))
		return nil
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
		var va, vb any
		if err := json.Unmarshal(a, &va); err != nil {
			t.Fatalf("spliced request is not JSON: %v\n%s", err, a)
		}
		if err := json.Unmarshal(b, &vb); err != nil {
			t.Fatalf("decoded request is not JSON: %v\n%s", err, b)
		}
		if diff := cmp.Diff(vb, va); diff != "" {
			t.Fatalf("(-decoded +spliced):\n%s\nbody %s", diff, body)
		}
		if _, err := ParseMessagesRequest(a); err != nil {
			t.Fatalf("spliced request does not parse: %v\n%s", err, a)
		}
	})
}
