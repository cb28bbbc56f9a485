package anthropic

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"slices"
	"strings"
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
