package memory

import (
	"strings"
	"unicode/utf8"

	"github.com/metaclaw/metaclaw/store"
)

// header opens the injected memory text.
const header = "# Memory\nWhat MetaClaw remembers from earlier conversations with this user. " +
	"Use it where it helps; what the user says now takes precedence.\n"

// groupTitles name the sections of the injected text, in their order.
var groupTitles = []struct{ typ, title string }{
	{store.MemoryPreference, "Preferences"},
	{store.MemoryFact, "Facts"},
	{store.MemoryProjectState, "Project state"},
	{store.MemoryProcedure, "Procedures"},
	{store.MemoryEpisode, "Earlier sessions"},
}

// maxLineLen bounds one memory's text in the prompt, in bytes.
const maxLineLen = 400

// Render formats memories for the system prompt, compactly: pinned ones
// first, then one section per type. Project state carries the date it was
// true at, an episode the date it happened.
func Render(ms []Scored) string { return render(ms, false) }

// render is Render, with every memory's date when dates is set (a
// question about time).
func render(ms []Scored, dates bool) string {
	if len(ms) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString(header)
	section(&b, "Pinned", ms, dates, func(m store.Memory) bool { return m.Pinned })
	for _, g := range groupTitles {
		section(&b, g.title, ms, dates, func(m store.Memory) bool { return !m.Pinned && m.Type == g.typ })
	}
	return b.String()
}

func section(b *strings.Builder, title string, ms []Scored, dates bool, in func(store.Memory) bool) {
	started := false
	for _, s := range ms {
		if !in(s.Memory) {
			continue
		}
		if !started {
			b.WriteString("\n## " + title + "\n")
			started = true
		}
		b.WriteString("- " + line(s.Memory, dates) + "\n")
	}
}

func line(m store.Memory, dates bool) string {
	text := oneLine(m.Content, maxLineLen)
	date := m.ValidFrom.Format("2006-01-02")
	switch {
	case m.Type == store.MemoryEpisode:
		return date + ": " + text
	case m.Type == store.MemoryProjectState:
		return text + " (as of " + date + ")"
	case dates:
		return text + " (said " + date + ")"
	}
	return text
}

// oneLine collapses whitespace and cuts text to at most max bytes at a
// rune boundary.
func oneLine(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= max {
		return s
	}
	cut := max - len("…")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
