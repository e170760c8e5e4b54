// Package qcqp is the problem kind qcqp: the nonconvex quadratically
// constrained quadratic program of the ZO-SPLM paper's experiment (Dong,
// Zhao, Pu, Zhou and Yin, section 4.1), drawn from a seed (New) or given
// (FromData), with one value kernel (Eval) for f and h, the exact
// gradients and the stochastic eps-stationarity measures of the paper's
// Definition 1 (Measure), which the measurement uses. It owns the problem
// block, the instance, its reference solution (Reference: the global
// optimum of one-constraint instances), its registration (Problem) and
// its export.
//
// qcqp is pure: no I/O but its export's (through problems/datafile), no
// goroutines, no global random source (the instance comes from graph.Hash
// keys). It may import objective, graph, consensus, consensus/registry and
// problems/datafile; it must not import an algorithm
// package (consensus/<algorithm>), node, coordinator, scenarios or cmd.
package qcqp

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/consim/consim/graph"
	"github.com/consim/consim/objective"
)

// DrawProblem is the draw index of the instance data in graph.Hash, apart
// from graph's own draws 0..3 and from zosplm's draw of the directions.
const DrawProblem = 17

// QCQP is the quadratically constrained quadratic program of the paper's
// experiment (eq. 10):
//
//	min_{x in X} f(x) = (1/2) x^T Q x + d^T x
//	s.t.         h_j(x) = (1/2) x^T A_j x + b_j^T x + c_j <= 0,  j = 1..m,
//	             X = [Lo, Hi]^n,
//
// with Q symmetric (possibly indefinite) and every A_j symmetric positive
// semidefinite. Values are evaluated by one kernel (Eval) that the oracle
// of a zeroth-order method (zosplm.Oracle) uses for every perturbed
// point, so a value computed by a worker equals, bit for bit, the value F
// or H returns for the same point. The exact
// gradients (GradF, JacH) serve the measurement only. A QCQP is read-only
// after construction and safe for concurrent use.
type QCQP struct {
	n, m int
	Q    *mat.SymDense
	A    []*mat.SymDense
	D    []float64
	B    [][]float64
	C    []float64
	Box  objective.Box

	// Packed form used by Eval, for the K = 1 + m forms (c = 0 is f,
	// c = 1+j is h_j): up[c][l] is row l of the upper triangle of the
	// form's matrix M_c from the diagonal on (length n - l, the diagonal
	// halved), lin[c] the linear coefficients and cnst[c] the constant.
	up    [][][]float64
	lin   [][]float64
	cnst  []float64
	lipF  float64
	lipH  []float64
	lminQ float64

	ref *refCache // Reference, computed once
}

// FromData builds the QCQP of the given data (copied): Q and every
// A_j n x n symmetric, d and every b_j of length n, len(A) = len(b) =
// len(c) = m >= 1, and the box [lo, hi]^n with lo < hi (infinite bounds
// allowed).
func FromData(Q *mat.SymDense, d []float64, A []*mat.SymDense, b [][]float64, c []float64, box objective.Box) (*QCQP, error) {
	if Q == nil {
		return nil, fmt.Errorf("qcqp: nil Q")
	}
	n := Q.SymmetricDim()
	m := len(A)
	switch {
	case n < 1:
		return nil, fmt.Errorf("qcqp: dimension %d, want n >= 1", n)
	case m < 1:
		return nil, fmt.Errorf("qcqp: %d constraints, want m >= 1", m)
	case len(d) != n:
		return nil, fmt.Errorf("qcqp: len(d) = %d, want n = %d", len(d), n)
	case len(b) != m || len(c) != m:
		return nil, fmt.Errorf("qcqp: len(b) = %d, len(c) = %d, want m = %d", len(b), len(c), m)
	case math.IsNaN(box.Lo) || math.IsNaN(box.Hi) || !(box.Lo < box.Hi):
		return nil, fmt.Errorf("qcqp: box [%g, %g], want Lo < Hi", box.Lo, box.Hi)
	}
	q := &QCQP{n: n, m: m, Q: mat.NewSymDense(n, nil), D: append([]float64(nil), d...),
		A: make([]*mat.SymDense, m), B: make([][]float64, m), C: append([]float64(nil), c...), Box: box, ref: new(refCache)}
	q.Q.CopySym(Q)
	for j := range m {
		if A[j] == nil || A[j].SymmetricDim() != n {
			return nil, fmt.Errorf("qcqp: A_%d is not %d x %d", j+1, n, n)
		}
		if len(b[j]) != n {
			return nil, fmt.Errorf("qcqp: len(b_%d) = %d, want n = %d", j+1, len(b[j]), n)
		}
		q.A[j] = mat.NewSymDense(n, nil)
		q.A[j].CopySym(A[j])
		q.B[j] = append([]float64(nil), b[j]...)
	}
	if err := q.pack(); err != nil {
		return nil, err
	}
	return q, nil
}

// New generates the NC-QCQP instance of the paper's section 4.1 with n
// variables and m constraints from seed: Q = M^T M - delta I with delta
// such that lambda_min(Q) = -0.1, A_j = M_j^T M_j, M, M_j, d, b_j with
// standard Gaussian entries (all n x n or length n), c_j = -1 (so x = 0 is
// strictly feasible) and X = [-10, 10]^n. The Gaussians are drawn in the
// order M (row-major), then per j: M_j, b_j, then d, from a PCG seeded by
// graph.Hash(seed, 0, DrawProblem, n, m) and graph.Hash(seed, 1,
// DrawProblem, n, m).
func New(n, m int, seed uint64) (*QCQP, error) {
	if n < 1 || m < 1 {
		return nil, fmt.Errorf("qcqp: nc-qcqp: n = %d, m = %d, want both >= 1", n, m)
	}
	rng := rand.New(rand.NewPCG(graph.Hash(seed, 0, DrawProblem, uint64(n), uint64(m)),
		graph.Hash(seed, 1, DrawProblem, uint64(n), uint64(m))))
	gauss := func(k int) []float64 {
		v := make([]float64, k)
		for i := range v {
			v[i] = rng.NormFloat64()
		}
		return v
	}
	gram := func(mm []float64) *mat.SymDense {
		M := mat.NewDense(n, n, mm)
		s := mat.NewSymDense(n, nil)
		s.SymOuterK(1, M.T()) // M^T M
		return s
	}
	Q := gram(gauss(n * n))
	var eig mat.EigenSym
	if !eig.Factorize(Q, false) {
		return nil, fmt.Errorf("qcqp: nc-qcqp: eigen-decomposition of M^T M failed")
	}
	delta := eig.Values(nil)[0] + 0.1
	for i := range n {
		Q.SetSym(i, i, Q.At(i, i)-delta)
	}
	A := make([]*mat.SymDense, m)
	b := make([][]float64, m)
	c := make([]float64, m)
	for j := range m {
		A[j] = gram(gauss(n * n))
		b[j] = gauss(n)
		c[j] = -1
	}
	d := gauss(n)
	return FromData(Q, d, A, b, c, objective.Box{Lo: -10, Hi: 10})
}

// pack builds the interleaved upper-triangle form of Eval and the
// smoothness constants.
func (q *QCQP) pack() error {
	n, K := q.n, 1+q.m
	forms := make([]*mat.SymDense, K)
	forms[0] = q.Q
	copy(forms[1:], q.A)
	q.lin = make([][]float64, K)
	q.lin[0] = q.D
	copy(q.lin[1:], q.B)
	q.cnst = make([]float64, K)
	copy(q.cnst[1:], q.C)
	q.up = make([][][]float64, K)
	for c, M := range forms {
		flat := make([]float64, n*(n+1)/2)
		q.up[c] = make([][]float64, n)
		for l := range n {
			row := flat[: n-l : n-l]
			flat = flat[n-l:]
			for j := l; j < n; j++ {
				row[j-l] = M.At(l, j)
			}
			row[0] /= 2
			q.up[c][l] = row
		}
	}
	var eig mat.EigenSym
	q.lipH = make([]float64, q.m)
	for c, M := range forms {
		if !eig.Factorize(M, false) {
			return fmt.Errorf("qcqp: eigen-decomposition of form %d failed", c)
		}
		ev := eig.Values(nil)
		l := math.Max(math.Abs(ev[0]), math.Abs(ev[n-1]))
		if c == 0 {
			q.lipF, q.lminQ = l, ev[0]
			continue
		}
		if ev[0] < -1e-9*math.Max(1, l) {
			return fmt.Errorf("qcqp: A_%d has eigenvalue %g < 0, want positive semidefinite", c, ev[0])
		}
		q.lipH[c-1] = l
	}
	return nil
}

// Dim is n.
func (q *QCQP) Dim() int { return q.n }

// Constraints is m.
func (q *QCQP) Constraints() int { return q.m }

// LipF is L_f = ||Q||_2, the Lipschitz constant of grad f (for reporting
// and tests: the methods' default rules use only n).
func (q *QCQP) LipF() float64 { return q.lipF }

// LipH is L_{h_j} = ||A_j||_2.
func (q *QCQP) LipH(j int) float64 { return q.lipH[j] }

// LambdaMinQ is lambda_min(Q).
func (q *QCQP) LambdaMinQ() float64 { return q.lminQ }

// Eval writes [f(x), h_1(x), ..., h_m(x)] into v (length 1 + m); it
// needs no scratch (work may be nil). For each form c it computes
//
//	value_c = sum_l x_l (U_c[l] . x[l:] + lin_c[l]) + const_c,
//
// with U_c[l] row l of the upper triangle of the form's matrix from the
// diagonal on, the diagonal halved: this is (1/2) x^T M_c x + lin_c^T x +
// const_c in about n^2 (1 + m) / 2 multiply-adds, the dot products by
// floats.Dot, the outer sum in ascending l. Every value of the package (F,
// H, Measure) and of zosplm's Oracle goes through Eval, so they agree bit
// for bit.
func (q *QCQP) Eval(x, v, _ []float64) {
	copy(v, q.cnst)
	for l, xl := range x[:q.n] {
		if xl == 0 {
			continue
		}
		tail := x[l:q.n]
		for c, rows := range q.up {
			v[c] += xl * (floats.Dot(rows[l], tail) + q.lin[c][l])
		}
	}
}

// WorkLen is the length of Eval's scratch: 0, Eval needs none.
func (q *QCQP) WorkLen() int { return 0 }

// F returns f(x) = (1/2) x^T Q x + d^T x.
func (q *QCQP) F(x []float64) float64 {
	v := make([]float64, 1+q.m)
	q.Eval(x, v, nil)
	return v[0]
}

// H writes h(x) = (h_1(x), ..., h_m(x)) into h (length m).
func (q *QCQP) H(x, h []float64) {
	v := make([]float64, 1+q.m)
	q.Eval(x, v, nil)
	copy(h, v[1:])
}

// GradF writes grad f(x) = Q x + d into g (exact; measurement only).
func (q *QCQP) GradF(x, g []float64) {
	gv := mat.NewVecDense(q.n, g)
	gv.MulVec(q.Q, mat.NewVecDense(q.n, x))
	floats.Add(g, q.D)
}

// GradH writes grad h_j(x) = A_j x + b_j, the j-th row of the Jacobian of
// h, into g (exact; measurement only).
func (q *QCQP) GradH(j int, x, g []float64) {
	gv := mat.NewVecDense(q.n, g)
	gv.MulVec(q.A[j], mat.NewVecDense(q.n, x))
	floats.Add(g, q.B[j])
}

// JacH returns the m x n Jacobian of h at x, row j = (A_j x + b_j)^T
// (exact; measurement only).
func (q *QCQP) JacH(x []float64) *mat.Dense {
	J := mat.NewDense(q.m, q.n, nil)
	for j := range q.m {
		q.GradH(j, x, J.RawRowView(j))
	}
	return J
}
