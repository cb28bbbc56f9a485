package openai

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/metaclaw/metaclaw/proxy/internal/rawjson"
	"github.com/tidwall/gjson"
)

// StreamChunk is one chunk of a Chat Completions stream as the proxy reads
// it: the members the accumulator and the Anthropic stream translator use.
type StreamChunk struct {
	ID                string          `json:"id"`
	Created           int64           `json:"created"`
	Model             string          `json:"model"`
	SystemFingerprint string          `json:"system_fingerprint"`
	Choices           []ChunkChoice   `json:"choices"`
	Usage             *Usage          `json:"usage"`
	Error             json.RawMessage `json:"error"`
}

// ParseStreamChunk reads one trimmed "data:" payload other than [DONE]
// into a StreamChunk, as decoding it would (null members leave fields
// unset, the last of repeated keys counts), with gjson: it runs on every
// event of a stream the proxy relays. Nothing in the result aliases data.
func ParseStreamChunk(data []byte) (StreamChunk, error) {
	var c StreamChunk
	if !json.Valid(data) {
		return c, fmt.Errorf("decode chunk: %w", json.Unmarshal(data, &c))
	}
	v := gjson.Parse(string(data)) // a copy: callers keep strings after reusing data
	if v.Type == gjson.Null {
		return c, nil
	}
	err := eachMember(v, func(k string, m gjson.Result) (err error) {
		switch k {
		case "id":
			c.ID, err = text(k, m)
		case "created":
			c.Created, err = integer(k, m, 64)
		case "model":
			c.Model, err = text(k, m)
		case "system_fingerprint":
			c.SystemFingerprint, err = text(k, m)
		case "choices":
			c.Choices, err = readList(k, m, readChoice)
		case "usage":
			c.Usage = nil
			if m.Type != gjson.Null {
				c.Usage = new(Usage)
				err = json.Unmarshal([]byte(m.Raw), c.Usage)
			}
		case "error":
			c.Error = json.RawMessage(m.Raw)
		}
		return err
	})
	if err != nil {
		return StreamChunk{}, fmt.Errorf("decode chunk: %w", err)
	}
	return c, nil
}

// eachMember calls fn with each member of obj, stopping at its first
// error; obj must be an object.
func eachMember(obj gjson.Result, fn func(key string, v gjson.Result) error) error {
	if !obj.IsObject() {
		return errors.New("must be an object")
	}
	var err error
	obj.ForEach(func(k, v gjson.Result) bool {
		err = fn(k.Str, v)
		return err == nil
	})
	return err
}

// readList reads an array member into a slice with read: null gives nil,
// an array (even empty) a non-nil slice, a null element the zero T.
func readList[T any](name string, v gjson.Result, read func(gjson.Result, *T) error) ([]T, error) {
	switch {
	case v.Type == gjson.Null:
		return nil, nil
	case !v.IsArray():
		return nil, fmt.Errorf("%s: must be an array", name)
	}
	out := []T{}
	var err error
	v.ForEach(func(i, e gjson.Result) bool {
		var x T
		if e.Type != gjson.Null {
			if err = read(e, &x); err != nil {
				err = fmt.Errorf("%s.%d: %w", name, i.Int(), err)
			}
		}
		out = append(out, x)
		return err == nil
	})
	return out, err
}

func readChoice(e gjson.Result, ch *ChunkChoice) error {
	return eachMember(e, func(k string, v gjson.Result) (err error) {
		switch k {
		case "index":
			var n int64
			n, err = integer(k, v, strconv.IntSize)
			ch.Index = int(n)
		case "delta":
			if v.Type != gjson.Null {
				err = readDelta(v, &ch.Delta)
			}
		case "finish_reason":
			ch.FinishReason, err = textPtr(k, v)
		case "stop_reason":
			ch.StopReason = json.RawMessage(v.Raw)
		}
		return err
	})
}

func readDelta(d gjson.Result, dst *Delta) error {
	return eachMember(d, func(k string, v gjson.Result) (err error) {
		switch k {
		case "role":
			dst.Role, err = text(k, v)
		case "content":
			dst.Content, err = textPtr(k, v)
		case "refusal":
			dst.Refusal, err = textPtr(k, v)
		case "reasoning_content":
			dst.ReasoningContent, err = textPtr(k, v)
		case "reasoning":
			dst.Reasoning, err = textPtr(k, v)
		case "tool_calls":
			dst.ToolCalls, err = readList(k, v, readToolCall)
		}
		return err
	})
}

func readToolCall(e gjson.Result, td *ToolCallDelta) error {
	return eachMember(e, func(k string, v gjson.Result) (err error) {
		switch k {
		case "index":
			var n int64
			n, err = integer(k, v, strconv.IntSize)
			td.Index = int(n)
		case "id":
			td.ID, err = text(k, v)
		case "type":
			td.Type, err = text(k, v)
		case "function":
			td.Function = nil
			if v.Type != gjson.Null {
				td.Function = &FunctionCallDelta{}
				err = readFunction(v, td.Function)
			}
		}
		return err
	})
}

func readFunction(v gjson.Result, f *FunctionCallDelta) error {
	return eachMember(v, func(k string, v gjson.Result) (err error) {
		switch k {
		case "name":
			f.Name, err = text(k, v)
		case "arguments":
			f.Arguments, err = text(k, v)
		}
		return err
	})
}

// text reads a string member; null reads as "".
func text(name string, v gjson.Result) (string, error) {
	if !rawjson.IsText(v) {
		return "", fmt.Errorf("%s: must be a string", name)
	}
	return v.Str, nil
}

// textPtr reads a *string member: null reads as nil.
func textPtr(name string, v gjson.Result) (*string, error) {
	if v.Type == gjson.Null {
		return nil, nil
	}
	s, err := text(name, v)
	return &s, err
}

// integer reads an integer member of the given bit size; null reads as 0.
func integer(name string, v gjson.Result, bits int) (int64, error) {
	if v.Type == gjson.Null {
		return 0, nil
	}
	n, err := strconv.ParseInt(v.Raw, 10, bits)
	if v.Type != gjson.Number || err != nil {
		return 0, fmt.Errorf("%s: must be an integer", name)
	}
	return n, nil
}
