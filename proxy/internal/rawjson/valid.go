package rawjson

import (
	"encoding/binary"
	"math/bits"
)

// Valid reports whether data is one JSON value with optional whitespace
// around it, giving encoding/json.Valid's verdict on every input (bytes
// that are not UTF-8 inside strings are allowed, as there; the callers
// check UTF-8 first), nesting beyond 10,000 levels included. It runs
// without recursion or allocation below 64 levels, and crosses the runs of
// plain bytes in strings, which are most of a chat request, eight at a
// time. FuzzValidAgrees holds it to encoding/json.Valid.
func Valid(data []byte) bool {
	var small [64]byte
	stack := small[:0] // the open containers' opening brackets
	i := 0
	for {
		// A value begins at i.
		i = skipSpace(data, i)
		if i >= len(data) {
			return false
		}
		switch c := data[i]; c {
		case '{', '[':
			if len(stack) == MaxDepth {
				return false
			}
			stack = append(stack, c)
			if i = skipSpace(data, i+1); i < len(data) && data[i] == c+2 { // '}' or ']'
				stack = stack[:len(stack)-1]
				i++
				break
			}
			if c == '{' {
				i = validKey(data, i)
			}
			if i < 0 {
				return false
			}
			continue
		case '"':
			i = validString(data, i)
		case 't':
			i = literal(data, i, "true")
		case 'f':
			i = literal(data, i, "false")
		case 'n':
			i = literal(data, i, "null")
		default:
			i = validNumber(data, i)
		}
		if i < 0 {
			return false
		}
		// After a value: close containers until one goes on with a comma.
		for {
			i = skipSpace(data, i)
			if len(stack) == 0 {
				return i == len(data)
			}
			if i >= len(data) {
				return false
			}
			top := stack[len(stack)-1]
			if data[i] == top+2 {
				stack = stack[:len(stack)-1]
				i++
				continue
			}
			if data[i] != ',' {
				return false
			}
			i++
			if top == '{' {
				if i = validKey(data, skipSpace(data, i)); i < 0 {
					return false
				}
			}
			break
		}
	}
}

// validKey checks a member's key and colon at data[i] and returns the
// index after the colon, or -1.
func validKey(data []byte, i int) int {
	if i >= len(data) || data[i] != '"' {
		return -1
	}
	if i = validString(data, i); i < 0 {
		return -1
	}
	if i = skipSpace(data, i); i >= len(data) || data[i] != ':' {
		return -1
	}
	return i + 1
}

// validString checks the string whose opening quote is data[i] and returns
// the index after its closing quote, or -1.
func validString(data []byte, i int) int {
	const lo, hi = 0x0101010101010101, 0x8080808080808080
	j := i + 1
	for {
		for j+8 <= len(data) {
			// The lowest lane flagged holds a byte below 0x20, a quote
			// or a backslash: a borrow can flag a later lane, never an
			// earlier one.
			x := binary.LittleEndian.Uint64(data[j:])
			q, b := x^('"'*lo), x^('\\'*lo)
			m := ((x - 0x20*lo) &^ x) | ((q - lo) &^ q) | ((b - lo) &^ b)
			if m &= hi; m != 0 {
				j += bits.TrailingZeros64(m) / 8
				break
			}
			j += 8
		}
		for ; j < len(data) && data[j] >= 0x20 && data[j] != '"' && data[j] != '\\'; j++ {
		}
		if j >= len(data) {
			return -1
		}
		switch data[j] {
		case '"':
			return j + 1
		case '\\':
			if j+1 >= len(data) {
				return -1
			}
			switch data[j+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				j += 2
			case 'u':
				if j+6 > len(data) || !isHex(data[j+2]) || !isHex(data[j+3]) || !isHex(data[j+4]) || !isHex(data[j+5]) {
					return -1
				}
				j += 6
			default:
				return -1
			}
		default: // a control byte
			return -1
		}
	}
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// literal checks that data[i:] begins with word and returns the index
// after it, or -1.
func literal(data []byte, i int, word string) int {
	if len(data)-i < len(word) || string(data[i:i+len(word)]) != word {
		return -1
	}
	return i + len(word)
}

// validNumber checks the number at data[i] (JSON's grammar: no leading
// zeros, no leading '+', digits on both sides of the point) and returns
// the index after it, or -1.
func validNumber(data []byte, i int) int {
	if i < len(data) && data[i] == '-' {
		i++
	}
	switch {
	case i >= len(data):
		return -1
	case data[i] == '0':
		i++
	case data[i] >= '1' && data[i] <= '9':
		i = digits(data, i+1)
	default:
		return -1
	}
	if i < len(data) && data[i] == '.' {
		if j := digits(data, i+1); j > i+1 {
			i = j
		} else {
			return -1
		}
	}
	if i < len(data) && (data[i] == 'e' || data[i] == 'E') {
		i++
		if i < len(data) && (data[i] == '+' || data[i] == '-') {
			i++
		}
		if j := digits(data, i); j > i {
			i = j
		} else {
			return -1
		}
	}
	return i
}

// digits returns the index after the run of digits at data[i].
func digits(data []byte, i int) int {
	for i < len(data) && data[i] >= '0' && data[i] <= '9' {
		i++
	}
	return i
}
