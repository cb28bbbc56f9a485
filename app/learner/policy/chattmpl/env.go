package chattmpl

import (
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/nikolalohinski/gonja/v2/builtins"
	"github.com/nikolalohinski/gonja/v2/exec"
	"github.com/nikolalohinski/gonja/v2/loaders"
	"github.com/nikolalohinski/gonja/v2/logging"
	"github.com/nikolalohinski/gonja/v2/nodes"
	"github.com/nikolalohinski/gonja/v2/parser"
	"github.com/nikolalohinski/gonja/v2/tokens"
)

func init() {
	// gonja logs through the global logrus logger; a template's type
	// errors are reported as render errors instead.
	logging.SetEnabled(false)
}

// environment is the gonja environment of every chat template: gonja's
// builtins with the filters, tests and methods that Hugging Face's Python
// environment has and gonja lacks or does differently.
var environment = newEnvironment()

func newEnvironment() *exec.Environment {
	filters := exec.NewFilterSet(map[string]exec.FilterFunction{}).Update(builtins.Filters)
	for name, fn := range map[string]exec.FilterFunction{
		"tojson":   filterToJSON,
		"items":    filterItems,
		"dictsort": filterDictSort,
		"trim":     filterTrim,
		"string":   filterString,
	} {
		mustNoErr(filters.Replace(name, fn))
	}
	tests := exec.NewTestSet(map[string]exec.TestFunction{}).Update(builtins.Tests)
	for name, fn := range map[string]exec.TestFunction{
		"defined":   testDefined,
		"undefined": testUndefined,
		"true":      testTrue,
		"false":     testFalse,
	} {
		mustNoErr(tests.Replace(name, fn))
	}
	structures := exec.NewControlStructureSet(map[string]parser.ControlStructureParser{}).Update(builtins.ControlStructures)
	mustNoErr(structures.Register("generation", generationParser))
	methods := builtins.Methods
	methods.Dict = dictMethods()
	methods.Str = strMethods()
	globals := exec.EmptyContext().Update(builtins.GlobalFunctions).Update(builtins.GlobalVariables)
	globals.Set("dict", dictFunction)
	globals.Set("range", rangeFunction)
	return &exec.Environment{
		Context:           globals,
		Filters:           filters,
		Tests:             tests,
		ControlStructures: structures,
		Methods:           methods,
	}
}

func mustNoErr(err error) {
	if err != nil {
		panic(err) // a programming error in the tables above
	}
}

// dictFunction is dict(**kwargs). gonja hands keyword arguments over in a
// map, so their order is lost; they come out sorted.
func dictFunction(_ *exec.Evaluator, params *exec.VarArgs) *exec.Value {
	keys := make([]string, 0, len(params.KwArgs))
	for k := range params.KwArgs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	d := exec.NewDict()
	for _, k := range keys {
		d.Pairs = append(d.Pairs, &exec.Pair{Key: exec.AsValue(k), Value: params.KwArgs[k]})
	}
	return exec.AsValue(d)
}

// rangeFunction is range([start,] stop[, step]) as a list (gonja's is a
// channel, which filters such as join cannot read).
func rangeFunction(_ *exec.Evaluator, params *exec.VarArgs) ([]any, error) {
	var n []int
	for _, a := range params.Args {
		if !a.IsInteger() {
			return nil, exec.ErrInvalidCall(errors.New("range() arguments must be integers"))
		}
		n = append(n, a.Integer())
	}
	start, stop, step := 0, 0, 1
	switch len(n) {
	case 1:
		stop = n[0]
	case 2:
		start, stop = n[0], n[1]
	case 3:
		start, stop, step = n[0], n[1], n[2]
	default:
		return nil, exec.ErrInvalidCall(errors.New("range() takes 1 to 3 arguments"))
	}
	if step == 0 {
		return nil, exec.ErrInvalidCall(errors.New("range() step must not be zero"))
	}
	out := []any{}
	for i := start; (step > 0 && i < stop) || (step < 0 && i > stop); i += step {
		if len(out) >= maxRange {
			return nil, exec.ErrInvalidCall(fmt.Errorf("range() longer than %d", maxRange))
		}
		out = append(out, i)
	}
	return out, nil
}

// maxRange bounds range() so that a template cannot exhaust memory.
const maxRange = 100000

// filterToJSON is Hugging Face's tojson: json.dumps(x, ensure_ascii=False,
// indent=indent, separators=separators, sort_keys=sort_keys), which keeps
// key order and does not escape HTML characters.
func filterToJSON(_ *exec.Evaluator, in *exec.Value, params *exec.VarArgs) *exec.Value {
	if in.IsError() {
		return in
	}
	o, err := jsonArgs(params)
	if err != nil {
		return exec.AsValue(fmt.Errorf("tojson: %w", err))
	}
	out, err := pyJSON(in, o)
	if err != nil {
		return exec.AsValue(fmt.Errorf("tojson: %w", err))
	}
	return exec.AsSafeValue(out)
}

// jsonArgs reads tojson's indent, separators, sort_keys and ensure_ascii.
func jsonArgs(params *exec.VarArgs) (jsonOptions, error) {
	indent := params.GetKeywordArgument("indent", nil)
	if len(params.Args) > 0 {
		indent = params.Args[0]
	}
	var ind *string
	switch {
	case indent.IsNil():
	case indent.IsInteger():
		s := strings.Repeat(" ", max(indent.Integer(), 0))
		ind = &s
	case indent.IsString():
		s := indent.String()
		ind = &s
	default:
		return jsonOptions{}, errors.New("indent must be an integer or a string")
	}
	o := newJSONOptions(ind)
	if seps := params.GetKeywordArgument("separators", nil); !seps.IsNil() {
		if !seps.IsList() || seps.Len() != 2 {
			return jsonOptions{}, errors.New("separators must be a pair of strings")
		}
		o.itemSep, o.keySep = seps.Index(0).String(), seps.Index(1).String()
	}
	o.sortKeys = params.GetKeywordArgument("sort_keys", false).IsTrue()
	o.ensureASCI = params.GetKeywordArgument("ensure_ascii", false).IsTrue()
	return o, nil
}

// filterItems is Jinja's items filter: the (key, value) pairs of a
// mapping, in the mapping's order.
func filterItems(_ *exec.Evaluator, in *exec.Value, params *exec.VarArgs) *exec.Value {
	switch {
	case in.IsError():
		return in
	case in.IsNil():
		return exec.AsValue([]any{})
	case !in.IsDict():
		return exec.AsValue(errors.New("items: argument is not a mapping"))
	}
	return exec.AsValue(pairList(dictPairs(in)))
}

// pairList turns pairs into a list of [key, value] lists, which a for
// loop can unpack into two names.
func pairList(pairs []*exec.Pair) []any {
	out := make([]any, len(pairs))
	for i, p := range pairs {
		out[i] = []any{p.Key, p.Value}
	}
	return out
}

// filterDictSort is Jinja's dictsort: pairs sorted by key (or by value),
// ignoring case unless case_sensitive.
func filterDictSort(_ *exec.Evaluator, in *exec.Value, params *exec.VarArgs) *exec.Value {
	if in.IsError() {
		return in
	}
	if !in.IsDict() {
		return exec.AsValue(errors.New("dictsort: argument is not a mapping"))
	}
	caseSensitive := params.GetKeywordArgument("case_sensitive", false).IsTrue()
	byValue := params.GetKeywordArgument("by", "key").String() == "value"
	reverse := params.GetKeywordArgument("reverse", false).IsTrue()
	pairs := append([]*exec.Pair(nil), dictPairs(in)...)
	sortKey := func(p *exec.Pair) *exec.Value {
		if byValue {
			return p.Value
		}
		return p.Key
	}
	sort.SliceStable(pairs, func(i, j int) bool {
		a, b := sortKey(pairs[i]), sortKey(pairs[j])
		if reverse {
			a, b = b, a
		}
		return lessValue(a, b, caseSensitive)
	})
	return exec.AsValue(pairList(pairs))
}

// lessValue orders numbers by value and everything else by text.
func lessValue(a, b *exec.Value, caseSensitive bool) bool {
	if a.IsNumber() && b.IsNumber() {
		return a.Float() < b.Float()
	}
	x, y := a.String(), b.String()
	if !caseSensitive {
		x, y = strings.ToLower(x), strings.ToLower(y)
	}
	return x < y
}

// isNone reports whether v is None rather than undefined.
func isNone(v *exec.Value) bool {
	return v.Val.IsValid() && v.Val.Type() == noneType
}

var noneType = exec.AsValue(noneValue).Val.Type()

// testDefined is true for None too; only missing names and keys are
// undefined.
func testDefined(_ *exec.Context, in *exec.Value, _ *exec.VarArgs) (bool, error) {
	return isNone(in) || !(in.IsError() || in.IsNil()), nil
}

func testUndefined(ctx *exec.Context, in *exec.Value, params *exec.VarArgs) (bool, error) {
	defined, err := testDefined(ctx, in, params)
	return !defined, err
}

// testTrue and testFalse are Python's `is True` and `is False`: only
// booleans pass.
func testTrue(_ *exec.Context, in *exec.Value, _ *exec.VarArgs) (bool, error) {
	return in.IsBool() && in.Bool(), nil
}

func testFalse(_ *exec.Context, in *exec.Value, _ *exec.VarArgs) (bool, error) {
	return in.IsBool() && !in.Bool(), nil
}

// generationBlock is transformers' {% generation %} tag, which marks the
// assistant's tokens for training masks; it renders its body unchanged.
type generationBlock struct {
	location *tokens.Token
	wrapper  *nodes.Wrapper
}

func (g *generationBlock) Position() *tokens.Token { return g.location }
func (g *generationBlock) String() string          { return "generation" }

func (g *generationBlock) Execute(r *exec.Renderer, _ *nodes.ControlStructureBlock) error {
	return r.ExecuteWrapper(g.wrapper)
}

func generationParser(p *parser.Parser, args *parser.Parser) (nodes.ControlStructure, error) {
	g := &generationBlock{location: p.Current()}
	wrapper, end, err := p.WrapUntil("endgeneration")
	if err != nil {
		return nil, err
	}
	if !args.End() || !end.End() {
		return nil, errors.New("generation takes no arguments")
	}
	g.wrapper = wrapper
	return g, nil
}

// nopLoader serves no files: chat templates may not include, import or
// extend other templates.
type nopLoader struct{ name, source string }

func (l nopLoader) Read(path string) (io.Reader, error) {
	if path == l.name {
		return strings.NewReader(l.source), nil
	}
	return nil, fmt.Errorf("template %q not available: chat templates cannot load other templates", path)
}

func (l nopLoader) Resolve(path string) (string, error) { return path, nil }

func (l nopLoader) Inherit(string) (loaders.Loader, error) { return l, nil }
