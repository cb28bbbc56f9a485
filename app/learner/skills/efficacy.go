package skills

import (
	"context"
	"math"

	"github.com/metaclaw/metaclaw/store"
)

// Efficacy in the ranking. The judge scores main turns (-1, 0, 1); a
// skill's efficacy is the mean score of the scored turns it was injected
// in minus the mean of those it was not (store.SkillEfficacy). Once a
// skill has EfficacyMinTurns scored turns with it, its BM25F score is
// multiplied by
//
//	factor = 1 + EfficacyWeight × delta × n / (n + EfficacyPrior)
//
// clamped to [1 - EfficacyMaxShift, 1 + EfficacyMaxShift]: the difference
// is shrunk toward no effect while the evidence is thin, so a skill that
// goes with bad turns falls and one that helps rises, without a few
// lucky turns deciding. The factor changes ranks among skills that fit
// (and the relative threshold), never whether a skill that shares nothing
// with the request fits it.
const (
	EfficacyMinTurns = 10
	EfficacyPrior    = 20
	EfficacyWeight   = 0.25
	EfficacyMaxShift = 0.25
)

// EfficacyFactor is the ranking factor of a skill's efficacy (1: none).
func EfficacyFactor(e store.Efficacy) float64 {
	n := float64(e.ScoredWith)
	if e.ScoredWith < EfficacyMinTurns || e.ScoredWithout == 0 || math.IsNaN(e.MeanWith) || math.IsNaN(e.MeanWithout) {
		return 1
	}
	delta := e.MeanWith - e.MeanWithout
	f := 1 + EfficacyWeight*delta*n/(n+EfficacyPrior)
	return math.Max(1-EfficacyMaxShift, math.Min(1+EfficacyMaxShift, f))
}

// efficacy computes the factors of every skill with enough evidence.
func (s *libraryState) efficacy(ctx context.Context) (map[string]float64, error) {
	all, err := s.db.SkillEfficacy(ctx)
	if err != nil {
		return nil, err
	}
	out := map[string]float64{}
	for name, e := range all {
		if f := EfficacyFactor(e); f != 1 {
			out[name] = f
		}
	}
	return out, nil
}
