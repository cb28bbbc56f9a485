package tokenizer

import (
	"golang.org/x/text/unicode/norm"
)

// Tokenizer encodes and decodes text for one byte-level BPE vocabulary. It
// is safe for concurrent use.
type Tokenizer struct {
	model      *bpe
	forms      []norm.Form
	steps      []splitStep
	rawAdded   *addedMatcher // added tokens matched on the raw text
	normAdded  *addedMatcher // added tokens matched after normalisation
	addedIDs   map[string]int
	tokens     []string // token text by id: byte-level form, or an added token's content
	added      []bool   // by id: an added token, decoded as its content
	special    []bool   // by id
	addedSlice []AddedToken
	scanner    scanner // set when the whole pre-tokeniser is one scanner split
	chunked    bool    // Kimi's encode: cut long texts and long runs first (chunks)
}

func newTokenizer(model *bpe, added []AddedToken, forms []norm.Form, steps []splitStep) *Tokenizer {
	t := &Tokenizer{model: model, forms: forms, steps: steps, addedIDs: map[string]int{}}
	size := 0
	for _, id := range model.vocab {
		size = max(size, id+1)
	}
	for _, a := range added {
		size = max(size, a.ID+1)
	}
	t.tokens = make([]string, size)
	t.added = make([]bool, size)
	t.special = make([]bool, size)
	for tok, id := range model.vocab {
		if id >= 0 {
			t.tokens[id] = tok
		}
	}
	var raw, normalized []AddedToken
	for _, a := range added {
		if a.ID < 0 {
			continue
		}
		t.tokens[a.ID], t.added[a.ID], t.special[a.ID] = a.Content, true, a.Special
		t.addedIDs[a.Content] = a.ID
		t.addedSlice = append(t.addedSlice, a)
		if a.Normalized && len(forms) > 0 {
			normalized = append(normalized, a)
		} else {
			raw = append(raw, a)
		}
	}
	t.rawAdded, t.normAdded = newAddedMatcher(raw), newAddedMatcher(normalized)
	if len(steps) == 1 {
		if p, ok := steps[0].(*patternSplit); ok && p.behavior == behaviorIsolated && !p.invert {
			t.scanner, _ = p.finder.(scanner)
		}
	}
	return t
}

// Encode returns the token ids of text. Added tokens (such as
// <|im_start|>) written in the text are recognised as single tokens, as
// in Hugging Face's encode(text, add_special_tokens=False). Invalid UTF-8
// is encoded byte by byte.
func (t *Tokenizer) Encode(text string) []int {
	ids := make([]int, 0, len(text)/2+1)
	if t.chunked {
		chunks(text, func(c string) { ids = t.encodeAdded(c, ids) })
		return ids
	}
	return t.encodeAdded(text, ids)
}

// encodeAdded appends the ids of text, recognising added tokens.
func (t *Tokenizer) encodeAdded(text string, ids []int) []int {
	for _, seg := range t.rawAdded.split(text, nil) {
		if seg.id >= 0 {
			ids = append(ids, seg.id)
			continue
		}
		ids = t.encodeNormalized(normalize(t.forms, seg.text), ids)
	}
	return ids
}

// encodeNormalized encodes normalised text, matching the added tokens
// that are matched after normalisation.
func (t *Tokenizer) encodeNormalized(text string, ids []int) []int {
	for _, seg := range t.normAdded.split(text, nil) {
		if seg.id >= 0 {
			ids = append(ids, seg.id)
			continue
		}
		ids = t.encodePlain(seg.text, ids)
	}
	return ids
}

// encodePlain pre-tokenises text and runs the model on each piece.
func (t *Tokenizer) encodePlain(text string, ids []int) []int {
	if text == "" {
		return ids
	}
	if g := t.scanner; g != nil { // Qwen, Llama 3: split and encode in one pass
		for i := 0; i < len(text); {
			end := g.match(text, i)
			ids = t.model.encodePiece(text[i:end], ids)
			i = end
		}
		return ids
	}
	var buf [256]string
	for _, piece := range preTokenize(t.steps, text, buf[:0]) {
		ids = t.model.encodePiece(piece, ids)
	}
	return ids
}

// EncodeOrdinary returns the token ids of text with no added token
// recognised: "<|im_end|>" in the text is encoded as ordinary characters.
// Use it for text that must not be able to forge control tokens.
func (t *Tokenizer) EncodeOrdinary(text string) []int {
	ids := make([]int, 0, len(text)/3+1)
	if t.chunked {
		chunks(text, func(c string) { ids = t.encodePlain(c, ids) })
		return ids
	}
	return t.encodePlain(normalize(t.forms, text), ids)
}

// TokenID returns the id of a token: an added token's content (such as
// "<|im_end|>") or a vocabulary entry in its byte-level spelling (such as
// "Ġthe" for " the").
func (t *Tokenizer) TokenID(token string) (int, bool) {
	if id, ok := t.addedIDs[token]; ok {
		return id, true
	}
	id, ok := t.model.vocab[token]
	return id, ok
}

// Token returns the token with the given id, spelled as TokenID takes it.
func (t *Tokenizer) Token(id int) (string, bool) {
	if id < 0 || id >= len(t.tokens) {
		return "", false
	}
	if t.tokens[id] == "" && !t.added[id] {
		return "", false
	}
	return t.tokens[id], true
}

// IsSpecial reports whether id is an added token marked special (such as
// <|im_end|>); callers that relay text to a user usually leave those out.
func (t *Tokenizer) IsSpecial(id int) bool {
	return id >= 0 && id < len(t.special) && t.special[id]
}

// VocabSize returns one more than the largest token id.
func (t *Tokenizer) VocabSize() int {
	return len(t.tokens)
}

// AddedTokens returns the added tokens, in the order of tokenizer.json.
func (t *Tokenizer) AddedTokens() []AddedToken {
	return append([]AddedToken(nil), t.addedSlice...)
}
