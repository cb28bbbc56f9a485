package tokenizer

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Moonshot's Kimi models (K2, K2.5, K2.6) ship no tokenizer.json. Their
// Hugging Face repos hold a tiktoken BPE file, tiktoken.model, and
// tokenization_kimi.py, whose TikTokenTokenizer class (named in
// tokenizer_config.json's auto_map) builds a tiktoken.Encoding from it.
// What this file reproduces, as read in the copies of tokenization_kimi.py
// at troy12x/quasar-kimi and PabloRaka/bear and in tiktoken's load.py:
//
//   - tiktoken.model has one token per line: the token's bytes in base64,
//     a space, its rank (load_tiktoken_bpe). The rank is the token id and
//     the merge priority: BPE repeatedly joins the adjacent pair whose
//     joined bytes have the lowest rank, leftmost first, and a piece that
//     is itself a token is taken whole.
//   - The split pattern is TikTokenTokenizer.pat_str (PatternKimi).
//   - The special tokens are ids len(ranks) to len(ranks)+255
//     (num_reserved_special_tokens = 256): the content that
//     tokenizer_config.json's added_tokens_decoder gives the id, else
//     "<|reserved_token_{id}|>".
//   - encode(text) cuts the text into runs of at most 400,000 characters
//     (TIKTOKEN_MAX_ENCODE_CHARS), cuts each where a run of whitespace or
//     of non-whitespace (str.isspace) grows past 25,000 characters
//     (MAX_NO_WHITESPACES_CHARS, _split_whitespaces_or_nonwhitespaces),
//     and encodes each cut with allowed_special="all": special tokens
//     written in the text are recognised.
//
// Token strings (Token, TokenID) use the byte-level spelling of GPT-2's
// bytes_to_unicode, as TikTokenTokenizer's own vocabulary does.

// KimiTokenizerClass is the auto_map entry of Kimi's tokenizer.
const KimiTokenizerClass = "tokenization_kimi.TikTokenTokenizer"

// Limits of Kimi's encode.
const (
	kimiReservedSpecials = 256
	kimiMaxChars         = 400_000
	kimiMaxRun           = 25_000
)

// TiktokenFile is the BPE file of a tiktoken tokenizer.
const TiktokenFile = "tiktoken.model"

// kimiConfig is the part of tokenizer_config.json the Kimi tokenizer reads.
type kimiConfig struct {
	TokenizerClass     string                `json:"tokenizer_class"`
	AutoMap            map[string]any        `json:"auto_map"`
	AddedTokensDecoder map[string]AddedToken `json:"added_tokens_decoder"`
}

// LoadTiktokenDir reads a model directory's tiktoken.model and
// tokenizer_config.json. Only Kimi's tokenizer class is supported, since
// the split pattern and special tokens live in its Python code.
func LoadTiktokenDir(dir string) (*Tokenizer, error) {
	model, err := os.ReadFile(filepath.Join(dir, TiktokenFile))
	if err != nil {
		return nil, fmt.Errorf("read tokenizer: %w", err)
	}
	config, err := os.ReadFile(filepath.Join(dir, "tokenizer_config.json"))
	if err != nil {
		return nil, fmt.Errorf("read tokenizer config: %w", err)
	}
	t, err := ParseTiktoken(model, config)
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", filepath.Join(dir, TiktokenFile), err)
	}
	return t, nil
}

// ParseTiktoken builds a Tokenizer from a tiktoken.model file and the
// tokenizer_config.json beside it.
func ParseTiktoken(model, config []byte) (*Tokenizer, error) {
	var cfg kimiConfig
	if err := json.Unmarshal(config, &cfg); err != nil {
		return nil, fmt.Errorf("parse tokenizer_config.json: %w", err)
	}
	if !namesKimiClass(cfg.AutoMap) {
		return nil, fmt.Errorf("a tiktoken.model tokenizer of class %q is not supported: only Kimi's %s is (its auto_map names the class)",
			cfg.TokenizerClass, KimiTokenizerClass)
	}
	ranks, err := parseRanks(model)
	if err != nil {
		return nil, err
	}
	m, err := rankModel(ranks)
	if err != nil {
		return nil, err
	}
	added, err := kimiSpecials(len(ranks), cfg.AddedTokensDecoder)
	if err != nil {
		return nil, err
	}
	steps := []splitStep{&patternSplit{finder: kimiScanner{}, behavior: behaviorIsolated}}
	t := newTokenizer(m, added, nil, steps)
	t.chunked = true
	return t, nil
}

// namesKimiClass reports whether auto_map's AutoTokenizer entry (a list
// [slow, fast], or a string) names Kimi's class.
func namesKimiClass(autoMap map[string]any) bool {
	var names []any
	switch v := autoMap["AutoTokenizer"].(type) {
	case []any:
		names = v
	case string:
		names = []any{v}
	}
	for _, n := range names {
		if s, ok := n.(string); ok && (s == KimiTokenizerClass || strings.HasSuffix(s, "--"+KimiTokenizerClass)) {
			return true
		}
	}
	return false
}

// parseRanks reads tiktoken.model: lines of base64 token and rank. The
// ranks must number the tokens 0 to n-1 and include every single byte,
// as a tiktoken encoding needs.
func parseRanks(data []byte) ([][]byte, error) {
	var tokens [][]byte
	seen := map[string]bool{}
	for n, line := range bytes.Split(data, []byte("\n")) {
		line = bytes.TrimRight(line, "\r")
		if len(line) == 0 {
			continue
		}
		fields := strings.Fields(string(line))
		if len(fields) != 2 {
			return nil, fmt.Errorf("tiktoken.model line %d: want a base64 token and a rank, got %q", n+1, line)
		}
		tok, err := base64.StdEncoding.DecodeString(fields[0])
		if err != nil || len(tok) == 0 {
			return nil, fmt.Errorf("tiktoken.model line %d: token %q is not base64 bytes", n+1, fields[0])
		}
		rank, err := strconv.Atoi(fields[1])
		if err != nil || rank < 0 || rank > 1<<24 {
			return nil, fmt.Errorf("tiktoken.model line %d: rank %q is not a token id", n+1, fields[1])
		}
		if seen[string(tok)] {
			return nil, fmt.Errorf("tiktoken.model line %d: token %q listed twice", n+1, fields[0])
		}
		seen[string(tok)] = true
		for len(tokens) <= rank {
			tokens = append(tokens, nil)
		}
		if tokens[rank] != nil {
			return nil, fmt.Errorf("tiktoken.model line %d: rank %d given twice", n+1, rank)
		}
		tokens[rank] = tok
	}
	for rank, tok := range tokens {
		if tok == nil {
			return nil, fmt.Errorf("tiktoken.model: no token has rank %d (ranks must be 0 to %d)", rank, len(tokens)-1)
		}
	}
	for b := 0; b < 256; b++ {
		if !seen[string([]byte{byte(b)})] {
			return nil, fmt.Errorf("tiktoken.model: byte 0x%02x is not a token", b)
		}
	}
	return tokens, nil
}

// rankModel turns ranks into the BPE model: the vocab in byte-level
// spelling, and a merge for every way of cutting a token into two tokens,
// with the token's rank. Merging pairs by those ranks is tiktoken's
// byte-pair merge: the lowest-ranked joined pair first, leftmost on ties.
func rankModel(tokens [][]byte) (*bpe, error) {
	m := &bpe{vocab: make(map[string]int, len(tokens)), unkID: -1, ignoreMerges: true}
	ids := make(map[string]int, len(tokens))
	for rank, tok := range tokens {
		ids[string(tok)] = rank
		m.vocab[byteLevel(string(tok))] = rank
	}
	m.merges = make(map[uint64]merge, len(tokens)*2)
	for rank, tok := range tokens {
		for cut := 1; cut < len(tok); cut++ {
			a, okA := ids[string(tok[:cut])]
			b, okB := ids[string(tok[cut:])]
			if okA && okB {
				m.merges[mergeKey(a, b)] = merge{rank: int32(rank), id: int32(rank)}
			}
		}
	}
	for b := range m.byteIDs {
		m.byteIDs[b] = ids[string([]byte{byte(b)})]
	}
	return m, nil
}

// kimiSpecials lists the special tokens: ids n to n+255, named by
// added_tokens_decoder or "<|reserved_token_{id}|>". Entries of
// added_tokens_decoder outside that range are not special tokens of the
// encoding and are refused, as they would have no meaning.
func kimiSpecials(n int, decoder map[string]AddedToken) ([]AddedToken, error) {
	named := map[int]AddedToken{}
	for key, tok := range decoder {
		id, err := strconv.Atoi(key)
		if err != nil {
			return nil, fmt.Errorf("added_tokens_decoder key %q is not a token id", key)
		}
		if id < n || id >= n+kimiReservedSpecials {
			return nil, fmt.Errorf("added token %q has id %d, outside the special range %d-%d of tiktoken.model",
				tok.Content, id, n, n+kimiReservedSpecials-1)
		}
		if tok.Content == "" {
			return nil, fmt.Errorf("added token %d has no content", id)
		}
		named[id] = tok
	}
	out := make([]AddedToken, 0, kimiReservedSpecials)
	for id := n; id < n+kimiReservedSpecials; id++ {
		content := fmt.Sprintf("<|reserved_token_%d|>", id)
		if tok, ok := named[id]; ok {
			content = tok.Content
		}
		// tiktoken matches special tokens as they are written: no
		// stripping, no normalisation.
		out = append(out, AddedToken{ID: id, Content: content, Special: true})
	}
	return out, nil
}

// chunks cuts text as Kimi's encode does before encoding: every
// kimiMaxChars characters, and inside any run of whitespace or of other
// characters longer than kimiMaxRun. A text of at most kimiMaxRun bytes
// needs no cut.
func chunks(text string, yield func(string)) {
	if len(text) <= kimiMaxRun {
		yield(text)
		return
	}
	for start := 0; start < len(text); {
		end, count := start, 0
		for end < len(text) && count < kimiMaxChars {
			_, n := utf8.DecodeRuneInString(text[end:])
			end += n
			count++
		}
		splitRuns(text[start:end], yield)
		start = end
	}
}

// splitRuns is _split_whitespaces_or_nonwhitespaces(s, kimiMaxRun).
func splitRuns(s string, yield func(string)) {
	start, runLen := 0, 0
	inSpace := false
	for i, r := range s {
		space := pyIsSpace(r)
		if i == 0 {
			inSpace = space
		}
		if space != inSpace {
			runLen, inSpace = 1, space
			continue
		}
		runLen++
		if runLen > kimiMaxRun {
			yield(s[start:i])
			start, runLen = i, 1
		}
	}
	yield(s[start:])
}

// pyIsSpace is Python's str.isspace for one character: Unicode White_Space
// and the ASCII separators U+001C to U+001F.
func pyIsSpace(r rune) bool {
	return unicode.IsSpace(r) || (r >= 0x1C && r <= 0x1F)
}
