package tokenizer

import (
	"unicode/utf8"
)

// Decode returns the text of ids. Added tokens decode to their content
// (special ones included); the bytes of the other tokens between two added
// tokens are decoded as UTF-8, each ill-formed sequence becoming one
// U+FFFD as in Hugging Face's decoders. Unknown ids are skipped.
func (t *Tokenizer) Decode(ids []int) string {
	var out, run []byte
	for _, id := range ids {
		if id < 0 || id >= len(t.tokens) {
			continue
		}
		if t.added[id] {
			out = appendLossy(out, run)
			out = append(out, t.tokens[id]...)
			run = run[:0]
			continue
		}
		run = appendTokenBytes(run, t.tokens[id])
	}
	return string(appendLossy(out, run))
}

// appendTokenBytes appends the bytes a vocabulary token stands for.
func appendTokenBytes(dst []byte, tok string) []byte {
	if out, ok := unByteLevel(dst, tok); ok {
		return out
	}
	return append(dst, tok...)
}

// Decoder decodes ids one at a time, for relaying text as tokens arrive.
// It returns only whole UTF-8 characters and holds back the bytes of a
// character whose remaining bytes may come with the next tokens. The
// texts it returns, Flush included, add up to Decode of all the ids.
// A Decoder is not safe for concurrent use.
type Decoder struct {
	t       *Tokenizer
	pending []byte // bytes of an unfinished character
}

// NewDecoder returns a streaming decoder.
func (t *Tokenizer) NewDecoder() *Decoder {
	return &Decoder{t: t}
}

// Add decodes one more id and returns the text that is now complete.
func (d *Decoder) Add(id int) string {
	t := d.t
	if id < 0 || id >= len(t.tokens) {
		return ""
	}
	if t.added[id] {
		out := appendLossy(nil, d.pending)
		d.pending = d.pending[:0]
		return string(append(out, t.tokens[id]...))
	}
	d.pending = appendTokenBytes(d.pending, t.tokens[id])
	keep := incompleteTail(d.pending)
	out := string(appendLossy(nil, d.pending[:len(d.pending)-keep]))
	d.pending = append(d.pending[:0], d.pending[len(d.pending)-keep:]...)
	return out
}

// Flush returns what is held back, an unfinished character becoming
// U+FFFD, and resets the decoder.
func (d *Decoder) Flush() string {
	out := string(appendLossy(nil, d.pending))
	d.pending = d.pending[:0]
	return out
}

// incompleteTail returns how many bytes at the end of b are the start of
// a UTF-8 character that more bytes could complete.
func incompleteTail(b []byte) int {
	for k := 1; k <= 3 && k <= len(b); k++ {
		c := b[len(b)-k]
		if c < 0x80 {
			return 0
		}
		if c >= 0xC0 { // a lead byte
			tail := b[len(b)-k:]
			if need, _, _ := seqInfo(c); need > k && validPrefix(tail) == k {
				return k
			}
			return 0
		}
	}
	return 0
}

// appendLossy appends b as UTF-8, with each maximal ill-formed
// subsequence replaced by one U+FFFD.
func appendLossy(dst, b []byte) []byte {
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		if r == utf8.RuneError && n <= 1 {
			n = validPrefix(b)
			dst = append(dst, "\uFFFD"...)
		} else {
			dst = append(dst, b[:n]...)
		}
		b = b[n:]
	}
	return dst
}

// validPrefix returns the length of the longest prefix of b that can
// begin a well-formed UTF-8 character, at least 1.
func validPrefix(b []byte) int {
	need, lo, hi := seqInfo(b[0])
	if need < 2 || len(b) < 2 || b[1] < lo || b[1] > hi {
		return 1
	}
	k := 2
	for k < need && k < len(b) && b[k] >= 0x80 && b[k] <= 0xBF {
		k++
	}
	return k
}

// seqInfo returns the length of the character a lead byte starts and the
// range its second byte must fall in; need is 0 for a byte that starts
// no character.
func seqInfo(c byte) (need int, lo, hi byte) {
	switch {
	case c < 0x80:
		return 1, 0, 0
	case c >= 0xC2 && c <= 0xDF:
		return 2, 0x80, 0xBF
	case c == 0xE0:
		return 3, 0xA0, 0xBF
	case c == 0xED:
		return 3, 0x80, 0x9F
	case c >= 0xE1 && c <= 0xEF:
		return 3, 0x80, 0xBF
	case c == 0xF0:
		return 4, 0x90, 0xBF
	case c >= 0xF1 && c <= 0xF3:
		return 4, 0x80, 0xBF
	case c == 0xF4:
		return 4, 0x80, 0x8F
	}
	return 0, 0, 0
}
