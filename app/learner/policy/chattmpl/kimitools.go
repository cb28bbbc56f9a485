package chattmpl

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/nikolalohinski/gonja/v2/exec"
)

// Kimi K2.5's tokenizer (TikTokenTokenizer in the model repo's
// tokenization_kimi.py) overrides apply_chat_template: it sorts the keys
// of the tools recursively (deep_sort_dict), converts them to a
// TypeScript-style declaration with encode_tools_to_typescript_style from
// the repo's tool_declaration_ts.py, and passes that to the template as
// tools_ts_str, which the template prints in the tool_declare turn instead
// of the tools as JSON. When the encoder raises, tools_ts_str is not set
// and the template falls back to the JSON. This file is a Go version of
// that encoder, written from the behaviour of Moonshot's Python (read in
// thinking-machines-lab/tinker-cookbook's copy,
// tinker_cookbook/renderers/kimi_k2_5_tool_declaration_ts.py, which agrees
// with the outputs lightseekorg/smg captured from the Kimi-K2.5 snapshot)
// and checked against it: testdata/golden/kimi_python.json. Every case in
// which the Python raises is an error here, so that the caller falls back
// the same way.

const tsIndent = "  "

// errTS marks a schema the encoder refuses (the Python raises).
var errTS = errors.New("kimi tool declaration")

func tsErrorf(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{errTS}, args...)...)
}

// SortKeys returns v with the keys of every dictionary sorted, recursively,
// as tokenization_kimi's deep_sort_dict does to the tools.
func SortKeys(v any) any {
	switch x := unwrap(v).(type) {
	case *exec.Dict:
		pairs := make([]*exec.Pair, len(x.Pairs))
		for i, p := range x.Pairs {
			pairs[i] = &exec.Pair{Key: p.Key, Value: exec.AsValue(SortKeys(p.Value))}
		}
		sort.SliceStable(pairs, func(i, j int) bool { return pairs[i].Key.String() < pairs[j].Key.String() })
		return &exec.Dict{Pairs: pairs}
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = SortKeys(e)
		}
		return out
	default:
		return x
	}
}

// KimiToolsTS is encode_tools_to_typescript_style: the "# Tools" block of
// the function tools in tools (already key-sorted), "" when there is none.
func KimiToolsTS(tools any) (string, error) {
	list, ok := unwrap(tools).([]any)
	if !ok {
		return "", tsErrorf("tools are not a list")
	}
	var fns []string
	for _, t := range list {
		tool, ok := unwrap(t).(*exec.Dict)
		if !ok {
			return "", tsErrorf("a tool is not an object")
		}
		if typ, _ := get(tool, "type"); typ != "function" {
			continue // "_plugin" and other kinds are skipped
		}
		fn, _ := get(tool, "function")
		if !truthy(fn) {
			continue
		}
		d, ok := fn.(*exec.Dict)
		if !ok {
			return "", tsErrorf("a tool's function is not an object")
		}
		s, err := tsFunction(d)
		if err != nil {
			return "", err
		}
		fns = append(fns, s)
	}
	if len(fns) == 0 {
		return "", nil
	}
	return "# Tools\n\n## functions\nnamespace functions {\n" + strings.Join(fns, "\n") + "\n}\n", nil
}

// tsFunction declares one function: the interfaces of its $defs (and of
// the parameters themselves when they refer to themselves with "#"), its
// description and "type NAME = (_: PARAMS) => any;".
func tsFunction(fn *exec.Dict) (string, error) {
	reg := &tsRegistry{defs: map[string]any{}}
	params, _ := get(fn, "parameters")
	if !truthy(params) {
		params = exec.NewDict()
	}
	root, err := newTSObject(params, reg)
	if err != nil {
		return "", err
	}
	var interfaces []string
	rootName := ""
	if reg.selfRef {
		rootName = "parameters"
		fields := make([]string, len(root.props))
		for i, p := range root.props {
			if fields[i], err = p.ts(tsIndent); err != nil {
				return "", err
			}
		}
		body := strings.Join(fields, ",\n")
		if body != "" {
			body = "\n" + body + "\n"
		}
		interfaces = append(interfaces, "interface parameters {"+body+"}")
	}
	for _, name := range append([]string(nil), reg.order...) {
		s, err := tsInterface(name, reg.defs[name], reg)
		if err != nil {
			return "", err
		}
		interfaces = append(interfaces, s)
	}
	name := "function"
	if n, ok := get(fn, "name"); ok {
		name = pyStr(exec.AsValue(n))
	}
	var typeDef string
	if rootName != "" {
		typeDef = "type " + name + " = (_: " + rootName + ") => any;"
	} else {
		body, err := root.ts("")
		if err != nil {
			return "", err
		}
		typeDef = "type " + name + " = (_: " + body + ") => any;"
	}
	desc, _ := get(fn, "description")
	descText, err := tsDescription(desc, "")
	if err != nil {
		return "", err
	}
	var parts []string
	for _, p := range []string{strings.Join(interfaces, "\n"), descText, typeDef} {
		if p != "" {
			parts = append(parts, p)
		}
	}
	return strings.Join(parts, "\n"), nil
}

// tsInterface declares one definition of $defs.
func tsInterface(name string, schema any, reg *tsRegistry) (string, error) {
	typ, err := parseTSType(schema, reg)
	if err != nil {
		return "", err
	}
	body, err := typ.ts("")
	if err != nil {
		return "", err
	}
	d, ok := unwrap(schema).(*exec.Dict)
	if !ok {
		return "", tsErrorf("definition %s is not an object", name)
	}
	desc, _ := get(d, "description")
	prefix, err := tsDescription(desc, "")
	if err != nil {
		return "", err
	}
	if prefix != "" {
		prefix += "\n"
	}
	return prefix + "interface " + name + " " + body, nil
}

// tsRegistry holds the $defs seen so far, in the order first seen.
type tsRegistry struct {
	defs    map[string]any
	order   []string
	selfRef bool // some $ref is "#"
}

func (r *tsRegistry) register(defs any) error {
	if !truthy(defs) {
		return nil
	}
	d, ok := unwrap(defs).(*exec.Dict)
	if !ok {
		return tsErrorf("$defs is not an object")
	}
	for _, p := range d.Pairs {
		name := p.Key.String()
		if _, seen := r.defs[name]; !seen {
			r.order = append(r.order, name)
		}
		r.defs[name] = p.Value
	}
	return nil
}

// unwrap returns the Go value inside a template value.
func unwrap(v any) any {
	if x, ok := v.(*exec.Value); ok {
		if x == nil {
			return nil
		}
		v = x.Interface()
	}
	if d, ok := v.(exec.Dict); ok {
		return &d
	}
	return v
}

// get returns the Go value of key in d.
func get(d *exec.Dict, key string) (any, bool) {
	v, ok := dictGet(d, key)
	if !ok {
		return nil, false
	}
	return unwrap(v), true
}

func isNoneAny(v any) bool {
	_, none := v.(*pyNone)
	return v == nil || none
}

// truthy is Python's truth value of a JSON value.
func truthy(v any) bool {
	switch x := unwrap(v).(type) {
	case nil, *pyNone:
		return false
	case bool:
		return x
	case int:
		return x != 0
	case float64:
		return x != 0
	case string:
		return x != ""
	case []any:
		return len(x) > 0
	case *exec.Dict:
		return len(x.Pairs) > 0
	}
	return true
}
