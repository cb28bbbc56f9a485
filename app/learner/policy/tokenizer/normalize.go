package tokenizer

import (
	"encoding/json"
	"fmt"

	"golang.org/x/text/unicode/norm"
)

// normalizerJSON is a tokenizer.json normalizer.
type normalizerJSON struct {
	Type        string           `json:"type"`
	Normalizers []normalizerJSON `json:"normalizers"`
}

// buildNormalizer returns the Unicode normalisation forms to apply in
// order, or an error for a normaliser this package does not reproduce.
func buildNormalizer(raw json.RawMessage) ([]norm.Form, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var n normalizerJSON
	if err := json.Unmarshal(raw, &n); err != nil {
		return nil, fmt.Errorf("parse normalizer: %w", err)
	}
	return appendForms(nil, n)
}

func appendForms(dst []norm.Form, n normalizerJSON) ([]norm.Form, error) {
	switch n.Type {
	case "NFC":
		return append(dst, norm.NFC), nil
	case "NFD":
		return append(dst, norm.NFD), nil
	case "NFKC":
		return append(dst, norm.NFKC), nil
	case "NFKD":
		return append(dst, norm.NFKD), nil
	case "Sequence":
		for _, child := range n.Normalizers {
			var err error
			if dst, err = appendForms(dst, child); err != nil {
				return nil, err
			}
		}
		return dst, nil
	}
	return nil, fmt.Errorf("unsupported normalizer %q (only NFC, NFD, NFKC, NFKD and Sequence)", n.Type)
}

// normalize applies the forms to s.
func normalize(forms []norm.Form, s string) string {
	for _, f := range forms {
		if !f.IsNormalString(s) {
			s = f.String(s)
		}
	}
	return s
}
