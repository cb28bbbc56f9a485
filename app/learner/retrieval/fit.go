package retrieval

import "math"

// EstimateTokens is a fast estimate of a text's tokens: about four
// characters a token.
func EstimateTokens(s string) int { return (len(s) + 3) / 4 }

// Fit takes items in order while they fit: at most limit of them (0: no
// limit), and their rendered text within budget tokens (0: no budget). An
// item that does not fit is skipped and the next ones are still tried
// (a shorter one may fit). It returns the items kept and their text.
func Fit[T any](items []T, limit, budget int, render func([]T) string) ([]T, string) {
	var kept []T
	text := ""
	for _, it := range items {
		if limit > 0 && len(kept) >= limit {
			break
		}
		try := append(kept[:len(kept):len(kept)], it)
		t := render(try)
		if budget > 0 && EstimateTokens(t) > budget {
			continue
		}
		kept, text = try, t
	}
	return kept, text
}

// Relevance calibration and fusion, shared by skills and memory.
//
// A lexical (BM25F) score s becomes a relevance s/(s+half) in [0,1), half
// being the score that counts as an even chance; a cosine similarity c
// becomes (c-lo)/(hi-lo) clamped to [0,1]. In the hybrid modes the fused
// relevance is their mean (Fuse): a document must do well on both to rank
// high, so each signal vetoes the other's spurious matches (a shared rare
// word, a vague topical likeness), and agreement is what abstention
// reads.

// LexicalRelevance maps a BM25F score to [0,1).
func LexicalRelevance(score, half float64) float64 {
	if score <= 0 {
		return 0
	}
	return score / (score + half)
}

// EmbeddingRelevance maps a cosine similarity to [0,1].
func EmbeddingRelevance(cos, lo, hi float64) float64 {
	return math.Max(0, math.Min(1, (cos-lo)/(hi-lo)))
}

// Fuse is the hybrid relevance of a document from its lexical and
// embedding relevances.
func Fuse(lexical, embedding float64) float64 { return (lexical + embedding) / 2 }
