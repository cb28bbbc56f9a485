package memory

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/metaclaw/metaclaw/app/learner/llm"
	"github.com/metaclaw/metaclaw/app/learner/usage"
	"github.com/metaclaw/metaclaw/store"
)

// Completer is what extraction needs of a model client (*llm.Client).
type Completer interface {
	Complete(ctx context.Context, system, user string, opts llm.Options) (string, error)
}

var _ Completer = (*llm.Client)(nil)

// ExtractTimeout bounds one extraction request, retries included.
const ExtractTimeout = 2 * time.Minute

// SystemPrompt is the extraction model's instruction. Its first line
// identifies extraction requests (the tests' fake model looks for it).
const SystemPrompt = `You maintain the long-term memory of a person's AI assistant.
From the conversation excerpt, extract what is worth remembering about the USER for future conversations, and answer with strict JSON only:
{"memories": [{"type": "preference|fact|project_state|procedure|episode", "topic": "2-5 words naming the subject", "content": "one self-contained sentence", "importance": 0.0-1.0, "confidence": 0.0-1.0, "supersedes": [ids]}]}

Rules:
- Use only what the user said, or what the user clearly accepted from the assistant. The assistant's own suggestions are not facts about the user.
- preference: how the user likes things done; fact: stable facts about the user and their world; project_state: the current state of a project, a decision, a deadline; procedure: steps the user wants followed; episode: at most one sentence summarising what this excerpt achieved, only if notable.
- topic names the subject so that a later change lands on the same topic ("editor theme", "employer", "payments service deadline"). Reuse the topic of an existing memory when it is about the same subject. Two things that can both be true need different topics.
- content is written in the third person ("The user prefers ..."), with names, numbers and dates, and makes sense without the conversation.
- When the user changes or contradicts an existing memory, write the new one and list the old id in "supersedes".
- Never record secrets, passwords, keys or tokens. Skip small talk, one-off requests and anything already remembered in the same words.
- Only the "New conversation" part is to be extracted; the earlier part is context.
- Answer {"memories": []} when nothing is worth remembering.`

// Extractor asks a model for memories.
type Extractor struct {
	c       Completer
	timeout time.Duration
}

// NewExtractor returns an extractor using c.
func NewExtractor(c Completer) *Extractor { return &Extractor{c: c, timeout: ExtractTimeout} }

// Excerpt is what one extraction request reads.
type Excerpt struct {
	Known   []store.Memory // existing memories the answer may supersede
	Context []Exchange     // earlier exchanges, already extracted: context only
	New     []Exchange     // the exchanges to extract from
}

// Extract asks the model for the memories of an excerpt. Supersedes ids
// that are not among ex.Known are dropped, and so is a memory that repeats
// a known one word for word: models echo what they are shown, and an echo
// is not the user saying it again (a restatement in other words still
// reinforces the memory).
func (x *Extractor) Extract(ctx context.Context, ex Excerpt) ([]Candidate, error) {
	ctx, cancel := context.WithTimeout(ctx, x.timeout)
	defer cancel()
	answer, err := x.c.Complete(ctx, SystemPrompt, UserPrompt(ex), llm.Options{Temperature: 0, MaxTokens: 1500, JSON: true})
	if err != nil {
		return nil, fmt.Errorf("extract memories: %w", err)
	}
	cands, err := ParseExtraction(answer)
	if err != nil {
		return nil, usage.NewAnswerError(err, answer)
	}
	known, echoes := map[int64]bool{}, map[string]bool{}
	for _, m := range ex.Known {
		known[m.ID], echoes[store.ContentKey(m.Content)] = true, true
	}
	out := cands[:0]
	for _, c := range cands {
		kept := c.Supersedes[:0]
		for _, id := range c.Supersedes {
			if known[id] {
				kept = append(kept, id)
			}
		}
		c.Supersedes = kept
		if !echoes[store.ContentKey(c.Content)] {
			out = append(out, c)
		}
	}
	return out, nil
}

// UserPrompt renders an excerpt for the extraction model.
func UserPrompt(ex Excerpt) string {
	var b strings.Builder
	b.WriteString("Existing memories (id | type | topic | content):\n")
	if len(ex.Known) == 0 {
		b.WriteString("(none)\n")
	}
	for _, m := range ex.Known {
		fmt.Fprintf(&b, "[%d] %s | %s | %s\n", m.ID, m.Type, oneLine(m.Topic, maxTopicLen), oneLine(m.Content, maxContentLen))
	}
	if len(ex.Context) > 0 {
		b.WriteString("\nEarlier in the conversation (context only):\n")
		writeExchanges(&b, ex.Context)
	}
	b.WriteString("\nNew conversation:\n")
	writeExchanges(&b, ex.New)
	return b.String()
}

func writeExchanges(b *strings.Builder, exs []Exchange) {
	for _, ex := range exs {
		if !ex.At.IsZero() {
			fmt.Fprintf(b, "--- %s\n", ex.At.Format("2006-01-02 15:04"))
		}
		if ex.User != "" {
			b.WriteString("USER: " + ex.User + "\n")
		}
		if ex.Assistant != "" {
			b.WriteString("ASSISTANT: " + ex.Assistant + "\n")
		}
	}
}
