package tokenizer

import "unicode/utf8"

// byteRunes maps each byte to the printable rune that stands for it in a
// byte-level vocabulary (GPT-2's bytes_to_unicode): printable Latin-1
// bytes stand for themselves, the others for U+0100 onwards in order.
var byteRunes [256]rune

// runeBytes is the inverse of byteRunes: runeBytes[r] is the byte r
// stands for, or -1. Every rune of byteRunes is below 0x144.
var runeBytes [0x144]int16

// byteStrings holds string(byteRunes[b]) for each byte b.
var byteStrings [256]string

func init() {
	for r := range runeBytes {
		runeBytes[r] = -1
	}
	next := rune(256)
	for b := 0; b < 256; b++ {
		printable := (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF)
		if printable {
			byteRunes[b] = rune(b)
		} else {
			byteRunes[b] = next
			next++
		}
		runeBytes[byteRunes[b]] = int16(b)
		byteStrings[b] = string(byteRunes[b])
	}
}

// byteLevel returns s with every byte replaced by the rune that stands for
// it.
func byteLevel(s string) string {
	buf := make([]byte, 0, len(s)*2)
	for i := 0; i < len(s); i++ {
		buf = utf8.AppendRune(buf, byteRunes[s[i]])
	}
	return string(buf)
}

// unByteLevel appends to dst the bytes a byte-level token stands for. ok
// is false, and nothing is appended, when some rune of tok stands for no
// byte (an added token written in plain text).
func unByteLevel(dst []byte, tok string) (out []byte, ok bool) {
	n := len(dst)
	for _, r := range tok {
		if r < 0 || int(r) >= len(runeBytes) || runeBytes[r] < 0 {
			return dst[:n], false
		}
		dst = append(dst, byte(runeBytes[r]))
	}
	return dst, true
}
