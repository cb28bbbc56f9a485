package retrieval

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/metaclaw/metaclaw/app/learner/internal/stem"
	"github.com/metaclaw/metaclaw/store"
)

// Terms returns the index terms of text: words split on anything but
// letters and digits and at camel-case humps ("ModuleNotFoundError" is
// module, not, found, error), lower-cased, one-letter words dropped, and
// stemmed. Documents are indexed with every term; skip drops words from
// queries (nil keeps all).
func Terms(text string, skip func(word string) bool) []string {
	var out []string
	forEachWord(text, func(w string) {
		w = strings.ToLower(w)
		if utf8.RuneCountInString(w) < 2 || skip != nil && skip(w) {
			return
		}
		out = append(out, stem.Stem(w))
	})
	return out
}

// QuerySkip drops the words of a query that carry no meaning for
// retrieval: stop words, and words every request uses.
func QuerySkip(w string) bool { return store.IsStopWord(w) || requestWords[w] }

// requestWords are words of requests that say nothing about the task: a
// document that shares only them with a request does not fit it. Besides
// English's, the same words of the other languages the asks come in
// (store.Language): "can you", "I want", "tell me", "something",
// "never", "now"; none is an English word that names a task.
var requestWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`please pls plz help thanks thank hi hello hey can could would should
		want need like let me my you your we our us im ive id dont doesnt didnt cant wont isnt
		something anything everything thing things stuff way really just also still maybe
		ok okay yes yeah sure right now today again actually figure find look make tell give get got know
		think start keep put try see show going wanted trying done lol re ll ve
		gracias hola obrigado obrigada olá oi grazie ciao merci bonjour salut danke hallo bitte
		ayuda ayúdame puedes podrías quiero quería necesito gustaría saber sé creo hacer haz dime dame
		mira favor vale bueno pues algo nada siempre nunca ahora aquí eso así también tampoco bien
		ajuda ajudar podes podia queria preciso gostaria sei acho fazer faz diz diga olha algo nada tudo
		sempre nunca agora aqui assim vai vou quer bem
		aiuto aiutami puoi potresti vorrei voglio devo bisogno sapere penso fare fai dimmi dammi vedere
		guarda favore qualcosa niente tutto sempre mai adesso ora qui così bene
		aide aider aidez peux pouvez pourrais voudrais veux dois besoin savoir sais pense faire fais dis
		dites voir regarde quelque rien tout toujours jamais maintenant ici ainsi bien
		hilfe hilf helfen kannst könntest würde möchte muss brauche wissen weiß denke machen mach macht
		sag sagen zeig sehen schau etwas nichts alles immer nie jetzt hier mal eigentlich einfach`) {
		m[w] = true
	}
	return m
}()

// forEachWord calls f with every word of text: maximal runs of letters
// and digits, split again where a lower-case letter or digit is followed
// by an upper-case one, or an upper-case run by a capitalised word
// ("HTTPServer" is HTTP, Server).
func forEachWord(text string, f func(string)) {
	start := -1
	var prev, prev2 rune
	for i, r := range text {
		word := unicode.IsLetter(r) || unicode.IsDigit(r)
		switch {
		case !word:
			if start >= 0 {
				f(text[start:i])
			}
			start = -1
		case start < 0:
			start = i
		case unicode.IsUpper(r) && (unicode.IsLower(prev) || unicode.IsDigit(prev)):
			f(text[start:i])
			start = i
		case unicode.IsLower(r) && unicode.IsUpper(prev) && unicode.IsUpper(prev2) && i-utf8.RuneLen(prev) > start:
			cut := i - utf8.RuneLen(prev)
			f(text[start:cut])
			start = cut
		}
		prev2, prev = prev, r
		if !word {
			prev2, prev = 0, 0
		}
	}
	if start >= 0 {
		f(text[start:])
	}
}
