package main

import "math"

// removeCommon subtracts the mean of vecs from each, then its projections
// on the first pcs principal components of the centred vectors.
func removeCommon(vecs [][]float32, pcs int) {
	dims := len(vecs[0])
	mean := make([]float64, dims)
	for _, v := range vecs {
		for i, x := range v {
			mean[i] += float64(x)
		}
	}
	for i := range mean {
		mean[i] /= float64(len(vecs))
	}
	for _, v := range vecs {
		for i := range v {
			v[i] -= float32(mean[i])
		}
	}
	cov := covariance(vecs)
	for k := 0; k < pcs; k++ {
		u := topEigenvector(cov)
		for _, v := range vecs {
			d := dot(v, u)
			for i := range v {
				v[i] -= float32(d * u[i])
			}
		}
		deflate(cov, u)
	}
}

func covariance(vecs [][]float32) [][]float64 {
	dims := len(vecs[0])
	c := make([][]float64, dims)
	for i := range c {
		c[i] = make([]float64, dims)
	}
	for _, v := range vecs {
		for i := 0; i < dims; i++ {
			vi := float64(v[i])
			for j := i; j < dims; j++ {
				c[i][j] += vi * float64(v[j])
			}
		}
	}
	for i := 0; i < dims; i++ {
		for j := i; j < dims; j++ {
			c[i][j] /= float64(len(vecs))
			c[j][i] = c[i][j]
		}
	}
	return c
}

// topEigenvector finds the unit eigenvector of the symmetric matrix c with
// the largest eigenvalue, by power iteration.
func topEigenvector(c [][]float64) []float64 {
	n := len(c)
	u := make([]float64, n)
	for i := range u {
		u[i] = 1 / math.Sqrt(float64(n))
	}
	next := make([]float64, n)
	for it := 0; it < 1000; it++ {
		for i := range next {
			next[i] = 0
			for j, x := range c[i] {
				next[i] += x * u[j]
			}
		}
		norm := 0.0
		for _, x := range next {
			norm += x * x
		}
		norm = math.Sqrt(norm)
		delta := 0.0
		for i := range next {
			x := next[i] / norm
			delta += math.Abs(x - u[i])
			u[i] = x
		}
		if delta < 1e-12 {
			break
		}
	}
	return u
}

// deflate removes u's eigenvalue from c: c -= λ u uᵀ.
func deflate(c [][]float64, u []float64) {
	lambda := 0.0
	for i := range c {
		for j, x := range c[i] {
			lambda += u[i] * x * u[j]
		}
	}
	for i := range c {
		for j := range c[i] {
			c[i][j] -= lambda * u[i] * u[j]
		}
	}
}

func dot(v []float32, u []float64) float64 {
	s := 0.0
	for i, x := range v {
		s += float64(x) * u[i]
	}
	return s
}
