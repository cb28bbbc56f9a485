package chattmpl

import (
	"sort"
	"strings"

	"github.com/nikolalohinski/gonja/v2/exec"
)

// The schema kinds of Moonshot's tool_declaration_ts.py, each parsed from
// JSON schema and written as TypeScript (see kimitools.go).

// tsType is a parsed schema.
type tsType interface {
	// ts writes the type, nested lines indented by indent.
	ts(indent string) (string, error)
	// doc writes the comment lines that go before a field of the type.
	doc(indent string) (string, error)
}

// tsBase is what every type keeps of its schema: the description and the
// constraints its kind shows (maxLength, minimum, minItems, ...).
type tsBase struct {
	desc        any
	constraints []string // "key: value", sorted by key
}

func newTSBase(schema *exec.Dict, keys ...string) tsBase {
	b := tsBase{}
	if schema == nil {
		return b
	}
	b.desc, _ = get(schema, "description")
	for _, k := range keys {
		if v, ok := get(schema, k); ok {
			b.constraints = append(b.constraints, k+": "+pyStr(exec.AsValue(v)))
		}
	}
	sort.Strings(b.constraints)
	return b
}

func (b tsBase) doc(indent string) (string, error) {
	var out strings.Builder
	desc, err := tsDescription(b.desc, indent)
	if err != nil {
		return "", err
	}
	if desc != "" {
		out.WriteString(desc + "\n")
	}
	if len(b.constraints) > 0 {
		out.WriteString(indent + "// " + strings.Join(b.constraints, ", ") + "\n")
	}
	return out.String(), nil
}

// tsDescription writes a description as comment lines; an empty line stays
// empty, without indent or "//".
func tsDescription(desc any, indent string) (string, error) {
	if !truthy(desc) {
		return "", nil
	}
	s, ok := unwrap(desc).(string)
	if !ok {
		return "", tsErrorf("description is not a string")
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = indent + "// " + l
		}
	}
	return strings.Join(lines, "\n"), nil
}

// parseTSType reads a schema: true is any, false null; then by $ref,
// anyOf, enum and type, in that order; {} is any; anything else is refused.
func parseTSType(schema any, reg *tsRegistry) (tsType, error) {
	v := unwrap(schema)
	if b, ok := v.(bool); ok {
		if b {
			return &tsScalar{typ: "any"}, nil
		}
		return &tsScalar{typ: "null"}, nil
	}
	d, ok := v.(*exec.Dict)
	if !ok {
		return nil, tsErrorf("invalid JSON schema %s", pyRepr(exec.AsValue(v)))
	}
	if ref, ok := get(d, "$ref"); ok {
		return newTSRef(d, ref, reg)
	}
	if alts, ok := get(d, "anyOf"); ok {
		return newTSAnyOf(d, alts, reg)
	}
	if _, ok := get(d, "enum"); ok {
		return newTSEnum(d)
	}
	typ, ok := get(d, "type")
	switch {
	case !ok && len(d.Pairs) == 0:
		return &tsScalar{typ: "any"}, nil
	case !ok:
		return nil, tsErrorf("invalid JSON schema %s", pyRepr(exec.AsValue(d)))
	}
	if list, isList := typ.([]any); isList {
		return newTSUnion(d, list)
	}
	switch typ {
	case "object":
		return newTSObject(d, reg)
	case "array":
		return newTSArray(d, reg)
	}
	return newTSScalar(d, typ), nil
}

// tsScalar is string, number (also for integer), boolean, null, any, or a
// type name as written.
type tsScalar struct {
	tsBase
	typ string
}

func newTSScalar(d *exec.Dict, typ any) *tsScalar {
	name := pyStr(exec.AsValue(typ))
	var keys []string
	switch typ {
	case "string":
		keys = []string{"maxLength", "minLength", "pattern"}
	case "number", "integer":
		keys = []string{"maximum", "minimum"}
	}
	return &tsScalar{tsBase: newTSBase(d, keys...), typ: name}
}

func (s *tsScalar) ts(string) (string, error) {
	if s.typ == "integer" {
		return "number", nil
	}
	return s.typ, nil
}

// tsField is a property of an object.
type tsField struct {
	name     string
	typ      tsType
	optional bool
	def      any // nil or None: no default
}

func (f tsField) ts(indent string) (string, error) {
	doc, err := f.typ.doc(indent)
	if err != nil {
		return "", err
	}
	if f.def != nil && !isNoneAny(f.def) {
		doc += indent + "// Default: " + tsDefault(f.def) + "\n"
	}
	typ, err := f.typ.ts(indent)
	if err != nil {
		return "", err
	}
	q := ""
	if f.optional {
		q = "?"
	}
	return doc + indent + f.name + q + ": " + typ, nil
}

// tsDefault is Python's repr of a number or boolean, json.dumps of
// anything else.
func tsDefault(v any) string {
	switch v.(type) {
	case int, float64, bool:
		return pyRepr(exec.AsValue(v))
	}
	s, err := pyJSON(exec.AsValue(v), newJSONOptions(nil))
	if err != nil {
		return pyRepr(exec.AsValue(v))
	}
	return s
}

// tsObject is an object type: its properties, required ones first, each
// group by name, and the [k: string] line of additionalProperties.
type tsObject struct {
	tsBase
	props    []tsField // in the schema's order
	extra    any       // additionalProperties: nil, true, false, a tsType or other (refused)
	hasExtra bool
}

func newTSObject(schema any, reg *tsRegistry) (*tsObject, error) {
	d, ok := unwrap(schema).(*exec.Dict)
	if !ok {
		return nil, tsErrorf("object schema is not an object")
	}
	o := &tsObject{tsBase: newTSBase(d)}
	if len(d.Pairs) == 0 {
		return o, nil
	}
	if defs, ok := get(d, "$defs"); ok {
		if err := reg.register(defs); err != nil {
			return nil, err
		}
	}
	if ap, ok := get(d, "additionalProperties"); ok && !isNoneAny(ap) {
		o.hasExtra, o.extra = true, ap
		if _, isDict := ap.(*exec.Dict); isDict {
			typ, err := parseTSType(ap, reg)
			if err != nil {
				return nil, err
			}
			o.extra = typ
		}
	}
	props, ok := get(d, "properties")
	if !ok {
		return o, nil
	}
	return o, o.addProps(d, props, reg)
}

func (o *tsObject) addProps(d *exec.Dict, props any, reg *tsRegistry) error {
	pd, ok := props.(*exec.Dict)
	if !ok {
		return tsErrorf("properties is not an object")
	}
	required, err := requiredNames(d)
	if err != nil {
		return err
	}
	for _, p := range pd.Pairs {
		name := p.Key.String()
		typ, err := parseTSType(p.Value, reg)
		if err != nil {
			return err
		}
		f := tsField{name: name, typ: typ, optional: !required[name]}
		if pdict, ok := unwrap(p.Value).(*exec.Dict); ok {
			f.def, _ = get(pdict, "default")
		}
		o.props = append(o.props, f)
	}
	return nil
}

// requiredNames reads required: a list of names (a string is its
// characters, as Python's set() makes of it).
func requiredNames(d *exec.Dict) (map[string]bool, error) {
	names := map[string]bool{}
	req, ok := get(d, "required")
	if !ok {
		return names, nil
	}
	switch r := req.(type) {
	case []any:
		for _, n := range r {
			names[pyStr(exec.AsValue(n))] = true
		}
	case string:
		for _, c := range r {
			names[string(c)] = true
		}
	default:
		return nil, tsErrorf("required is not a list")
	}
	return names, nil
}

func (o *tsObject) ts(indent string) (string, error) {
	var req, opt []tsField
	for _, p := range o.props {
		if p.optional {
			opt = append(opt, p)
		} else {
			req = append(req, p)
		}
	}
	byName := func(fs []tsField) {
		sort.SliceStable(fs, func(i, j int) bool { return fs[i].name < fs[j].name })
	}
	byName(req)
	byName(opt)
	var fields []string
	for _, p := range append(req, opt...) {
		s, err := p.ts(indent + tsIndent)
		if err != nil {
			return "", err
		}
		fields = append(fields, s)
	}
	if o.hasExtra {
		var ap string
		switch x := o.extra.(type) {
		case bool:
			ap = map[bool]string{true: "any", false: "never"}[x]
		case tsType:
			s, err := x.ts(indent + tsIndent)
			if err != nil {
				return "", err
			}
			ap = s
		default:
			return "", tsErrorf("unknown additionalProperties %s", pyStr(exec.AsValue(x)))
		}
		fields = append(fields, indent+tsIndent+"[k: string]: "+ap)
	}
	if len(fields) == 0 {
		return "{}", nil
	}
	return "{\n" + strings.Join(fields, ",\n") + "\n" + indent + "}", nil
}

// tsArray is Array<ITEM>; an item with comments goes on its own lines.
type tsArray struct {
	tsBase
	item tsType
}

func newTSArray(d *exec.Dict, reg *tsRegistry) (*tsArray, error) {
	a := &tsArray{tsBase: newTSBase(d, "minItems", "maxItems"), item: &tsScalar{typ: "any"}}
	if items, _ := get(d, "items"); truthy(items) {
		typ, err := parseTSType(items, reg)
		if err != nil {
			return nil, err
		}
		a.item = typ
	}
	return a, nil
}

func (a *tsArray) ts(indent string) (string, error) {
	doc, err := a.item.doc(indent + tsIndent)
	if err != nil {
		return "", err
	}
	if doc == "" {
		item, err := a.item.ts(indent)
		return "Array<" + item + ">", err
	}
	item, err := a.item.ts(indent + tsIndent)
	return "Array<\n" + doc + indent + tsIndent + item + "\n" + indent + ">", err
}

// tsEnum is a union of literals: strings quoted as they are, other values
// as Python's str() writes them.
type tsEnum struct {
	tsBase
	values []any
}

func newTSEnum(d *exec.Dict) (*tsEnum, error) {
	raw, _ := get(d, "enum")
	values, ok := raw.([]any)
	if !ok {
		return nil, tsErrorf("enum is not a list")
	}
	if typ, ok := get(d, "type"); ok {
		if err := checkEnum(typ, values); err != nil {
			return nil, err
		}
	}
	return &tsEnum{tsBase: newTSBase(d), values: values}, nil
}

// checkEnum refuses values that do not fit the declared type (one type, or
// two of which one is "null"). Booleans count as numbers, as in Python.
func checkEnum(typ any, values []any) error {
	if list, ok := typ.([]any); ok {
		switch {
		case len(list) == 1:
			typ = list[0]
		case len(list) == 2 && (list[0] == "null" || list[1] == "null"):
			typ = list[0]
			if typ == "null" {
				typ = list[1]
			}
		default:
			return tsErrorf("enum type %s is not supported", pyRepr(exec.AsValue(list)))
		}
	}
	for _, v := range values {
		if isNoneAny(v) {
			continue
		}
		_, isStr := v.(string)
		_, isInt := v.(int)
		_, isFloat := v.(float64)
		_, isBool := v.(bool)
		bad := (typ == "string" && !isStr) || (typ == "number" && !isInt && !isFloat && !isBool) ||
			(typ == "integer" && !isInt && !isBool) || (typ == "boolean" && !isBool)
		if bad {
			return tsErrorf("enum value %s is not a %s", pyStr(exec.AsValue(v)), typ)
		}
	}
	return nil
}

func (e *tsEnum) ts(string) (string, error) {
	out := make([]string, len(e.values))
	for i, v := range e.values {
		if s, ok := v.(string); ok {
			out[i] = `"` + s + `"`
		} else {
			out[i] = pyStr(exec.AsValue(v))
		}
	}
	return strings.Join(out, " | "), nil
}

// tsAnyOf is a union of schemas.
type tsAnyOf struct {
	tsBase
	types []tsType
}

func newTSAnyOf(d *exec.Dict, alts any, reg *tsRegistry) (*tsAnyOf, error) {
	list, ok := alts.([]any)
	if !ok {
		return nil, tsErrorf("anyOf is not a list")
	}
	a := &tsAnyOf{tsBase: newTSBase(d)}
	for _, s := range list {
		typ, err := parseTSType(s, reg)
		if err != nil {
			return nil, err
		}
		a.types = append(a.types, typ)
	}
	return a, nil
}

func (a *tsAnyOf) ts(indent string) (string, error) {
	out := make([]string, len(a.types))
	for i, t := range a.types {
		s, err := t.ts(indent)
		if err != nil {
			return "", err
		}
		out[i] = s
	}
	return strings.Join(out, " | "), nil
}

// tsUnion is a schema whose type is a list of type names.
type tsUnion struct {
	tsBase
	names []string
}

var tsUnionNames = map[string]string{"string": "string", "number": "number", "integer": "number",
	"boolean": "boolean", "null": "null", "object": "{}", "array": "Array<any>"}

func newTSUnion(d *exec.Dict, types []any) (*tsUnion, error) {
	u := &tsUnion{tsBase: newTSBase(d)}
	for _, t := range types {
		s, _ := t.(string)
		name, ok := tsUnionNames[s]
		if !ok {
			return nil, tsErrorf("union type %s is not supported", pyRepr(exec.AsValue(t)))
		}
		u.names = append(u.names, name)
	}
	return u, nil
}

func (u *tsUnion) ts(string) (string, error) { return strings.Join(u.names, " | "), nil }

// tsRef is a $ref: "#" (the parameters themselves) or "#/$defs/NAME", which
// must have been seen by then.
type tsRef struct {
	tsBase
	name string
}

func newTSRef(d *exec.Dict, ref any, reg *tsRegistry) (*tsRef, error) {
	s, _ := ref.(string)
	r := &tsRef{tsBase: newTSBase(d)}
	switch {
	case s == "#":
		reg.selfRef, r.name = true, "parameters"
	case strings.HasPrefix(s, "#/$defs/"):
		name := s[strings.LastIndexByte(s, '/')+1:]
		if _, ok := reg.defs[name]; !ok {
			return nil, tsErrorf("reference not found: %s", s)
		}
		r.name = name
	default:
		return nil, tsErrorf("unsupported reference format: %s", pyStr(exec.AsValue(ref)))
	}
	return r, nil
}

func (r *tsRef) ts(string) (string, error) { return r.name, nil }
