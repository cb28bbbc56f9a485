package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log"
	"path/filepath"
	"time"

	"github.com/metaclaw/metaclaw/app/learner/evalsets"
)

// pair is one exchange: what the person said and the assistant's answer.
// key names the fact it holds, for questions to point at ("" = none).
type pair struct {
	key, user, assistant string
}

type msession struct {
	person, date string // date: 2006-01-02 15:04
	pairs        []pair
}

type question struct {
	id, person, asked, kind, text, answer string
	keys                                  []string
}

func p(key, user, assistant string) pair { return pair{key, user, assistant} }

// writeMemory writes the conversations (the people's sessions, with
// everyday filler sessions among them) and the questions.
func writeMemory(dir string) {
	var convs []evalsets.Conversation
	where := map[string]evalsets.Evidence{}
	count := map[string]int{}
	add := func(s msession) {
		count[s.person]++
		id := fmt.Sprintf("%s-%02d", s.person, count[s.person])
		at, err := time.Parse("2006-01-02 15:04", s.date)
		if err != nil {
			log.Fatalf("session %s: %v", id, err)
		}
		c := evalsets.Conversation{Person: s.person, SessionID: id, Date: at.UTC()}
		for i, pr := range s.pairs {
			if pr.key != "" {
				if _, dup := where[pr.key]; dup {
					log.Fatalf("fact key %s repeats", pr.key)
				}
				where[pr.key] = evalsets.Evidence{SessionID: id, Turn: 2 * i}
			}
			c.Turns = append(c.Turns, evalsets.Message{Role: "user", Text: pr.user}, evalsets.Message{Role: "assistant", Text: pr.assistant})
		}
		convs = append(convs, c)
	}
	for _, s := range allSessions() {
		add(s)
	}
	var qs []evalsets.Question
	for _, q := range questions {
		at, err := time.Parse("2006-01-02 15:04", q.asked)
		if err != nil {
			log.Fatalf("question %s: %v", q.id, err)
		}
		eq := evalsets.Question{ID: q.id, Person: q.person, AskedAt: at.UTC(), Question: q.text, Answer: q.answer, Kind: q.kind}
		for _, k := range q.keys {
			ev, ok := where[k]
			if !ok {
				log.Fatalf("question %s: no fact %s", q.id, k)
			}
			eq.Evidence = append(eq.Evidence, ev)
		}
		qs = append(qs, eq)
	}
	write(filepath.Join(dir, "conversations.jsonl"), jsonLines(convs))
	write(filepath.Join(dir, "questions.jsonl"), jsonLines(qs))
	fmt.Printf("wrote %d sessions, %d questions\n", len(convs), len(qs))
}

func jsonLines[T any](items []T) []byte {
	var buf bytes.Buffer
	for _, it := range items {
		b, err := json.Marshal(it)
		if err != nil {
			log.Fatal(err)
		}
		buf.Write(b)
		buf.WriteByte('\n')
	}
	return buf.Bytes()
}

// allSessions interleaves each person's sessions with everyday filler
// sessions (cooking, trivia, small tasks) that share their vocabulary.
func allSessions() []msession {
	var out []msession
	out = append(out, mayaSessions...)
	out = append(out, tomSessions...)
	out = append(out, lenaSessions...)
	out = append(out, rajSessions...)
	out = append(out, nearMisses...)
	for i, f := range fillers {
		for j, person := range []string{"maya", "tom", "lena", "raj"} {
			day := time.Date(2026, 9, 3, 19, 0, 0, 0, time.UTC).AddDate(0, 0, 3*i+j)
			out = append(out, msession{person: person, date: day.Format("2006-01-02 15:04"), pairs: []pair{f[(j)%len(f)], f[(j+1)%len(f)]}})
		}
	}
	for i, h := range haystack {
		for j, person := range []string{"maya", "tom", "lena", "raj"} {
			day := time.Date(2026, 9, 1, 12, 0, 0, 0, time.UTC).AddDate(0, 0, (7*i+11*j)%88)
			out = append(out, msession{person: person, date: day.Format("2006-01-02 15:04"), pairs: h})
		}
	}
	return out
}

// fillers are exchanges anyone might have; each filler session takes two.
var fillers = [][]pair{
	{p("", "what can I cook with chickpeas, spinach and a tin of tomatoes?", "A quick chana saag: fry onion and garlic, add spices, tomatoes, chickpeas, then wilt the spinach."),
		p("", "how long do I simmer it?", "About 15 minutes, until the sauce thickens.")},
	{p("", "explain the difference between a Roth IRA and a traditional IRA", "Traditional: tax break now, taxed on withdrawal. Roth: taxed now, tax-free later."),
		p("", "which one is better if I expect a higher income later?", "Usually the Roth, since you pay tax at today's lower rate.")},
	{p("", "what's a good stretching routine after running?", "Calf stretch, hamstring stretch, quad stretch and hip flexor lunge, 30 seconds each."),
		p("", "should I stretch before too?", "Do a dynamic warm-up before and static stretches after.")},
	{p("", "write a short birthday message for a coworker", "Happy birthday! Thanks for all the help this year — enjoy your day."),
		p("", "make it a bit funnier", "Happy birthday! Another year of pretending to understand the quarterly reports together.")},
	{p("", "how do I get red wine out of a carpet?", "Blot, don't rub; dab with cold water and dish soap, then a mix of hydrogen peroxide and soap for old stains."),
		p("", "it's a wool rug", "Skip the peroxide on wool; use cold water, a little wool-safe detergent and blot dry.")},
	{p("", "recommend a podcast about history", "Try 'The Rest Is History' or 'Hardcore History'."),
		p("", "something shorter?", "'History Extra' episodes are often under 40 minutes.")},
	{p("", "what's the difference between baking soda and baking powder?", "Baking powder contains an acid already; baking soda needs an acid in the recipe."),
		p("", "can I substitute one for the other?", "Use about three times as much baking powder as soda, and expect a slightly different taste.")},
	{p("", "how do I convert a Word document to PDF on a Mac?", "Open it in Pages or Word and choose File > Export To > PDF, or print to PDF."),
		p("", "and merge two PDFs?", "Open one in Preview, show thumbnails, and drag the other file in.")},
	{p("", "tips for sleeping better?", "Keep a regular schedule, a dark cool room, no screens an hour before bed, less caffeine after noon."),
		p("", "what about naps?", "Keep naps under 30 minutes and before 3pm.")},
	{p("", "how often should I water a snake plant?", "Every two to three weeks; let the soil dry out completely."),
		p("", "it has brown tips", "Usually too much water or very dry air; trim the tips and water less.")},
	{p("", "give me a 20 minute bodyweight workout", "Three rounds: 15 squats, 10 push-ups, 20 lunges, 30-second plank, 15 glute bridges."),
		p("", "make it easier, I'm a beginner", "Two rounds, knee push-ups, and rest a minute between rounds.")},
	{p("", "what's the plot of Middlemarch in two sentences?", "Dorothea Brooke marries the dry scholar Casaubon and regrets it, while the town of Middlemarch follows its own ambitions and failures. It is a study of marriage, vocation and reform."),
		p("", "is it worth reading?", "Yes, if you like slow, deep character novels.")},
	{p("", "how do I make cold brew coffee?", "Coarse grind, 1:8 coffee to water, steep 16-18 hours in the fridge, filter."),
		p("", "can I use a French press?", "Yes, steep in it and press slowly when done.")},
	{p("", "what does APR mean on a credit card?", "The annual percentage rate: the yearly interest on balances you don't pay off."),
		p("", "and APY?", "Annual percentage yield, which includes compounding; used for savings.")},
	{p("", "suggest a name for a grey kitten", "Smokey, Ash, Pepper, Earl Grey or Misty."),
		p("", "something less common", "Nimbus, Graphite or Pebble.")},
}
