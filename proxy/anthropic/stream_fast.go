package anthropic

import (
	"encoding/json"
	"strconv"
	"unicode/utf8"

	"github.com/metaclaw/metaclaw/proxy/internal/rawjson"
	"github.com/metaclaw/metaclaw/proxy/openai"
	"github.com/tidwall/gjson"
)

// readChunk is Chunk's gjson path for a trimmed payload other than [DONE]:
// decoding each chunk into streamChunk with encoding/json was most of the
// time spent translating a stream. It reports false, leaving the payload
// to decoding, unless decoding would give the same streamChunk: the
// payload must be a valid UTF-8 JSON object nested no deeper than
// decoding allows, every member the translator reads must have a type
// decoding accepts, none may be repeated or spelt in another case (which
// decoding would merge or match), and "usage" and "error" must be absent
// or null (they come once a stream, and are decoded).
func readChunk(data []byte) (streamChunk, bool) {
	var c streamChunk
	if len(data) == 0 || data[0] != '{' || !utf8.Valid(data) || !gjson.ValidBytes(data) || !rawjson.WithinDepth(data) {
		return c, false
	}
	// A copy: the translator keeps some strings (tool names, the finish
	// reason) after the caller reuses its buffer.
	ok := rawjson.Members(gjson.Parse(string(data)), chunkKeys, func(i int, v gjson.Result) bool {
		switch i {
		case 0:
			c.ID = v.Str
			return rawjson.IsText(v)
		case 1:
			c.Model = v.Str
			return rawjson.IsText(v)
		case 2:
			return readChoices(v, &c.Choices)
		case 3: // usage: decoded
			return v.Type == gjson.Null
		default: // error: decoded, but a null one is kept raw, as decoding keeps it
			c.Error = json.RawMessage(v.Raw)
			return v.Type == gjson.Null
		}
	})
	return c, ok
}

// The members readChunk reads, at each level, in the order of the indexes
// its callbacks switch on.
var (
	chunkKeys  = []string{"id", "model", "choices", "usage", "error"}
	choiceKeys = []string{"index", "delta", "finish_reason", "stop_reason"}
	deltaKeys  = []string{"role", "content", "refusal", "reasoning_content", "reasoning", "tool_calls"}
	toolKeys   = []string{"index", "id", "type", "function"}
	funcKeys   = []string{"name", "arguments"}
)

// readChoices reads "choices": null, or an array of choices, each null or
// an object.
func readChoices(v gjson.Result, dst *[]openai.ChunkChoice) bool {
	if v.Type == gjson.Null {
		return true
	}
	if !v.IsArray() {
		return false
	}
	out := []openai.ChunkChoice{}
	ok := true
	v.ForEach(func(_, e gjson.Result) bool {
		var ch openai.ChunkChoice
		ok = e.Type == gjson.Null || readChoice(e, &ch)
		out = append(out, ch)
		return ok
	})
	*dst = out
	return ok
}

func readChoice(e gjson.Result, ch *openai.ChunkChoice) bool {
	return rawjson.Members(e, choiceKeys, func(i int, v gjson.Result) bool {
		switch i {
		case 0:
			n, ok := rawjson.Int(v, strconv.IntSize)
			ch.Index = int(n)
			return ok
		case 1:
			return v.Type == gjson.Null || readDelta(v, &ch.Delta)
		case 2:
			return readStringPtr(v, &ch.FinishReason)
		default:
			ch.StopReason = json.RawMessage(v.Raw)
			return true
		}
	})
}

func readDelta(d gjson.Result, dst *openai.Delta) bool {
	return rawjson.Members(d, deltaKeys, func(i int, v gjson.Result) bool {
		switch i {
		case 0:
			dst.Role = v.Str
			return rawjson.IsText(v)
		case 1:
			return readStringPtr(v, &dst.Content)
		case 2:
			return readStringPtr(v, &dst.Refusal)
		case 3:
			return readStringPtr(v, &dst.ReasoningContent)
		case 4:
			return readStringPtr(v, &dst.Reasoning)
		default:
			return readToolCalls(v, &dst.ToolCalls)
		}
	})
}

// readStringPtr reads a *string member: null leaves it nil.
func readStringPtr(v gjson.Result, dst **string) bool {
	switch v.Type {
	case gjson.Null:
		*dst = nil
		return true
	case gjson.String:
		s := v.Str
		*dst = &s
		return true
	}
	return false
}

func readToolCalls(v gjson.Result, dst *[]openai.ToolCallDelta) bool {
	if v.Type == gjson.Null {
		*dst = nil
		return true
	}
	if !v.IsArray() {
		return false
	}
	out := []openai.ToolCallDelta{}
	ok := true
	v.ForEach(func(_, e gjson.Result) bool {
		var td openai.ToolCallDelta
		ok = e.Type == gjson.Null || readToolCall(e, &td)
		out = append(out, td)
		return ok
	})
	*dst = out
	return ok
}

func readToolCall(e gjson.Result, td *openai.ToolCallDelta) bool {
	return rawjson.Members(e, toolKeys, func(i int, v gjson.Result) bool {
		switch i {
		case 0:
			n, ok := rawjson.Int(v, strconv.IntSize)
			td.Index = int(n)
			return ok
		case 1:
			td.ID = v.Str
			return rawjson.IsText(v)
		case 2:
			td.Type = v.Str
			return rawjson.IsText(v)
		default:
			if v.Type == gjson.Null {
				td.Function = nil
				return true
			}
			var f openai.FunctionCallDelta
			td.Function = &f
			return rawjson.Members(v, funcKeys, func(i int, v gjson.Result) bool {
				if i == 0 {
					f.Name = v.Str
				} else {
					f.Arguments = v.Str
				}
				return rawjson.IsText(v)
			})
		}
	})
}
