package skills

import (
	"strings"
	"testing"
)

// FuzzCleanTextGuards holds cleanText, which runs each expression only when
// its literal text is present, to running all of them every time.
func FuzzCleanTextGuards(f *testing.F) {
	for _, s := range []string{
		"[Sun 2026-11-29 20:59 UTC] fix the build\nRuntime: agent=main | session=x",
		"<system-reminder>x</system-reminder>hello",
		"a <<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>> b <<<END_OPENCLAW_INTERNAL_CONTEXT>>> c",
		`{"text":"[Mon 2026-01-05 09:00] hi"}`,
		"plain question about Go tests",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := cleanText(s), cleanTextAll(s); got != want {
			t.Fatalf("cleanText(%q) = %q, want %q", s, got, want)
		}
	})
}

// cleanTextAll is cleanText without the guards.
func cleanTextAll(t string) string {
	t = internalRE.ReplaceAllString(t, " ")
	t = reminderRE.ReplaceAllString(t, " ")
	t = datePrefixRE.ReplaceAllString(t, "")
	t = runtimeRE.ReplaceAllString(t, "")
	t = strings.TrimSpace(t)
	if strings.HasPrefix(t, "{") || strings.HasPrefix(t, "[") {
		t = unwrapJSON(t) // which cleans nested text with cleanText
	}
	return strings.TrimSpace(t)
}
