package chattmpl

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/nikolalohinski/gonja/v2/exec"
)

// pyNone is the type of None as a template value. A nil *pyNone looks
// like nil to gonja (falsy, `is none`), but unlike a missing key or
// variable it counts as defined, as in Python.
type pyNone struct{}

// noneValue is the template value of JSON null and Python's None.
var noneValue = (*pyNone)(nil)

// FromJSON decodes JSON into template values: objects become ordered
// dictionaries (*exec.Dict) that keep the key order of the text, arrays
// []any, numbers int (integers) or float64, and null a None that is falsy
// but defined. Templates see the values Python's json.loads would give.
func FromJSON(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := decodeValue(dec)
	if err != nil {
		return nil, fmt.Errorf("decode json: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("decode json: data after the value")
	}
	return v, nil
}

func decodeValue(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		if t == '{' {
			return decodeObject(dec)
		}
		return decodeArray(dec)
	case json.Number:
		return number(t), nil
	case nil:
		return noneValue, nil
	default: // string, bool
		return t, nil
	}
}

func decodeObject(dec *json.Decoder) (any, error) {
	d := exec.NewDict()
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := tok.(string)
		v, err := decodeValue(dec)
		if err != nil {
			return nil, err
		}
		setKey(d, key, v)
	}
	_, err := dec.Token() // '}'
	return d, err
}

// setKey sets key in d; a repeated key keeps its first place and takes
// the last value, as in a Python dict.
func setKey(d *exec.Dict, key string, v any) {
	for _, p := range d.Pairs {
		if p.Key.String() == key {
			p.Value = exec.AsValue(v)
			return
		}
	}
	d.Pairs = append(d.Pairs, &exec.Pair{Key: exec.AsValue(key), Value: exec.AsValue(v)})
}

func decodeArray(dec *json.Decoder) (any, error) {
	list := []any{}
	for dec.More() {
		v, err := decodeValue(dec)
		if err != nil {
			return nil, err
		}
		list = append(list, v)
	}
	_, err := dec.Token() // ']'
	return list, err
}

// number converts a JSON number as Python does: an integer unless it has
// a fraction or an exponent. Integers beyond int64 become float64.
func number(n json.Number) any {
	s := string(n)
	if !strings.ContainsAny(s, ".eE") {
		if i, err := strconv.ParseInt(s, 10, 64); err == nil {
			return int(i)
		}
	}
	f, _ := strconv.ParseFloat(s, 64)
	return f
}

// dictGet returns the value of key in d.
func dictGet(d *exec.Dict, key string) (*exec.Value, bool) {
	for _, p := range d.Pairs {
		if p.Key.IsString() && p.Key.String() == key {
			return p.Value, true
		}
	}
	return nil, false
}

// asDict returns the ordered dictionary behind v, if it is one.
func asDict(v any) (*exec.Dict, bool) {
	switch d := v.(type) {
	case *exec.Dict:
		return d, true
	case exec.Dict:
		return &d, true
	case *exec.Value:
		return asDict(d.Interface())
	}
	return nil, false
}
