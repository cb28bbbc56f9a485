package evolve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/metaclaw/metaclaw/app/learner/llm"
	"github.com/metaclaw/metaclaw/app/learner/redact"
	"github.com/metaclaw/metaclaw/app/learner/skills"
	"github.com/metaclaw/metaclaw/store"
	"github.com/metaclaw/metaclaw/store/config"
)

// Asks are requests a skill is the right help for, in the words people
// use: a symptom, an error message, a goal, sometimes another language.
// The skills index searches them as a field of their own, so that a
// request finds a skill whose own text names only the fix. The model
// writes them from the skill's text alone, one skill a call, the way
// document expansion (doc2query) writes the questions a passage answers.

// asksSystem and asksPrompt are what the model is shown for one skill;
// the skill's SKILL.md follows asksPrompt.
const (
	asksSystem = "You write realistic example requests that one of an AI agent's skills is the right help for. Answer with JSON only."
	asksPrompt = `An AI agent has a library of skills and must pick the ones that fit each request it gets. Below is one skill from that library. Write 10 requests for which this skill is the right help, the way people really send them to an agent:
- most describe the situation in the person's own words — a symptom, an error message, a goal, a complaint — without the skill's name and often without its technical terms;
- some are direct asks; mix short and long, casual and precise;
- one or two are written in another language the person might use (Spanish, Italian, German, Portuguese or French);
- no two alike; each on its own, at most 30 words.
Answer with JSON only, in this form: {"asks": ["...", "..."]}

Skill:
`
	// minAsks is the fewest asks an answer must give to be kept.
	minAsks = 3

	// asksInPrompt is the user message for asks in other languages, with
	// the languages and the form of the answer filled in (AsksInPrompt);
	// the skill's SKILL.md follows it.
	asksInPrompt = `An AI agent has a library of skills and must pick the ones that fit each request it gets. The person who uses it often writes in these languages: %s. Below is one skill from that library. For each of these languages, write 5 requests for which this skill is the right help, the way people who speak that language really send them to an agent:
- most describe the situation in the person's own words — a symptom, an error message, a goal, a complaint — without the skill's name and often without its technical terms;
- some are direct asks; mix short and long, casual and precise;
- keep commands, code, file names and product names as they are;
- no two alike; each on its own, at most 30 words.
Answer with JSON only, in this form: %s

Skill:
`
)

// AsksInPrompt is the user message the model is shown for sk's asks in
// langs (codes of config.AskLanguages), redacted.
func AsksInPrompt(sk store.Skill, langs []string) string {
	sk.Asks, sk.AsksIn = nil, nil
	names := make([]string, len(langs))
	form := make([]string, len(langs))
	for i, l := range langs {
		names[i] = fmt.Sprintf("%s (%s)", config.LanguageName(l), l)
		form[i] = fmt.Sprintf("%q: [\"...\", \"...\"]", l)
	}
	return fmt.Sprintf(asksInPrompt, strings.Join(names, ", "), "{"+strings.Join(form, ", ")+"}") +
		redact.Redact(string(skills.Format(sk)))
}

// AsksPrompt is the user message the model is shown for sk, redacted as
// everything the evolver sends.
func AsksPrompt(sk store.Skill) string {
	sk.Asks = nil
	return asksPrompt + redact.Redact(string(skills.Format(sk)))
}

// AsksResult says what one WriteAsks run did.
type AsksResult struct {
	Written int           // skills given asks
	Failed  []AsksFailure // skills whose answer gave no usable asks
	Left    int           // skills still without asks (beyond the run's limit or failed)
}

// WriteAsks has the model write the asks of enabled skills whose current
// version has none, at most limit of them (0: all), skipping those skip
// reports true for (skills that failed before). It stops at the first
// error that is not one skill's (the context ending, the model's daily
// budget, the database).
func (e *Evolver) WriteAsks(ctx context.Context, limit int, skip func(store.Skill) bool) (AsksResult, error) {
	return e.writeEach(ctx, limit, skip, func(sk store.Skill) bool { return len(sk.Asks) == 0 },
		func(ctx context.Context, sk store.Skill) (func() error, error) {
			asks, err := e.asksFor(ctx, sk)
			if err != nil {
				return nil, err
			}
			return func() error { return e.db.SetSkillAsks(ctx, sk.Name, sk.Version, asks) }, nil
		})
}

// WriteAsksIn has the model write, for enabled skills whose current
// version lacks asks in one of langs (language codes, AskLanguages), the
// asks in those languages: one call a skill for all it lacks, at most
// limit skills (0: all), as WriteAsks does.
//
// The asks are searched only for requests in one of those languages
// (store.Language), and the index tells apart retrieval.MaxPassages of a
// skill's lines in them (skills.AsksInLines): five asks a language up to
// three languages, fewer beyond.
func (e *Evolver) WriteAsksIn(ctx context.Context, langs []string, limit int, skip func(store.Skill) bool) (AsksResult, error) {
	missing := func(sk store.Skill) []string {
		var out []string
		for _, l := range langs {
			if len(sk.AsksIn[l]) == 0 {
				out = append(out, l)
			}
		}
		return out
	}
	return e.writeEach(ctx, limit, skip, func(sk store.Skill) bool { return len(missing(sk)) > 0 },
		func(ctx context.Context, sk store.Skill) (func() error, error) {
			want := missing(sk)
			got, err := e.asksInFor(ctx, sk, want)
			if err != nil {
				return nil, err
			}
			var lacking []string
			for _, l := range want {
				if got[l] == nil {
					lacking = append(lacking, l)
				}
			}
			save := func() error {
				for l, asks := range got {
					if err := e.db.SetSkillAsksIn(ctx, sk.Name, sk.Version, l, asks); err != nil {
						return err
					}
				}
				return nil
			}
			if len(lacking) > 0 {
				// Keep what came; the skill counts as failed, so that the
				// languages still lacking are asked for a few times only.
				return save, &answerError{fmt.Sprintf("the answer gives fewer than %d asks in %s", minAsks, strings.Join(lacking, ", "))}
			}
			return save, nil
		})
}

// writeEach runs ask on every enabled skill that needs it and skip
// spares, at most limit of them (0: all), and then the save it returns
// (which an answerError may come with: part of an answer to keep). An
// answerError from ask is that skill's failure and any other error ends
// the run; from save, store.ErrNotFound is a skill that changed meanwhile
// and any other error ends the run.
func (e *Evolver) writeEach(ctx context.Context, limit int, skip, needs func(store.Skill) bool,
	ask func(context.Context, store.Skill) (save func() error, err error)) (AsksResult, error) {
	var res AsksResult
	all, err := e.db.Skills(ctx, false)
	if err != nil {
		return res, err
	}
	var todo []store.Skill
	for _, sk := range all {
		if needs(sk) && (skip == nil || !skip(sk)) {
			todo = append(todo, sk)
		}
	}
	for i, sk := range todo {
		if limit > 0 && res.Written+len(res.Failed) >= limit {
			res.Left = len(todo) - i
			break
		}
		save, err := ask(ctx, sk)
		switch {
		case err == nil:
			err = save()
			if errors.Is(err, store.ErrNotFound) {
				continue // changed meanwhile: the next run writes the new version's
			}
			if err != nil {
				return res, err
			}
			res.Written++
		case ctx.Err() != nil:
			res.Left = len(todo) - i
			return res, ctx.Err()
		case errors.As(err, new(*answerError)):
			if save != nil {
				if err := save(); err != nil && !errors.Is(err, store.ErrNotFound) {
					return res, err
				}
			}
			res.Failed = append(res.Failed, AsksFailure{Name: sk.Name, Version: sk.Version, Why: err.Error()})
		default:
			// The model could not be reached or refused the call (its
			// budget, its key): the other skills would fail alike.
			res.Left = len(todo) - i
			return res, fmt.Errorf("write asks of %s: %w", sk.Name, err)
		}
	}
	res.Left += len(res.Failed)
	return res, nil
}

// AsksFailure is a skill version whose answer gave no usable asks.
type AsksFailure struct {
	Name    string
	Version int
	Why     string
}

// answerError is a model answer that gives no usable asks.
type answerError struct{ why string }

func (a *answerError) Error() string { return a.why }

// asksFor asks the model for one skill's asks.
func (e *Evolver) asksFor(ctx context.Context, sk store.Skill) ([]string, error) {
	callCtx, cancel := context.WithTimeout(ctx, e.timeout)
	defer cancel()
	answer, err := e.client.Complete(callCtx, asksSystem, AsksPrompt(sk), llm.Options{Temperature: 0.7, MaxTokens: 1200, JSON: true})
	if err != nil {
		return nil, err
	}
	return ParseAsks(answer)
}

// asksInFor asks the model for one skill's asks in langs.
func (e *Evolver) asksInFor(ctx context.Context, sk store.Skill, langs []string) (map[string][]string, error) {
	callCtx, cancel := context.WithTimeout(ctx, e.timeout)
	defer cancel()
	answer, err := e.client.Complete(callCtx, asksSystem, AsksInPrompt(sk, langs),
		llm.Options{Temperature: 0.7, MaxTokens: 600 + 400*len(langs), JSON: true})
	if err != nil {
		return nil, err
	}
	return ParseAsksIn(answer, langs)
}

// ParseAsksIn reads a model's answer for asks in langs: {"de": [...],
// "es": [...]}, possibly inside a code fence or after some words. A
// language with fewer than three asks, or not asked for, is left out;
// an answer that leaves out every language is an error.
func ParseAsksIn(answer string, langs []string) (map[string][]string, error) {
	s := strings.TrimSpace(answer)
	if i := strings.IndexByte(s, '{'); i >= 0 {
		if j := strings.LastIndexByte(s, '}'); j > i {
			s = s[i : j+1]
		}
	}
	var raw map[string][]string
	if err := json.Unmarshal([]byte(s), &raw); err != nil {
		return nil, &answerError{"the answer is not {\"<language>\": [...]}: " + shorten(answer, 120)}
	}
	out := map[string][]string{}
	for _, l := range langs {
		if asks := skills.NormAsks(raw[l]); len(asks) >= minAsks {
			out[l] = asks
		}
	}
	if len(out) == 0 {
		return nil, &answerError{fmt.Sprintf("the answer gives at least %d asks in none of %s", minAsks, strings.Join(langs, ", "))}
	}
	return out, nil
}

// ParseAsks reads a model's answer: {"asks": [...]}, possibly inside a
// Markdown code fence or after some words. The asks are normalised
// (skills.NormAsks); fewer than three is an error.
func ParseAsks(answer string) ([]string, error) {
	s := strings.TrimSpace(answer)
	if i := strings.IndexByte(s, '{'); i >= 0 {
		if j := strings.LastIndexByte(s, '}'); j > i {
			s = s[i : j+1]
		}
	}
	var out struct {
		Asks []string `json:"asks"`
	}
	if err := json.Unmarshal([]byte(s), &out); err != nil {
		return nil, &answerError{"the answer is not {\"asks\": [...]}: " + shorten(answer, 120)}
	}
	asks := skills.NormAsks(out.Asks)
	if len(asks) < minAsks {
		return nil, &answerError{fmt.Sprintf("the answer gives %d asks, fewer than %d", len(asks), minAsks)}
	}
	return asks, nil
}
