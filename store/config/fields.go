package config

import (
	"fmt"
	"net"
	"net/url"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// Kind is a field's value type.
type Kind string

// Kinds of values.
const (
	String Kind = "string"
	Int    Kind = "int"
	Float  Kind = "float"
	Bool   Kind = "bool"
)

// Field describes one configuration key.
type Field struct {
	Key     string   // dotted name, e.g. "llm.api_key"
	Group   string   // first part of the key, "" for top-level keys
	Kind    Kind     // value type
	Default string   // default as text
	Enum    []string // allowed values, when restricted
	Check   string   // url, hhmm, port, host or path
	Min     *float64 // lower bound for numbers
	Max     *float64 // upper bound for numbers
	Secret  bool     // credential: masked, never logged
	Aliases []string // older names for the same key
	Doc     string   // one-line description
	index   []int    // reflect path into Config
}

var (
	fieldsOnce sync.Once
	fieldList  []Field
	fieldByKey map[string]*Field // keys and aliases
)

// Fields returns every key, in declaration order.
func Fields() []Field {
	fieldsOnce.Do(buildFields)
	return fieldList
}

// Lookup returns the field for a key or one of its aliases.
func Lookup(key string) (Field, bool) {
	fieldsOnce.Do(buildFields)
	f, ok := fieldByKey[key]
	if !ok {
		return Field{}, false
	}
	return *f, true
}

func buildFields() {
	walk(reflect.TypeOf(Config{}), "", nil)
	fieldByKey = make(map[string]*Field)
	for i := range fieldList {
		f := &fieldList[i]
		fieldByKey[f.Key] = f
		for _, a := range f.Aliases {
			fieldByKey[a] = f
		}
	}
}

func walk(t reflect.Type, prefix string, index []int) {
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		key := prefix + sf.Tag.Get("key")
		idx := append(append([]int(nil), index...), i)
		if sf.Type.Kind() == reflect.Struct {
			walk(sf.Type, key+".", idx)
			continue
		}
		fieldList = append(fieldList, newField(sf, key, prefix, idx))
	}
}

func newField(sf reflect.StructField, key, prefix string, idx []int) Field {
	f := Field{Key: key, Default: sf.Tag.Get("default"), Check: sf.Tag.Get("check"),
		Secret: sf.Tag.Get("secret") == "true", Doc: sf.Tag.Get("doc"), index: idx}
	f.Group, _, _ = strings.Cut(prefix, ".")
	switch sf.Type.Kind() {
	case reflect.String:
		f.Kind = String
	case reflect.Int:
		f.Kind = Int
	case reflect.Float64:
		f.Kind = Float
	case reflect.Bool:
		f.Kind = Bool
	default:
		panic("config: unsupported field type " + sf.Type.String())
	}
	if e := sf.Tag.Get("enum"); e != "" {
		f.Enum = strings.Split(e, "|")
	}
	if a := sf.Tag.Get("alias"); a != "" {
		for _, name := range strings.Split(a, "|") {
			f.Aliases = append(f.Aliases, prefix+name)
		}
	}
	f.Min, f.Max = bound(sf.Tag.Get("min")), bound(sf.Tag.Get("max"))
	if f.Check == "port" {
		lo, hi := 1.0, 65535.0
		f.Min, f.Max = &lo, &hi
	}
	return f
}

func bound(s string) *float64 {
	if s == "" {
		return nil
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		panic("config: bad bound " + s)
	}
	return &v
}

// Error is a refused key or value. Its message names the key and what is
// allowed.
type Error struct {
	Key     string
	Value   string
	Allowed string // what would be accepted
	Reason  string
}

func (e *Error) Error() string {
	if e.Reason == "unknown key" {
		return fmt.Sprintf("%s: unknown key (see `metaclaw config show` for the keys)", e.Key)
	}
	msg := fmt.Sprintf("%s: %s", e.Key, e.Reason)
	if e.Allowed != "" {
		msg += "; allowed: " + e.Allowed
	}
	return msg
}

// Allowed describes, in words, the values a field accepts.
func (f Field) Allowed() string {
	switch {
	case len(f.Enum) > 0:
		return strings.Join(f.Enum, ", ")
	case f.Check == "port":
		return "a port number from 1 to 65535"
	case f.Check == "url":
		return "an http:// or https:// URL, or empty"
	case f.Check == "hhmm":
		return "a time of day as HH:MM (00:00 to 23:59)"
	case f.Check == "host":
		return "an IP address or host name"
	case f.Check == "origins":
		return "origins such as http://localhost:5173, separated by commas, or empty"
	case f.Check == "languages":
		return "auto, none, or language codes among " + strings.Join(AskLanguages, ", ") + " separated by commas"
	case f.Kind == Bool:
		return "true or false"
	case f.Kind == Int || f.Kind == Float:
		return f.numberRange()
	}
	return "any text"
}

func (f Field) numberRange() string {
	what := "a whole number"
	if f.Kind == Float {
		what = "a number"
	}
	switch {
	case f.Min != nil && f.Max != nil:
		return fmt.Sprintf("%s from %g to %g", what, *f.Min, *f.Max)
	case f.Min != nil:
		return fmt.Sprintf("%s ≥ %g", what, *f.Min)
	case f.Max != nil:
		return fmt.Sprintf("%s ≤ %g", what, *f.Max)
	}
	return what
}

// Normalize validates a textual value for key and returns its canonical
// text. Aliases are accepted; the returned field is the canonical one.
func Normalize(key, value string) (Field, string, error) {
	f, ok := Lookup(key)
	if !ok {
		return Field{}, "", &Error{Key: key, Reason: "unknown key"}
	}
	v, err := f.normalize(value)
	if err != nil {
		return f, "", &Error{Key: key, Value: value, Allowed: f.Allowed(), Reason: err.Error()}
	}
	return f, v, nil
}

func (f Field) normalize(value string) (string, error) {
	if !utf8.ValidString(value) || strings.ContainsAny(value, "\x00") {
		return "", fmt.Errorf("value is not valid text")
	}
	value = strings.TrimSpace(value)
	switch f.Kind {
	case Bool:
		b, err := parseBool(value)
		if err != nil {
			return "", err
		}
		return strconv.FormatBool(b), nil
	case Int, Float:
		return f.normalizeNumber(value)
	}
	if len(f.Enum) > 0 {
		for _, e := range f.Enum {
			if strings.EqualFold(e, value) {
				return e, nil
			}
		}
		return "", fmt.Errorf("%q is not allowed", value)
	}
	return value, checkString(f.Check, value)
}

func parseBool(s string) (bool, error) {
	switch strings.ToLower(s) {
	case "true", "yes", "on", "1":
		return true, nil
	case "false", "no", "off", "0":
		return false, nil
	}
	return false, fmt.Errorf("%q is not true or false", s)
}

func (f Field) normalizeNumber(value string) (string, error) {
	var v float64
	var out string
	if f.Kind == Int {
		n, err := strconv.Atoi(value)
		if err != nil {
			return "", fmt.Errorf("%q is not a whole number", value)
		}
		v, out = float64(n), strconv.Itoa(n)
	} else {
		x, err := strconv.ParseFloat(value, 64)
		if err != nil || x != x { // NaN
			return "", fmt.Errorf("%q is not a number", value)
		}
		v, out = x, strconv.FormatFloat(x, 'g', -1, 64)
	}
	if (f.Min != nil && v < *f.Min) || (f.Max != nil && v > *f.Max) {
		return "", fmt.Errorf("%s is out of range", value)
	}
	return out, nil
}

func checkString(check, v string) error {
	switch check {
	case "url":
		if v == "" {
			return nil
		}
		u, err := url.Parse(v)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("%q is not an http(s) URL", v)
		}
	case "hhmm":
		if len(v) != 5 || v[2] != ':' {
			return fmt.Errorf("%q is not HH:MM", v)
		}
		h, err1 := strconv.Atoi(v[:2])
		m, err2 := strconv.Atoi(v[3:])
		if err1 != nil || err2 != nil || h < 0 || h > 23 || m < 0 || m > 59 {
			return fmt.Errorf("%q is not a time of day", v)
		}
	case "origins":
		return checkOrigins(v)
	case "languages":
		_, _, err := ParseAskLanguages(v)
		return err
	case "host":
		if v == "" {
			return fmt.Errorf("host must not be empty")
		}
		if net.ParseIP(v) == nil && !validHostname(v) {
			return fmt.Errorf("%q is not an IP address or host name", v)
		}
	}
	return nil
}

// AskLanguages are the languages skills' asks can be written in besides
// English: those whose requests store.Language recognises.
var AskLanguages = []string{"de", "es", "fr", "it", "pt"}

// LanguageName is the English name of a language of AskLanguages ("de":
// "German"), or the code itself for another.
func LanguageName(code string) string {
	switch code {
	case "de":
		return "German"
	case "es":
		return "Spanish"
	case "fr":
		return "French"
	case "it":
		return "Italian"
	case "pt":
		return "Portuguese"
	}
	return code
}

// ParseAskLanguages reads skills.ask_languages: "auto" (auto: the
// languages the person writes in), "none" or "" (no language), or codes
// of AskLanguages separated by commas or spaces (langs).
func ParseAskLanguages(v string) (langs []string, auto bool, err error) {
	v = strings.ToLower(strings.TrimSpace(v))
	switch v {
	case "auto":
		return nil, true, nil
	case "", "none":
		return nil, false, nil
	}
	for _, l := range strings.FieldsFunc(v, func(r rune) bool { return r == ',' || r == ' ' }) {
		if !slices.Contains(AskLanguages, l) {
			return nil, false, fmt.Errorf("%q is not one of %s", l, strings.Join(AskLanguages, ", "))
		}
		if !slices.Contains(langs, l) {
			langs = append(langs, l)
		}
	}
	return langs, false, nil
}

// AskLanguageRequests is how many requests in a language the person must
// have sent (store.LanguagesSeen) before skills.ask_languages auto has
// asks written in it.
const AskLanguageRequests = 3

// WantedAskLanguages are the languages to write skills' asks in besides
// English under the skills.ask_languages setting, given the requests seen
// by language: the configured ones, or with auto each of AskLanguages
// with AskLanguageRequests requests. A setting that does not parse wants
// none.
func WantedAskLanguages(setting string, seen map[string]int) []string {
	langs, auto, err := ParseAskLanguages(setting)
	if err != nil || !auto {
		return langs
	}
	for _, l := range AskLanguages {
		if seen[l] >= AskLanguageRequests {
			langs = append(langs, l)
		}
	}
	return langs
}

// checkOrigins accepts a comma-separated list of web origins, each a
// scheme, host and optional port with no path ("http://localhost:5173").
func checkOrigins(v string) error {
	for _, o := range strings.Split(v, ",") {
		o = strings.TrimSpace(o)
		if o == "" {
			continue
		}
		u, err := url.Parse(o)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Path != "" ||
			u.RawQuery != "" || u.Fragment != "" || u.User != nil {
			return fmt.Errorf("%q is not an origin (scheme://host[:port], no path)", o)
		}
	}
	return nil
}

func validHostname(h string) bool {
	if len(h) > 253 {
		return false
	}
	for _, label := range strings.Split(h, ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for _, r := range label {
			if !(r == '-' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
				return false
			}
		}
	}
	return true
}

// Keys returns every canonical key, sorted.
func Keys() []string {
	var ks []string
	for _, f := range Fields() {
		ks = append(ks, f.Key)
	}
	sort.Strings(ks)
	return ks
}
