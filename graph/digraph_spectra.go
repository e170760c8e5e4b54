package graph

import (
	"fmt"
	"math"
	"math/cmplx"
	"sort"

	"gonum.org/v1/gonum/mat"
)

// Mean mixing matrices of a digraph under ArcBernoulli, and their
// spectra.
//
// The draws of different rounds are independent, and the state an agent
// mixes in round t depends only on the earlier draws, so the expected
// state of a push-sum iteration x_{t+1} = C_t x_t obeys
// E[x_{t+1}] = E[C] E[x_t]: it converges to the Perron vector of E[C] at
// the rate |lambda_2(E[C])| per round exactly. That is the rate of the
// mean, not of every sample path (whose rate is set by the products of
// the C_t, like the gap between Boyd et al.'s lambda_2(E[W]) and the
// mean-square rate of GossipRates); with p_ij = 1 the two coincide. The
// Perron vector pi of E[C] (E[C] pi = pi, sum pi = 1) measures the
// imbalance of influence that the ratio of push-sum corrects: on a static
// digraph, the weight w_i of push-sum tends to N pi_i.
//
// E[C] is exact and cheap: the entries of agent i's column are
// expectations over the Poisson-binomial law of d_out_i, built by a
// dynamic program over i's out-arcs, O(d_out_i^3) for the column. The
// spectra use gonum's dense nonsymmetric eigensolver, O(N^3): cheap up to
// a few thousand agents.

// MeanColumnStochastic returns E[C] when every arc i -> j of d is present
// independently with probability p_ij (ArcBernoulli on d):
//
//	E[C]_ii = E[1/(1 + d_out_i)],   E[C]_ji = p_ij E[1/(2 + d_out_i^{-j})],
//
// where d_out_i^{-j} counts the present out-arcs of i other than i -> j.
func (d *Digraph) MeanColumnStochastic() *mat.Dense {
	return d.mean(d.out, func(i, j int) float64 { return d.P(i, j) }, true)
}

// MeanRowStochastic returns E[R] under ArcBernoulli on d: the same
// expectations over the in-arcs of each agent, in its row.
func (d *Digraph) MeanRowStochastic() *mat.Dense {
	return d.mean(d.in, func(i, j int) float64 { return d.P(j, i) }, false)
}

// mean returns the mean matrix whose line i (column for C, row for R)
// holds the expected weights over agent i's neighbours nb[i], the arc
// between i and j having probability p(i, j).
func (d *Digraph) mean(nb [][]int, p func(i, j int) float64, column bool) *mat.Dense {
	m := mat.NewDense(d.N, d.N, nil)
	for i := range d.N {
		self, arc := meanWeights(nb[i], func(j int) float64 { return p(i, j) })
		m.Set(i, i, self)
		for k, j := range nb[i] {
			if column {
				m.Set(j, i, arc[k])
			} else {
				m.Set(i, j, arc[k])
			}
		}
	}
	return m
}

// meanWeights returns E[1/(1 + D)] and, for each k, p_k E[1/(2 + D_{-k})]
// where D is the number of successes among independent Bernoulli(p(nb[k]))
// trials and D_{-k} that number without trial k.
func meanWeights(nb []int, p func(j int) float64) (self float64, arc []float64) {
	ps := make([]float64, len(nb))
	for k, j := range nb {
		ps[k] = p(j)
	}
	self = harmonicMean(poissonBinomial(ps, -1), 1)
	arc = make([]float64, len(nb))
	for k := range nb {
		arc[k] = float64(ps[k] * harmonicMean(poissonBinomial(ps, k), 2))
	}
	return self, arc
}

// poissonBinomial returns P(D = m), m = 0..len(ps), for the number D of
// successes of independent trials with success probabilities ps, trial
// skip left out (none when skip < 0).
func poissonBinomial(ps []float64, skip int) []float64 {
	dist := make([]float64, len(ps)+1)
	dist[0] = 1
	for k, p := range ps {
		if k == skip {
			continue
		}
		for m := len(ps); m >= 1; m-- {
			dist[m] = float64(dist[m]*(1-p)) + float64(dist[m-1]*p)
		}
		dist[0] = float64(dist[0] * (1 - p))
	}
	return dist
}

// harmonicMean returns sum_m P(D = m) / (off + m).
func harmonicMean(dist []float64, off int) float64 {
	var s float64
	for m, q := range dist {
		s += q / float64(off+m)
	}
	return s
}

// Moduli returns the moduli |lambda| of the eigenvalues of the square
// matrix m, in decreasing order. For a column- or row-stochastic m the
// first is 1 and the second, |lambda_2|, is the contraction factor of the
// disagreement of x <- m x for a fixed m (of the mean, for m = E[C]).
func Moduli(m mat.Matrix) ([]float64, error) {
	r, c := m.Dims()
	if r != c {
		return nil, fmt.Errorf("graph: eigenvalues of a %dx%d matrix: need a square one", r, c)
	}
	var eig mat.Eigen
	if ok := eig.Factorize(m, mat.EigenNone); !ok {
		return nil, fmt.Errorf("graph: eigenvalues of a %dx%d matrix: the factorization did not converge", r, c)
	}
	vals := eig.Values(nil)
	mod := make([]float64, len(vals))
	for k, v := range vals {
		mod[k] = cmplx.Abs(v)
	}
	sort.Sort(sort.Reverse(sort.Float64Slice(mod)))
	return mod, nil
}

// SecondModulus returns |lambda_2| of m, the second entry of Moduli (0 for
// a 1 x 1 matrix).
func SecondModulus(m mat.Matrix) (float64, error) {
	mod, err := Moduli(m)
	if err != nil || len(mod) < 2 {
		return 0, err
	}
	return mod[1], nil
}

// PerronVector returns the eigenvector pi of the square matrix m for its
// eigenvalue of largest modulus, scaled to sum pi = 1: for a
// column-stochastic m (E[C]) the mass distribution that x <- m x
// approaches, for the transpose of a row-stochastic m (E[R]^T) the
// weights of the consensus value that x <- m x reaches. It fails when
// that eigenvalue is not real and simple enough to give a real vector of
// one sign (m reducible).
func PerronVector(m mat.Matrix) ([]float64, error) {
	r, c := m.Dims()
	if r != c {
		return nil, fmt.Errorf("graph: Perron vector of a %dx%d matrix: need a square one", r, c)
	}
	var eig mat.Eigen
	if ok := eig.Factorize(m, mat.EigenRight); !ok {
		return nil, fmt.Errorf("graph: Perron vector: the factorization did not converge")
	}
	vals := eig.Values(nil)
	top := 0
	for k, v := range vals {
		if cmplx.Abs(v) > cmplx.Abs(vals[top]) {
			top = k
		}
	}
	var vecs mat.CDense
	eig.VectorsTo(&vecs)
	pi := make([]float64, r)
	var sum float64
	for i := range pi {
		pi[i] = real(vecs.At(i, top))
		sum += pi[i]
	}
	if sum == 0 || math.IsNaN(sum) {
		return nil, fmt.Errorf("graph: Perron vector: the leading eigenvector sums to %v", sum)
	}
	for i := range pi {
		pi[i] /= sum
		if pi[i] < -1e-12 {
			return nil, fmt.Errorf("graph: Perron vector: entries of both signs (a reducible matrix)")
		}
	}
	return pi, nil
}
