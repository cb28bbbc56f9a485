package redact

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

func TestRedact(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, want string
	}{
		{"openai key", "use sk-proj-AbCdEf0123456789xyzXYZ now", "use [REDACTED] now"},
		{"anthropic key", "key sk-ant-api03-abcDEF123456789_-xyz", "key [REDACTED]"},
		{"openrouter key", "sk-or-v1-0123456789abcdef0123456789abcdef", "[REDACTED]"},
		{"aws access key id", "AKIAIOSFODNN7EXAMPLE is the id", "[REDACTED] is the id"},
		{"github token", "ghp_abcdefghijklmnopqrstuvwxyz0123456789", "[REDACTED]"},
		{"github fine-grained", "github_pat_11ABCDEFG0123456789_abcdefghijklmnop", "[REDACTED]"},
		{"slack token", "xoxb-1234567890-abcdefghij", "[REDACTED]"},
		{"google key", "AIzaSyA-1234567890abcdefghijklmnopqrstu", "[REDACTED]"},
		{"jwt", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U", "[REDACTED]"},
		{"bearer header", "Authorization: Bearer abc123def456", "Authorization: Bearer [REDACTED]"},
		{"basic header", "Authorization: Basic dXNlcjpwYXNzd29yZA==", "Authorization: Basic [REDACTED]"},
		{"long hex after token", "the token 3f2a9c0b1d4e5f60718293a4b5c6d7e8 expired", "the token [REDACTED] expired"},
		{"secret with colon", "secret: Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5", "secret: [REDACTED]"},
		{"password equals", "login with password=hunter2 please", "login with password=[REDACTED] please"},
		{"password json", `{"user": "bob", "password": "hunter2"}`, `{"user": "bob", "password": "[REDACTED]"}`},
		{"password json escaped", `{\"password\": \"hunter2\"}`, `{\"password\": \"[REDACTED]\"}`},
		{"password prose", "my password is hunter2", "my password is [REDACTED]"},
		{"password yaml single quotes", "db_password: 'p@ss w0rd'", "db_password: '[REDACTED]'"},
		{"env api key", "export OPENAI_API_KEY=abc\nFOO=bar", "export OPENAI_API_KEY=[REDACTED]\nFOO=bar"},
		{"env secret", "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "AWS_SECRET_ACCESS_KEY=[REDACTED]"},
		{"env token quoted", `GITHUB_TOKEN="abc def"`, `GITHUB_TOKEN="[REDACTED]"`},
		{"query string", "GET /v1?api_key=abcd1234efgh&x=1", "GET /v1?api_key=[REDACTED]&x=1"},
		{"url credentials", "postgres://admin:s3cret@db.local:5432/app", "postgres://admin:[REDACTED]@db.local:5432/app"},
		{"private key", "x\n-----BEGIN RSA PRIVATE KEY-----\nMIIEow\nabc\n-----END RSA PRIVATE KEY-----\ny", "x\n[REDACTED]\ny"},
		{"private key cut off", "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk", "[REDACTED]"},
		{"pgp key", "-----BEGIN PGP PRIVATE KEY BLOCK-----\nxyz\n-----END PGP PRIVATE KEY BLOCK-----", "[REDACTED]"},
		// Things that must stay.
		{"plain prose", "Fix the failing test in parser_test.go and run go test ./...", ""},
		{"token count", `{"max_tokens": 1024, "prompt_tokens": 12, "token_count": 5}`, ""},
		{"code call", "token = get_token()", ""},
		{"env reference", "password=${DB_PASSWORD}", ""},
		{"keyword and word", "the key insight is caching; Bearer tokens expire", ""},
		{"boolean", "use_token: true", ""},
		{"tokenizer", "tokenizer: cl100k_base", ""},
		{"kebab task name", "task-abcdefghijklmnopqrstuv", ""},
		{"public key", "-----BEGIN PUBLIC KEY-----\nMIIB\n-----END PUBLIC KEY-----", ""},
		{"already redacted", "password=[REDACTED] and token [REDACTED]", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			want := tt.want
			if want == "" {
				want = tt.in
			}
			got := Redact(tt.in)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("Redact(%q) (-want +got):\n%s", tt.in, diff)
			}
			if again := Redact(got); again != got {
				t.Errorf("not idempotent: %q -> %q", got, again)
			}
		})
	}
}

func FuzzRedact(f *testing.F) {
	for _, s := range []string{
		"password=hunter2", `"password": "x"`, "sk-ant-api03-abcdefghijklmnop", "Bearer abc123def456",
		"-----BEGIN RSA PRIVATE KEY-----\nabc", "FOO_API_KEY=abc", `\"token\": \"abc`, "https://u:p@h/",
		"token: [REDACTED]x", "password = 'a'b'", "secret is AbCdEfGhIjKlMnOpQr",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := Redact(s)
		if again := Redact(got); again != got {
			t.Fatalf("not idempotent:\n in   %q\n once %q\n twice %q", s, got, again)
		}
		if want := redactEveryRule(s); got != want {
			t.Fatalf("skipping rules changed the result:\n in   %q\n got  %q\n want %q", s, got, want)
		}
		if utf8.ValidString(s) && !utf8.ValidString(got) {
			t.Fatalf("valid UTF-8 became invalid: %q -> %q", s, got)
		}
		if strings.Contains(s, "hunter2") && strings.Contains(s, "password=hunter2") && strings.Contains(got, "password=hunter2") {
			t.Fatalf("password leaked: %q", got)
		}
	})
}

// redactEveryRule is Redact without skipping any rule.
func redactEveryRule(text string) string {
	for range 3 {
		next := text
		for _, r := range rules {
			next = replace(r.re, next, r.rewrite)
		}
		if next == text {
			break
		}
		text = next
	}
	return text
}

// TestRedactSkipsExactly checks that skipping the rules whose words are
// missing changes nothing, on the cases of TestRedact and on text where
// only Unicode case folding makes the words appear.
func TestRedactSkipsExactly(t *testing.T) {
	t.Parallel()
	for _, s := range []string{
		"plain prose with nothing to hide", "password=hunter2", "ſecret: Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5",
		"apiKey=abcd1234efgh5678", "Bearer abc123def456", "TOKEN 3f2a9c0b1d4e5f60718293a4b5c6d7e8",
		"postgres://admin:s3cret@db.local/app", "sk-proj-AbCdEf0123456789xyzXYZ", "",
	} {
		if got, want := Redact(s), redactEveryRule(s); got != want {
			t.Errorf("Redact(%q) = %q, every rule gives %q", s, got, want)
		}
	}
}

// BenchmarkRedactPlain is the common case: an agent's answer with no
// secret and no telling word.
func BenchmarkRedactPlain(b *testing.B) {
	text := strings.Repeat("Running `go test -race ./...` now; I will report the first failure and my guess. ", 18)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		Redact(text)
	}
}

func BenchmarkRedact(b *testing.B) {
	text := strings.Repeat("Please fix the failing test; export OPENAI_API_KEY=sk-proj-abcdefghijklmnop0123 and run it. ", 40)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		Redact(text)
	}
}

// tellingWords is a 2.2 KB coding request with the words a secret's name
// could hold and no secret.
var tellingWords = strings.Repeat("the api returns 500 when the cache key is missing; the monkey patch broke the token refresh. ", 24)

// BenchmarkRedactTellingWords is a coding request whose words a secret's
// name could hold ("api", "key", "token") with no secret in it: the
// patterns that need a name followed by a separator, or a whole word,
// do not run.
func BenchmarkRedactTellingWords(b *testing.B) {
	text := tellingWords
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		Redact(text)
	}
}

// TestHolds: the surer rules find a secret; prose with the words a
// secret's name holds does not, nor a random word after "key".
func TestHolds(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"postgres://admin:Wint3r!sC0ming@prod-db.internal:5432/app", "OPENAI_API_KEY=sk-proj-abcdefghijklmnop0123",
		"export AWS key AKIAABCDEFGHIJKLMNOP now", "password: hunter2", "-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----"} {
		if !Holds(s) {
			t.Errorf("Holds(%q) = false", s)
		}
	}
	for _, s := range []string{"the api returns 500 when the cache key is missing", "rotate the token every hour", "", "a basic question about passwords"} {
		if Holds(s) {
			t.Errorf("Holds(%q) = true", s)
		}
	}
}

func BenchmarkHoldsTellingWords(b *testing.B) {
	text := tellingWords
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		Holds(text)
	}
}
