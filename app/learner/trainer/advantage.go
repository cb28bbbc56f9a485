package trainer

import (
	"fmt"
	"math"

	"github.com/metaclaw/metaclaw/app/learner/tinker"
	"github.com/metaclaw/metaclaw/store"
)

// MinStd is the standard deviation below which rewards count as all equal:
// advantages are then zero (there is nothing to prefer), never divided by
// a near-zero number.
const MinStd = 1e-6

// MeanStd returns the mean and the population standard deviation of xs
// (0, 0 when empty).
func MeanStd(xs []float64) (mean, std float64) {
	if len(xs) == 0 {
		return 0, 0
	}
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	for _, x := range xs {
		std += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(std / float64(len(xs)))
}

// Advantages returns each reward minus the mean of rewards, divided by
// their standard deviation when normalize is set. When the standard
// deviation is below MinStd every advantage is 0, with or without
// normalize: the rewards do not tell the responses apart.
func Advantages(rewards []float64, normalize bool) []float64 {
	mean, std := MeanStd(rewards)
	out := make([]float64, len(rewards))
	if std < MinStd {
		return out
	}
	for i, r := range rewards {
		out[i] = r - mean
		if normalize {
			out[i] /= std
		}
	}
	return out
}

// Member is one sample of a batch with its reward; Usable is false for a
// sample without a usable judge score, which is left out of every mean,
// standard deviation and advantage.
type Member struct {
	Sample store.Sample
	Reward float64
	Usable bool
}

// Scored is a usable member with its advantage.
type Scored struct {
	Sample    store.Sample
	Reward    float64
	Advantage float64
}

// GroupAdvantages computes the advantages of a batch. groups holds the
// members of each prompt's group. With groupSize > 1 each group is
// centred on its own mean (and divided by its own standard deviation when
// normalize); a group with fewer than two usable members has no one to be
// compared with and is left out. With groupSize 1 all usable members of
// the batch are centred (and normalised) together. Unusable members are
// always left out.
func GroupAdvantages(groups [][]Member, groupSize int, normalize bool) []Scored {
	if groupSize <= 1 {
		var all []Member
		for _, g := range groups {
			all = append(all, usable(g)...)
		}
		return scoreTogether(all, normalize)
	}
	var out []Scored
	for _, g := range groups {
		if u := usable(g); len(u) >= 2 {
			out = append(out, scoreTogether(u, normalize)...)
		}
	}
	return out
}

func usable(g []Member) []Member {
	var out []Member
	for _, m := range g {
		if m.Usable {
			out = append(out, m)
		}
	}
	return out
}

func scoreTogether(ms []Member, normalize bool) []Scored {
	rewards := make([]float64, len(ms))
	for i, m := range ms {
		rewards[i] = m.Reward
	}
	adv := Advantages(rewards, normalize)
	out := make([]Scored, len(ms))
	for i, m := range ms {
		out[i] = Scored{Sample: m.Sample, Reward: m.Reward, Advantage: adv[i]}
	}
	return out
}

// TokenAdvantages spreads a sample's advantage over its sampled tokens.
func TokenAdvantages(adv float64, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = adv
	}
	return out
}

// Datum builds the training datum of a sample: tokens prompt+sampled,
// targets shifted by one, the sampler's log-probs and tokenAdv (one per
// sampled token) on the sampled positions, zero on the prompt's.
func Datum(s store.Sample, tokenAdv []float64) (tinker.Datum, error) {
	d, err := tinker.RLDatum(s.PromptTokens, s.SampledTokens, s.SampledLogprobs, tokenAdv)
	if err != nil {
		return tinker.Datum{}, fmt.Errorf("datum of sample %d: %w", s.ID, err)
	}
	return d, nil
}
