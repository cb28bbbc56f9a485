package tokenizer

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
)

// fileJSON is the part of tokenizer.json this package reads.
type fileJSON struct {
	AddedTokens  []AddedToken    `json:"added_tokens"`
	Normalizer   json.RawMessage `json:"normalizer"`
	PreTokenizer json.RawMessage `json:"pre_tokenizer"`
	Decoder      json.RawMessage `json:"decoder"`
	Model        modelJSON       `json:"model"`
}

type modelJSON struct {
	Type                    string          `json:"type"`
	Vocab                   json.RawMessage `json:"vocab"`
	Merges                  json.RawMessage `json:"merges"`
	UnkToken                *string         `json:"unk_token"`
	Dropout                 *float64        `json:"dropout"`
	ContinuingSubwordPrefix *string         `json:"continuing_subword_prefix"`
	EndOfWordSuffix         *string         `json:"end_of_word_suffix"`
	ByteFallback            bool            `json:"byte_fallback"`
	IgnoreMerges            bool            `json:"ignore_merges"`
}

type preTokJSON struct {
	Type          string       `json:"type"`
	PreTokenizers []preTokJSON `json:"pretokenizers"`
	Pattern       *struct {
		Regex  *string `json:"Regex"`
		String *string `json:"String"`
	} `json:"pattern"`
	Behavior         string `json:"behavior"`
	Invert           bool   `json:"invert"`
	AddPrefixSpace   bool   `json:"add_prefix_space"`
	UseRegex         *bool  `json:"use_regex"`
	IndividualDigits bool   `json:"individual_digits"`
}

type decoderJSON struct {
	Type     string        `json:"type"`
	Decoders []decoderJSON `json:"decoders"`
}

// LoadFile reads a Hugging Face tokenizer.json file.
func LoadFile(path string) (*Tokenizer, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read tokenizer: %w", err)
	}
	t, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", path, err)
	}
	return t, nil
}

// Parse builds a Tokenizer from the contents of a tokenizer.json file. It
// refuses tokenizers that are not byte-level BPE.
func Parse(data []byte) (*Tokenizer, error) {
	var f fileJSON
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("parse tokenizer.json: %w", err)
	}
	model, err := buildModel(f.Model)
	if err != nil {
		return nil, err
	}
	forms, err := buildNormalizer(f.Normalizer)
	if err != nil {
		return nil, err
	}
	steps, err := buildPreTokenizer(f.PreTokenizer)
	if err != nil {
		return nil, err
	}
	if err := checkDecoder(f.Decoder); err != nil {
		return nil, err
	}
	return newTokenizer(model, f.AddedTokens, forms, steps), nil
}

// buildModel checks that the model is a byte-level-compatible BPE and
// reads its vocab and merges.
func buildModel(mj modelJSON) (*bpe, error) {
	switch {
	case mj.Type != "" && mj.Type != "BPE":
		return nil, fmt.Errorf("unsupported model type %q: only byte-level BPE tokenizers are supported", mj.Type)
	case mj.ByteFallback:
		return nil, errors.New("unsupported BPE with byte_fallback (a SentencePiece-style tokenizer): only byte-level BPE is supported")
	case mj.Dropout != nil && *mj.Dropout != 0:
		return nil, errors.New("unsupported BPE dropout: encoding would not be deterministic")
	case deref(mj.ContinuingSubwordPrefix) != "" || deref(mj.EndOfWordSuffix) != "":
		return nil, errors.New("unsupported BPE with continuing_subword_prefix or end_of_word_suffix")
	}
	m := &bpe{unkID: -1, ignoreMerges: mj.IgnoreMerges}
	if err := json.Unmarshal(mj.Vocab, &m.vocab); err != nil {
		return nil, fmt.Errorf("parse model vocab (a BPE vocab is an object of token to id): %w", err)
	}
	pairs, err := parseMerges(mj.Merges)
	if err != nil {
		return nil, err
	}
	if m.merges, err = rankMerges(m.vocab, pairs); err != nil {
		return nil, err
	}
	if mj.UnkToken != nil {
		id, ok := m.vocab[*mj.UnkToken]
		if !ok {
			return nil, fmt.Errorf("unk_token %q is not in the vocab", *mj.UnkToken)
		}
		m.unkID = id
	}
	for b := range m.byteIDs {
		id, ok := m.vocab[byteStrings[b]]
		if !ok {
			id = -1
		}
		m.byteIDs[b] = id
	}
	return m, nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// parseMerges reads merges written as "a b" strings or as [a, b] pairs.
func parseMerges(raw json.RawMessage) ([][2]string, error) {
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, fmt.Errorf("parse model merges: %w", err)
	}
	pairs := make([][2]string, len(items))
	for i, item := range items {
		if len(item) > 0 && item[0] == '[' {
			var p []string
			if err := json.Unmarshal(item, &p); err != nil || len(p) != 2 {
				return nil, fmt.Errorf("merge %d: want a pair of strings, got %s", i, item)
			}
			pairs[i] = [2]string{p[0], p[1]}
			continue
		}
		var s string
		if err := json.Unmarshal(item, &s); err != nil {
			return nil, fmt.Errorf("merge %d: %w", i, err)
		}
		parts := strings.Split(s, " ")
		if len(parts) != 2 {
			return nil, fmt.Errorf("merge %d: %q is not two tokens separated by a space", i, s)
		}
		pairs[i] = [2]string{parts[0], parts[1]}
	}
	return pairs, nil
}

// rankMerges maps each merge's pair of ids to its rank and result.
func rankMerges(vocab map[string]int, pairs [][2]string) (map[uint64]merge, error) {
	merges := make(map[uint64]merge, len(pairs))
	for rank, p := range pairs {
		a, okA := vocab[p[0]]
		b, okB := vocab[p[1]]
		id, okID := vocab[p[0]+p[1]]
		if !okA || !okB || !okID {
			return nil, fmt.Errorf("merge %d (%q %q): token not in the vocab", rank, p[0], p[1])
		}
		// A pair listed twice takes its last rank, as in Hugging Face.
		merges[mergeKey(a, b)] = merge{rank: int32(rank), id: int32(id)}
	}
	return merges, nil
}

// buildPreTokenizer reads the pre-tokeniser steps. One of them must be
// ByteLevel.
func buildPreTokenizer(raw json.RawMessage) ([]splitStep, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, errors.New("no pre_tokenizer: only byte-level BPE tokenizers (ByteLevel pre-tokenizer) are supported")
	}
	var pj preTokJSON
	if err := json.Unmarshal(raw, &pj); err != nil {
		return nil, fmt.Errorf("parse pre_tokenizer: %w", err)
	}
	steps, err := appendSteps(nil, pj)
	if err != nil {
		return nil, err
	}
	found := false
	kept := steps[:0]
	for _, st := range steps {
		if bl, ok := st.(byteLevelStep); ok {
			found = true
			if !bl.addPrefixSpace && !bl.useRegex {
				continue // it only maps bytes, which the model does
			}
		}
		kept = append(kept, st)
	}
	if !found {
		return nil, errors.New("pre_tokenizer has no ByteLevel step: only byte-level BPE tokenizers are supported")
	}
	return kept, nil
}

func appendSteps(dst []splitStep, pj preTokJSON) ([]splitStep, error) {
	switch pj.Type {
	case "Sequence":
		for _, child := range pj.PreTokenizers {
			var err error
			if dst, err = appendSteps(dst, child); err != nil {
				return nil, err
			}
		}
		return dst, nil
	case "ByteLevel":
		useRegex := pj.UseRegex == nil || *pj.UseRegex
		return append(dst, byteLevelStep{addPrefixSpace: pj.AddPrefixSpace, useRegex: useRegex}), nil
	case "Digits":
		return append(dst, digitsStep{individual: pj.IndividualDigits}), nil
	case "Split":
		st, err := buildSplit(pj)
		if err != nil {
			return nil, err
		}
		return append(dst, st), nil
	}
	return nil, fmt.Errorf("unsupported pre_tokenizer %q (only Sequence, Split, ByteLevel and Digits)", pj.Type)
}

func buildSplit(pj preTokJSON) (*patternSplit, error) {
	behavior, ok := splitBehaviors[pj.Behavior]
	if !ok {
		return nil, fmt.Errorf("unsupported split behavior %q", pj.Behavior)
	}
	st := &patternSplit{behavior: behavior, invert: pj.Invert}
	switch {
	case pj.Pattern != nil && pj.Pattern.Regex != nil:
		f, err := newRegexFinder(*pj.Pattern.Regex)
		if err != nil {
			return nil, err
		}
		st.finder = f
	case pj.Pattern != nil && pj.Pattern.String != nil:
		st.finder = literalFinder(*pj.Pattern.String)
	default:
		return nil, errors.New("split pre_tokenizer has no Regex or String pattern")
	}
	return st, nil
}

// checkDecoder accepts the ByteLevel decoder, alone or in a Sequence.
func checkDecoder(raw json.RawMessage) error {
	var d decoderJSON
	if len(raw) == 0 || string(raw) == "null" {
		return errors.New("no decoder: only byte-level BPE tokenizers (ByteLevel decoder) are supported")
	}
	if err := json.Unmarshal(raw, &d); err != nil {
		return fmt.Errorf("parse decoder: %w", err)
	}
	return checkDecoderJSON(d)
}

func checkDecoderJSON(d decoderJSON) error {
	switch d.Type {
	case "ByteLevel":
		return nil
	case "Sequence":
		if len(d.Decoders) == 0 {
			return errors.New("empty decoder sequence: only the ByteLevel decoder is supported")
		}
		for _, child := range d.Decoders {
			if err := checkDecoderJSON(child); err != nil {
				return err
			}
		}
		return nil
	}
	return fmt.Errorf("unsupported decoder %q: only the ByteLevel decoder is supported", d.Type)
}
