package memory

import (
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Time in retrieval. Every memory keeps when it was said (ValidFrom: the
// session's date, an imported memory's original date). A question names
// time in two ways, and retrieval reads both:
//
//   - a period ("last week", "yesterday", "in October", "two months ago",
//     "on 24 October"): memories from that period rank higher (whenBoost),
//     the others lower (whenPenalty), relative to the moment of asking;
//   - an order ("the first time", "at first" / "latest", "now",
//     "currently", "most recent"): among relevant memories the older or
//     the newer ones rank higher;
//
// and any question about time ("when", "what day", "how long ago")
// renders every injected memory with its date, so the answer can be read
// off.
const (
	whenBoost   = 1.5
	whenPenalty = 0.6
	orderWeight = 0.3 // the share of a memory's score that its age decides in an order question
)

// when is what a question says about time.
type when struct {
	from, to time.Time // a period; zero: none
	order    int       // -1 older first, +1 newer first, 0 none
	dates    bool      // the question is about time: render dates
}

var (
	agoRE    = regexp.MustCompile(`\b(a|an|one|two|three|four|five|six|\d+)\s+(day|week|month)s?\s+ago\b`)
	dayRE    = regexp.MustCompile(`\b(?:on\s+)?(?:(\d{1,2})(?:st|nd|rd|th)?\s+(` + monthNames + `)|(` + monthNames + `)\s+(\d{1,2})(?:st|nd|rd|th)?)\b`)
	monthRE  = regexp.MustCompile(`\b(?:in|of|during|since|back in|early|late|mid)\s+(` + monthNames + `)\b`)
	firstRE  = regexp.MustCompile(`\b(first time|at first|originally|initially|the first|my first|our first|earliest|to begin with)\b`)
	latestRE = regexp.MustCompile(`\b(latest|most recent|most recently|currently|current|now|these days|in the end|anymore|still)\b`)
	timeRE   = regexp.MustCompile(`\b(when|what day|which day|what date|how long|ago|since|before|after|first|last|until|date)\b`)
)

const monthNames = `january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec`

var numberWords = map[string]int{"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}

// readWhen reads what a question says about time, relative to now.
func readWhen(q string, now time.Time) when {
	q = strings.ToLower(q)
	w := when{dates: timeRE.MatchString(q)}
	day := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, now.Location())
	span := func(from, to time.Time) { w.from, w.to = from, to }
	switch {
	case strings.Contains(q, "yesterday"):
		span(day.AddDate(0, 0, -1), day)
	case strings.Contains(q, "last weekend") || strings.Contains(q, "this weekend"):
		span(day.AddDate(0, 0, -9), day)
	case strings.Contains(q, "last week") && !strings.Contains(q, "last week of"), strings.Contains(q, "past week"):
		span(day.AddDate(0, 0, -14), day.AddDate(0, 0, 1))
	case strings.Contains(q, "this week"):
		span(day.AddDate(0, 0, -7), day.AddDate(0, 0, 1))
	case strings.Contains(q, "last month"), strings.Contains(q, "past month"):
		span(day.AddDate(0, -2, 0), day.AddDate(0, 0, 1))
	case strings.Contains(q, "recently"), strings.Contains(q, "lately"), strings.Contains(q, "the other day"):
		span(day.AddDate(0, 0, -30), day.AddDate(0, 0, 1))
	case strings.Contains(q, "today"), strings.Contains(q, "this morning"), strings.Contains(q, "tonight"):
		span(day, day.AddDate(0, 0, 1))
	}
	if !strings.Contains(q, " ago") {
		// skip the expression: most questions name no time
	} else if m := agoRE.FindStringSubmatch(q); m != nil {
		n, ok := numberWords[m[1]]
		if !ok {
			n, _ = strconv.Atoi(m[1])
		}
		unit := map[string]int{"day": 1, "week": 7, "month": 30}[m[2]]
		center := day.AddDate(0, 0, -n*unit)
		half := max(1, unit/2)
		span(center.AddDate(0, 0, -half), center.AddDate(0, 0, half+1))
	}
	if !namesMonth(q) {
		// no month: no date to read
	} else if m := dayRE.FindStringSubmatch(q); m != nil {
		d, mon := m[1], m[2]
		if d == "" {
			d, mon = m[4], m[3]
		}
		n, _ := strconv.Atoi(d)
		at := lastOccurrence(monthOf(mon), n, now)
		span(at.AddDate(0, 0, -1), at.AddDate(0, 0, 2))
	} else if m := monthRE.FindStringSubmatch(q); m != nil {
		start := lastOccurrence(monthOf(m[1]), 1, now)
		span(start, start.AddDate(0, 1, 0))
	}
	switch {
	case containsAny(q, "first", "original", "initial", "earliest", "begin") && firstRE.MatchString(q):
		w.order = -1
	case containsAny(q, "latest", "recent", "current", "now", "these days", "in the end", "anymore", "still") && latestRE.MatchString(q):
		w.order = 1
	}
	return w
}

// namesMonth reports whether q may name a month (a cheap test before the
// expressions that read dates).
func namesMonth(q string) bool {
	return containsAny(q, "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
}

func containsAny(s string, subs ...string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// monthOf returns the month a name (or its abbreviation) names.
func monthOf(name string) time.Month {
	for m := time.January; m <= time.December; m++ {
		if strings.HasPrefix(strings.ToLower(m.String()), name[:3]) {
			return m
		}
	}
	return time.January
}

// lastOccurrence is the latest date with that month and day not after now
// (this year's, or last year's).
func lastOccurrence(m time.Month, day int, now time.Time) time.Time {
	t := time.Date(now.Year(), m, max(day, 1), 0, 0, 0, 0, now.Location())
	if t.After(now) {
		t = t.AddDate(-1, 0, 0)
	}
	return t
}

// factor is what the question's time does to a memory said at at.
func (w when) factor(at time.Time) float64 {
	if w.from.IsZero() {
		return 1
	}
	if !at.Before(w.from) && at.Before(w.to) {
		return whenBoost
	}
	return whenPenalty
}
