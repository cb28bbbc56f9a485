// Package redact removes secrets from text before the learner sends it to
// a judge or evolver model: provider API keys and other well-known token
// formats, private key blocks, credentials in URLs, values assigned to
// password/secret/token/API-key names (env lines, JSON, YAML, code, query
// strings), and long random-looking tokens that follow a word such as
// "token", "key", "secret", "password" or "Bearer".
//
// Redact is pure, never panics and is idempotent. It errs on the side of
// removing too much: a judge loses little when an identifier that merely
// looks random is hidden. Any package may import it; it imports only the
// standard library.
package redact

import (
	"regexp"
	"strings"
	"unicode/utf8"
)

// Marker replaces every secret.
const Marker = "[REDACTED]"

// rule is one pattern and how to rewrite a match of it.
type rule struct {
	re      *regexp.Regexp
	rewrite func(s string, m []int) string // m: submatch indexes of one match in s
	// needs lists strings one of which every match contains, so that the
	// pattern runs only on text that holds one (nil: always run). With
	// fold they are lower case and the match is case-insensitive: the
	// check is then exact only for ASCII text (Unicode folding maps ſ to s
	// and K, the Kelvin sign, to k), other text always runs the pattern.
	needs []string
	fold  bool
	// may, when set, is a condition every match meets, cheaper than
	// needs and tested first (text as given, lower as for needs).
	may func(text, lower string) bool
	// weak marks a rule whose matches are a weak sign of a secret, and
	// costly to look for: Holds leaves it out.
	weak bool
}

var rules = []rule{
	{re: privateKeyRE, rewrite: func(string, []int) string { return Marker }, needs: []string{"PRIVATE KEY"}},
	{re: prefixedRE, rewrite: func(string, []int) string { return Marker }, may: mayPrefixed, needs: []string{
		"sk-", "AKIA", "ASIA", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "xox", "AIza",
		"hf_", "glpat-", "_live_", "_test_", "eyJ"}},
	{re: urlCredRE, rewrite: rewriteGroup(2, func(string) bool { return true }), needs: []string{"://"}},
	{re: assignRE, rewrite: rewriteAssignment, fold: true, needs: assignWords, may: func(_, lower string) bool { return mayAssign(lower) }},
	{re: keywordRE, rewrite: rewriteKeyword, fold: true, needs: keywordWords, may: func(_, lower string) bool { return mayKeyword(lower) }, weak: true},
}

var (
	assignWords  = []string{"passw", "passphrase", "pwd", "secret", "token", "api", "access", "private", "credential"}
	keywordWords = []string{"bearer", "basic", "token", "key", "secret", "passw", "apikey"}
)

// mayPrefixed reports whether text has a run of at least 15 token
// characters (letters, digits, _ . -), as every token prefixedRE knows is
// (the shortest, a Slack token, is xoxb- and ten more): prose rarely
// does, and its words' letters ("sk-" in every "ask-") are then not
// searched for one by one.
func mayPrefixed(text, _ string) bool {
	run := 0
	for i := 0; i < len(text); i++ {
		c := text[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '-' {
			if run++; run >= 15 {
				return true
			}
		} else {
			run = 0
		}
	}
	return false
}

// mayAssign reports whether lower holds an assignment's separator (=, :
// or " is ") right after a name that holds a sensitive word, once an
// optional quote and spaces are passed: what assignRE needs. It looks back
// from each separator, so prose with few of them costs one pass; "the api
// returns 500" does not run the pattern.
func mayAssign(lower string) bool {
	for k := 0; k < len(lower); k++ {
		j := k
		switch c := lower[k]; {
		case c == '=' || c == ':':
		case c == 'i' && k > 0 && isSpace(lower[k-1]) && strings.HasPrefix(lower[k:], "is") && k+2 < len(lower) && isSpace(lower[k+2]):
		default:
			continue
		}
		for j > 0 && isSpace(lower[j-1]) {
			j--
		}
		if lower[k] == 'i' && j == k {
			continue // " is " needs the space before it
		}
		if j > 0 && (lower[j-1] == '"' || lower[j-1] == '\'') {
			j--
		}
		if j > 0 && lower[j-1] == '\\' {
			j--
		}
		i := j
		for i > 0 && isNameByte(lower[i-1]) {
			i--
		}
		for _, w := range assignWords {
			if strings.Contains(lower[i:j], w) {
				return true
			}
		}
	}
	return false
}

// mayKeyword reports whether lower holds one of keywordRE's words as a
// whole word (plural too), as the pattern needs: "keyboard" and "monkey"
// do not run it.
func mayKeyword(lower string) bool {
	boundary := func(at int) bool { return at >= len(lower) || !isWordByte(lower[at]) }
	for _, w := range keywordWords {
		for from := 0; ; {
			i := strings.Index(lower[from:], w)
			if i < 0 {
				break
			}
			start, end := from+i, from+i+len(w)
			if (start == 0 || !isWordByte(lower[start-1])) &&
				(boundary(end) || lower[end] == 's' && boundary(end+1)) {
				return true
			}
			from += i + 1
		}
	}
	return false
}

func isNameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '-'
}

func isWordByte(c byte) bool { return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' }

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

// mayMatch reports whether text (lower: text in lower case when text is
// ASCII, else "") may hold a match of r.
func (r rule) mayMatch(text, lower string) bool {
	if r.fold && lower == "" && text != "" {
		return true // not ASCII: only the pattern can tell
	}
	if r.may != nil && !r.may(text, lower) {
		return false
	}
	if r.needs == nil {
		return true
	}
	in := text
	if r.fold {
		in = lower
	}
	for _, n := range r.needs {
		if strings.Contains(in, n) {
			return true
		}
	}
	return false
}

var (
	// privateKeyRE matches PEM and PGP private key blocks, and a block cut
	// off before its END line.
	privateKeyRE = regexp.MustCompile(`-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----(?s:.*?)(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|\z)`)

	// prefixedRE matches tokens whose format gives them away.
	prefixedRE = regexp.MustCompile(`\b(?:` +
		`sk-[A-Za-z0-9_\-]{16,}` + // OpenAI, Anthropic (sk-ant-), OpenRouter (sk-or-), DeepSeek, Moonshot…
		`|(?:AKIA|ASIA)[0-9A-Z]{16}` + // AWS access key ids
		`|gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}` + // GitHub
		`|xox[abposr]-[A-Za-z0-9\-]{10,}` + // Slack
		`|AIza[0-9A-Za-z_\-]{30,}` + // Google
		`|hf_[A-Za-z0-9]{20,}` + // Hugging Face
		`|glpat-[A-Za-z0-9_\-]{20,}` + // GitLab
		`|(?:sk|rk|pk|whsec)_(?:live|test)_[A-Za-z0-9]{16,}` + // Stripe
		`|eyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}` + // JWT
		`)`)

	// urlCredRE matches the password of scheme://user:password@host.
	urlCredRE = regexp.MustCompile(`(?i)\b([a-z][a-z0-9+.\-]*://[^\s:/@]+:)([^\s@/]+)@`)

	// assignRE matches NAME <sep> VALUE where NAME contains a sensitive
	// word: FOO_API_KEY=..., "password": "...", token: ..., secret => ....
	assignRE = regexp.MustCompile(`(?i)\b([a-z0-9_.\-]*?(password|passwd|passphrase|pwd|secret|token|api[_\-]?key|access[_\-]?key|private[_\-]?key|credentials?)(?:[_.\-][a-z0-9_.\-]*)?)\b` +
		`(\\?["']?)(\s*(?:==?|:=|=>|:)\s*|\s+is\s+)` +
		`("(?:[^"\\\n]|\\.)*"?|'(?:[^'\\\n]|\\.)*'?|\\"(?:[^"\\\n]|\\[^"\n])*(?:\\")?|\$\{[^}\s]*\}?|[^\s"'` + "`" + `,;&<>(){}\[\]]+)`)

	// envRefRE matches a reference to an environment variable.
	envRefRE = regexp.MustCompile(`^\$\{?[A-Z_][A-Z0-9_]*\}?$`)

	// keywordRE matches a long token right after a telling word, as in
	// "Bearer abc…" or "key abc…".
	keywordRE = regexp.MustCompile(`(?i)\b(bearer|basic|token|key|secret|password|passwd|apikey)s?\b(\s*[:=]?\s*)([A-Za-z0-9+/_\-.~=]+)`)
)

// Redact returns text with secrets replaced by Marker.
func Redact(text string) string {
	// Each pass is idempotent on its own output in practice; a second pass
	// makes sure a replacement never exposes a new match.
	for range 3 {
		next := redactOnce(text)
		if next == text {
			break
		}
		text = next
	}
	return text
}

// Holds reports whether text shows a secret by the surer rules: a private
// key, a token whose format gives it away, a URL's password or a
// sensitive name assigned a value. It leaves out the keyword rule (a
// random-looking word after "key" or "Bearer"), the costliest to run and
// the weakest sign, so that it is cheap enough for every turn's request.
func Holds(text string) bool {
	lower := asciiLower(text)
	for _, r := range rules {
		if !r.weak && r.mayMatch(text, lower) && replace(r.re, text, r.rewrite) != text {
			return true
		}
	}
	return false
}

// redactOnce applies every rule once, skipping those whose pattern
// cannot match (rule.needs): most text holds no secret and no telling
// word, and the case-insensitive patterns are costly to run.
func redactOnce(text string) string {
	lower := asciiLower(text)
	for _, r := range rules {
		if !r.mayMatch(text, lower) {
			continue
		}
		if next := replace(r.re, text, r.rewrite); next != text {
			text, lower = next, asciiLower(next)
		}
	}
	return text
}

// asciiLower returns text in lower case when it is all ASCII, else "".
func asciiLower(text string) string {
	for i := 0; i < len(text); i++ {
		if text[i] >= utf8.RuneSelf {
			return ""
		}
	}
	return strings.ToLower(text)
}

// replace rewrites every match of re in s.
func replace(re *regexp.Regexp, s string, rewrite func(string, []int) string) string {
	matches := re.FindAllStringSubmatchIndex(s, -1)
	if matches == nil {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	last := 0
	for _, m := range matches {
		b.WriteString(s[last:m[0]])
		b.WriteString(rewrite(s, m))
		last = m[1]
	}
	b.WriteString(s[last:])
	return b.String()
}

// rewriteGroup returns a rewrite that replaces submatch g with Marker when
// redact says so.
func rewriteGroup(g int, redact func(string) bool) func(string, []int) string {
	return func(s string, m []int) string {
		start, end := m[2*g], m[2*g+1]
		if start < 0 || !redact(s[start:end]) || s[start:end] == Marker {
			return s[m[0]:m[1]]
		}
		return s[m[0]:start] + Marker + s[end:m[1]]
	}
}

// rewriteAssignment redacts the value of a sensitive assignment. Password
// names lose any value; upper-case env-style names (FOO_API_KEY=…) and
// quoted values lose theirs too; other bare values only when they look
// random (so that `token = get_token()` stays readable).
func rewriteAssignment(s string, m []int) string {
	name, word := s[m[2]:m[3]], strings.ToLower(s[m[4]:m[5]])
	vs, ve := m[10], m[11]
	value := s[vs:ve]
	inner, open, closing := unquote(value)
	if inner == "" || inner == Marker || isPlain(inner) {
		return s[m[0]:m[1]]
	}
	redact := open != "" || isPassword(word) || isEnvName(name) || looksRandom(inner, 8)
	if !redact {
		return s[m[0]:m[1]]
	}
	return s[m[0]:vs] + open + Marker + closing + s[ve:m[1]]
}

// rewriteKeyword redacts a random-looking token after a telling word.
func rewriteKeyword(s string, m []int) string {
	word := strings.ToLower(s[m[2]:m[3]])
	token := s[m[6]:m[7]]
	minLen := 16
	if word == "bearer" || word == "basic" {
		minLen = 8
	}
	if !looksRandom(token, minLen) {
		return s[m[0]:m[1]]
	}
	return s[m[0]:m[6]] + Marker
}

// unquote splits a value into its opening quote, content and closing quote.
func unquote(v string) (inner, open, closing string) {
	for _, q := range []string{`\"`, `"`, `'`} {
		if strings.HasPrefix(v, q) {
			inner = v[len(q):]
			if strings.HasSuffix(inner, q) && len(inner) >= len(q) {
				inner, closing = inner[:len(inner)-len(q)], q
			}
			return inner, q, closing
		}
	}
	return v, "", ""
}

// isPlain reports values that are no secret: numbers, booleans, null,
// and references to a variable ($VAR, ${VAR}).
func isPlain(v string) bool {
	switch strings.ToLower(v) {
	case "true", "false", "null", "nil", "none", "undefined":
		return true
	}
	if envRefRE.MatchString(v) {
		return true
	}
	for _, r := range v {
		if (r < '0' || r > '9') && r != '.' && r != '-' {
			return false
		}
	}
	return true
}

func isPassword(word string) bool {
	switch word {
	case "password", "passwd", "passphrase", "pwd":
		return true
	}
	return false
}

// isEnvName reports an upper-case environment-variable-style name.
func isEnvName(name string) bool {
	letter := false
	for _, r := range name {
		switch {
		case r >= 'A' && r <= 'Z':
			letter = true
		case r >= '0' && r <= '9', r == '_':
		default:
			return false
		}
	}
	return letter
}

// looksRandom reports whether a token of at least minLen bytes mixes
// letters with digits, or has upper-case letters after its first one next
// to lower-case ones (as base64 does), unlike ordinary words.
func looksRandom(v string, minLen int) bool {
	if len(v) < minLen {
		return false
	}
	var digit, lower, upper, innerUpper bool
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case c >= '0' && c <= '9':
			digit = true
		case c >= 'a' && c <= 'z':
			lower = true
		case c >= 'A' && c <= 'Z':
			upper = true
			innerUpper = innerUpper || i > 0
		}
	}
	return (digit && (lower || upper)) || (lower && innerUpper)
}
