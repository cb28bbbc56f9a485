package retrieval

import (
	"strings"

	"github.com/metaclaw/metaclaw/app/learner/redact"
	"github.com/metaclaw/metaclaw/proxy/learning"
	"github.com/metaclaw/metaclaw/store"
)

// Message is one message of a conversation, reduced to role and text: the
// type the proxy hands its injectors (learning.Message).
type Message = learning.Message

// MaxQueryLen bounds each part of a request, in bytes.
const MaxQueryLen = 2000

// Weights of a request's parts in its query: the instruction counts
// fully, what it pasted less (it says what failed, the instruction what
// to do), and the person's earlier messages of the session less again
// (a follow-up such as "and make it run nightly" leans on them, a change
// of subject must not).
const (
	WeightPaste    = 0.6
	WeightContext1 = 0.3
	WeightContext2 = 0.15
	WeightTool     = 0.5
	// WeightDocument is the weight of a document the instruction hands
	// over (see splitDocument): what the work is about, not what it is.
	WeightDocument = 0.3
)

// Request is what a person is asking now, read out of a conversation.
type Request struct {
	Instruction string   // the latest human message, cleaned, pasted text and document removed
	Document    string   // the prose it hands over to work on (notes, an e-mail, an article)
	Paste       string   // what it pasted, reduced to kinds, error lines and identifiers
	Tool        string   // the failures its tool loop's latest results report, reduced likewise
	Context     []string // the person's earlier messages, newest first (at most 2), cleaned
}

// Read finds what the person is asking now: the latest user message that
// holds anything once agent wrappers are removed (Clean). In an agent's
// tool loop that is the instruction the loop works on — the messages
// after it are the assistant's tool calls, their results (role tool, or
// user messages of tool results and reminders only) and the agent's own
// notes, which never enter the query, nor do system prompts; only the
// failures the loop's latest tool results report do (see toolFailures). A NanoClaw
// envelope's newest message is the instruction, the ones before it its
// context.
func Read(msgs []Message) Request {
	var r Request
	var earlier, tools []string
	for i := len(msgs) - 1; i >= 0 && len(earlier) < 2; i-- {
		if msgs[i].Role == "tool" && r.Empty() && len(tools) < maxToolResults {
			tools = append(tools, msgs[i].Text)
		}
		if msgs[i].Role != "user" {
			continue
		}
		t := Clean(msgs[i].Text)
		if t == "" {
			continue
		}
		if r.Empty() {
			lines := strings.Split(t, "\n")
			if strings.Contains(msgs[i].Text, "<message") && len(lines) > 1 {
				// NanoClaw: the newest message, then the others newest first.
				t = lines[len(lines)-1]
				for j := len(lines) - 2; j >= 0 && len(earlier) < 2; j-- {
					earlier = append(earlier, cut(lines[j]))
				}
			}
			prose, paste := splitPaste(t)
			head, doc := splitDocument(prose)
			r.Instruction, r.Document, r.Paste = cut(head), cut(doc), cut(reducePaste(paste))
			if holdsSecret(t) {
				r.Paste = strings.TrimSpace(r.Paste + "\n" + secretKind)
			}
			continue
		}
		prose, _ := splitPaste(t)
		if prose = cut(prose); prose != "" && !filler(prose) {
			earlier = append(earlier, prose)
		}
	}
	r.Context = earlier
	if !r.Empty() {
		r.Tool = toolFailures(tools)
		for _, t := range tools {
			if holdsSecret(t) {
				r.Tool = strings.TrimSpace(r.Tool + "\n" + secretKind)
				break
			}
		}
	}
	return r
}

// secretKind names a message or tool result that shows a credential (a
// password in a URL, an API key, a private key: what redact hides), in
// the words a person would use for it: a request that pastes one, or a
// tool loop whose command printed one, needs handling it safely whatever
// else it asks.
const secretKind = "secret credentials password exposed"

func holdsSecret(text string) bool { return redact.Holds(text[:min(len(text), maxSecretScan)]) }

// maxSecretScan bounds how much of a message or tool result holdsSecret
// reads: a tool result may be megabytes.
const maxSecretScan = 8 << 10

func cut(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > MaxQueryLen {
		s = s[:MaxQueryLen]
	}
	return s
}

// Language is the language the person's instruction is written in:
// "en", the code of another language store.Language tells apart, or ""
// when it cannot tell. An instruction too short to tell ("¿y mañana?",
// "e per domani?") is read with the person's earlier messages: a
// follow-up is in the language of the exchange.
func (r Request) Language() string {
	l := store.Language(r.Instruction)
	if l == "" && len(r.Context) > 0 {
		l = store.Language(r.Instruction + "\n" + strings.Join(r.Context, "\n"))
	}
	return l
}

// Empty reports whether the person said nothing to retrieve on.
func (r Request) Empty() bool { return r.Instruction == "" && r.Document == "" && r.Paste == "" }

// Text is the request as one text (instruction, paste, context): what is
// embedded and shown.
func (r Request) Text() string {
	parts := []string{r.Instruction, r.Document, r.Paste, r.Tool}
	parts = append(parts, r.Context...)
	var out []string
	for _, p := range parts {
		if p != "" {
			out = append(out, p)
		}
	}
	return strings.Join(out, "\n")
}

// Query returns the weighted terms of the request, without the words skip
// drops (nil: QuerySkip). A term in several parts takes its highest
// weight.
func (r Request) Query(skip func(string) bool) Query {
	if skip == nil {
		skip = QuerySkip
	}
	var q Query
	at := map[string]int{}
	add := func(text string, w float64) {
		forEachWord(text, func(word string) {
			lw := strings.ToLower(word)
			if len(lw) < 2 || skip(lw) || numeric(lw) {
				return
			}
			terms := Terms(lw, nil)
			if len(terms) == 0 {
				return
			}
			t := terms[0]
			if i, ok := at[t]; ok {
				if w > q.Terms[i].Weight {
					q.Terms[i].Weight = w
				}
				return
			}
			if len(q.Terms) < MaxQueryTerms {
				at[t] = len(q.Terms)
				q.Terms = append(q.Terms, QueryTerm{Term: t, Word: lw, Weight: w})
			}
		})
	}
	ctx := r.Context
	if r.Paste == "" && r.Tool == "" && len(ctx) > 0 && goOn(r.Instruction) {
		// "go ahead", "yes continue": the task is the message before.
		add(ctx[0], 1)
		ctx = ctx[1:]
	} else {
		add(r.Instruction, 1)
	}
	add(r.Document, WeightDocument)
	add(r.Paste, WeightPaste)
	add(r.Tool, WeightTool)
	for i, c := range ctx {
		w := WeightContext1
		if i > 0 {
			w = WeightContext2
		}
		add(c, w)
	}
	return q
}

// Closing reports whether the person's latest message only closes the
// exchange — thanks, a report that it worked, a goodbye — and asks for
// nothing: "thanks, that worked", "ok the plumber fixed it, all good now",
// "danke, hat super geklappt". No skill fits such a turn, whatever words
// of the finished task it repeats. A message with a question mark, a
// request ("can you", "please", "also", "next", "bitte"), a task's verb
// ("write", "fix", "add"), a sign that something still fails ("but",
// "still", "not"), more than closingMaxWords words, or pasted text or
// tool failures is not one.
func (r Request) Closing() bool {
	if r.Paste != "" || r.Tool != "" || r.Instruction == "" || strings.Contains(r.Instruction, "?") {
		return false
	}
	lower := strings.ToLower(r.Instruction)
	closes := strings.Contains(lower, "all good") || strings.Contains(lower, "works now") || strings.Contains(lower, "that did it")
	words, asks := 0, false
	forEachWord(lower, func(w string) {
		words++
		switch {
		case closingWords[w]:
			closes = true
		case closingAsks[w]:
			asks = true
		}
	})
	return closes && !asks && words <= closingMaxWords
}

// closingMaxWords is the longest message Closing takes for one: a longer
// one says more than thanks.
const closingMaxWords = 25

var (
	closingWords = wordSet(`thanks thank thx ty cheers gracias grazie danke dankeschön merci obrigado obrigada
		worked bye goodbye`)
	// closingAsks are the words that make a message ask for something:
	// requests, tasks' verbs (in the imperative or infinitive) and signs that it did not work.
	closingAsks = wordSet(`please pls plz can could would will also next then but still however another again
		instead more not doesn didn isn don won cannot
		add write make fix do create change update run check show help explain send remove delete try use
		build deploy draft plan find look give tell set rename move convert translate summarize review test
		commit push continue start
		bitte kannst können könntest noch aber puedes podrías podrias favor pero todavía peux pourrais mais
		encore puoi potresti però ancora podes pode poderia mas ainda`)
)

// goOn reports whether a message only tells the agent to go on with what
// it was doing ("go ahead", "yes, continue", "ok do it"): its words are
// assent and at least one of going on, nothing else.
func goOn(text string) bool {
	on, other := fillerWords(text)
	return on && !other
}

// filler reports whether a message says nothing but assent or going on
// ("sounds good", "ok", "go ahead"): an earlier message of the kind is no
// context.
func filler(text string) bool {
	_, other := fillerWords(text)
	return !other
}

// fillerWords reports whether text has a word of going on, and one that
// is neither that nor assent.
func fillerWords(text string) (on, other bool) {
	forEachWord(text, func(word string) {
		switch w := strings.ToLower(word); {
		case goOnWords[w]:
			on = true
		case assentWords[w]:
		default:
			other = true
		}
	})
	return on, other
}

var (
	goOnWords   = wordSet("continue proceed ahead go carry on keep going next do it approved approve confirmed confirm resume")
	assentWords = wordSet("yes yep yeah ok okay sure please pls sounds good fine alright right then and with that the so now")
)

func wordSet(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

// numeric reports whether a word is a number: times, sizes and counts
// ("20", "00", "8") say nothing about the task.
func numeric(w string) bool {
	for _, r := range w {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}
