package graph

import (
	"math"
)

// Extreme Laplacian eigenvalues of large graphs by the Lanczos method on
// the sparse Laplacian. The dense route (Laplacian, then SymEigenvalue)
// stores N^2 numbers and costs (4/3) N^3 flops: 7 s at N = 2,000 and
// minutes at N = 5,000. Graphs with more than DenseSpectrumMaxN agents
// take lambda_max and lambda_2 from Lanczos instead, in O(|E|) memory and
// O(k |E|) time for k steps; smaller graphs keep the dense route, so the
// bits of every run on them are unchanged.
//
// Lanczos builds an orthonormal basis q_1..q_k of the Krylov space
// span{v, L v, ..., L^{k-1} v} by the three-term recurrence
//
//	w = L q_j - beta_{j-1} q_{j-1},  alpha_j = q_j^T w,
//	w = w - alpha_j q_j,  beta_j = ||w||,  q_{j+1} = w / beta_j,
//
// so that Q_k^T L Q_k = T_k, tridiagonal with diagonal alpha and
// off-diagonal beta. The eigenvalues of T_k (Ritz values) are taken by
// bisection on its Sturm count (bisect), as in the dense route. The
// largest Ritz value theta satisfies theta <= lambda_max in exact
// arithmetic for every k, and the Ritz pair (theta, Q_k s) has the
// residual ||L Q_k s - theta Q_k s|| = beta_k |s_k| (s the unit
// eigenvector of T_k for theta): some eigenvalue of L lies within that
// residual of theta. The iteration stops when the residual is at most
// LanczosTol * theta, when beta_k vanishes (the Krylov space is invariant
// and theta is exact), or after LanczosMaxSteps steps. No
// reorthogonalization is done: lost orthogonality only repeats converged
// Ritz values, it does not move the extreme one, and it keeps the memory
// at three vectors of length N.
//
// lambda_2 is the smallest eigenvalue of L on the complement of the
// constant vector 1 (L 1 = 0): the start vector and every w are projected
// onto 1^perp (w - mean(w) 1), and the smallest Ritz value is taken.
//
// Every product is rounded and every sum runs in a fixed order (the
// package's rule "Floating point"), so the result has the same bits on
// every architecture.

// DenseSpectrumMaxN is the largest number of agents whose LambdaMax and
// Lambda2 come from the dense eigensolver; larger graphs use Lanczos.
const DenseSpectrumMaxN = 512

// LanczosTol is the relative Ritz residual at which the sparse extreme
// eigenvalue is accepted; LanczosMaxSteps bounds the number of steps.
const (
	LanczosTol      = 1e-10
	LanczosMaxSteps = 600
)

// LanczosResult is an extreme eigenvalue estimate of a weighted Laplacian.
type LanczosResult struct {
	// Value is the extreme Ritz value theta.
	Value float64
	// Residual is beta_k |s_k|: an eigenvalue of L lies in
	// [Value - Residual, Value + Residual].
	Residual float64
	// Upper is a certified upper bound of lambda_max(L_w):
	// min{Value + Residual, max_{i~j} (d_i + d_j)}, d_i = sum_{j ~ i} w_ij
	// the weighted degree (for LanczosLambda2 it is the second bound
	// alone). With Value <= lambda_max it brackets lambda_max.
	Upper float64
	// Steps is the number of Lanczos steps k taken.
	Steps int
}

// sparseLaplacian is L_w in edge form: y = L x is
// y_i = sum_{j ~ i} w_ij (x_i - x_j), accumulated over the edges in index
// order.
type sparseLaplacian struct {
	n    int
	i, j []int32
	w    []float64
}

func (g *Graph) sparseLaplacian(weight Weight) *sparseLaplacian {
	if weight == nil {
		weight = Unit
	}
	l := &sparseLaplacian{n: g.N, i: make([]int32, len(g.Edges)), j: make([]int32, len(g.Edges)), w: make([]float64, len(g.Edges))}
	for k, e := range g.Edges {
		l.i[k], l.j[k], l.w[k] = int32(e.I), int32(e.J), weight(e)
	}
	return l
}

// mul sets y = L x.
func (l *sparseLaplacian) mul(x, y []float64) {
	clear(y)
	for k, w := range l.w {
		i, j := l.i[k], l.j[k]
		d := float64(w * (x[i] - x[j]))
		y[i] += d
		y[j] -= d
	}
}

// edgeBound returns max_{i~j} (d_i + d_j) over the edges, d_i the
// weighted degree: an upper bound of lambda_max(L_w). With B the
// incidence matrix and W = diag(w), L_w = B W B^T has the nonzero
// spectrum of K = W^(1/2) B^T B W^(1/2), whose entries are
// |K_ef| = sqrt(w_e w_f) (1 if e, f share one endpoint, 2 if e = f);
// rho(K) <= rho(|K|) = rho(D^-1 |K| D) for D = W^(1/2), and the row of
// edge e = {i, j} in D^-1 |K| D sums to 2 w_e + sum_{f ~ e} w_f =
// d_i + d_j (Anderson and Morley's bound, weighted).
func (l *sparseLaplacian) edgeBound() float64 {
	deg := make([]float64, l.n)
	for k, w := range l.w {
		deg[l.i[k]] += w
		deg[l.j[k]] += w
	}
	var m float64
	for k := range l.w {
		m = max(m, deg[l.i[k]]+deg[l.j[k]])
	}
	return m
}

// LanczosLambdaMax returns the Lanczos estimate of lambda_max(L_w) (nil
// weight means Unit).
func (g *Graph) LanczosLambdaMax(weight Weight) LanczosResult {
	return g.sparseLaplacian(weight).lanczos(false)
}

// LanczosLambda2 returns the Lanczos estimate of lambda_2(L_w), the
// smallest eigenvalue on the complement of the constant vector (nil
// weight means Unit).
func (g *Graph) LanczosLambda2(weight Weight) LanczosResult {
	return g.sparseLaplacian(weight).lanczos(true)
}

// lanczos runs the iteration described above: for the largest Ritz value
// on R^N, or (deflate) for the smallest on 1^perp.
func (l *sparseLaplacian) lanczos(deflate bool) LanczosResult {
	n := l.n
	if n < 2 || len(l.w) == 0 {
		return LanczosResult{}
	}
	q := make([]float64, n)
	prev := make([]float64, n)
	w := make([]float64, n)
	// A fixed start vector with a component along every eigenvector with
	// probability one: uniforms of a named stream.
	start := NamedStream("graph.lanczos")
	for i := range q {
		q[i] = float64(start.Uniform(0, 0, uint64(i), 0)) - 0.5
	}
	if deflate {
		center(q)
	}
	scale(q, 1/math.Sqrt(sumSq(q)))
	bound := l.edgeBound()
	var alpha, beta2 []float64
	var beta float64
	res := LanczosResult{}
	for k := 1; k <= min(LanczosMaxSteps, n); k++ {
		l.mul(q, w)
		for i := range w {
			w[i] -= float64(beta * prev[i])
		}
		a := dotRounded(q, w)
		for i := range w {
			w[i] -= float64(a * q[i])
		}
		if deflate {
			center(w)
		}
		alpha = append(alpha, a)
		beta = math.Sqrt(sumSq(w))
		done := beta <= 0x1p-40*bound || k == min(LanczosMaxSteps, n)
		if k%5 == 0 || done {
			idx := len(alpha) - 1
			if deflate {
				idx = 0
			}
			theta := bisect(alpha, beta2, idx)
			s := lastComponent(alpha, beta2, theta, bound, !deflate)
			res = LanczosResult{Value: theta, Residual: float64(beta * s), Steps: k}
			if done || res.Residual <= LanczosTol*math.Abs(theta) {
				break
			}
		}
		beta2 = append(beta2, float64(beta*beta))
		prev, q, w = q, w, prev
		scale(q, 1/beta)
	}
	res.Value = max(res.Value, 0)
	res.Upper = bound
	if !deflate {
		res.Upper = min(bound, res.Value+res.Residual)
	}
	return res
}

// lastComponent returns |s_k| for the unit eigenvector s of the k x k
// tridiagonal T (diagonal d, squared off-diagonal e2) for its eigenvalue
// theta, by three steps of inverse iteration with T - (theta +- delta) I,
// delta a small shift relative to the spectral bound, outside the
// spectrum of T (above theta for the largest eigenvalue, below for the
// smallest), so that the elimination meets no zero pivot.
func lastComponent(d, e2 []float64, theta, bound float64, largest bool) float64 {
	k := len(d)
	if k == 1 {
		return 1
	}
	e := make([]float64, k-1)
	for i, v := range e2 {
		e[i] = math.Sqrt(v)
	}
	delta := float64(0x1p-30 * max(bound, math.Abs(theta)))
	shift := theta - delta
	if largest {
		shift = theta + delta
	}
	s := make([]float64, k)
	for i := range s {
		s[i] = 1
	}
	piv := make([]float64, k)
	tiny := 0x1p-60 * max(bound, 1)
	for range 3 {
		// Solve (T - shift I) u = s by Gaussian elimination without
		// pivoting (Thomas algorithm), replacing a tiny pivot.
		piv[0] = d[0] - shift
		if math.Abs(piv[0]) < tiny {
			piv[0] = tiny
		}
		for i := 1; i < k; i++ {
			m := e[i-1] / piv[i-1]
			piv[i] = (d[i] - shift) - float64(m*e[i-1])
			if math.Abs(piv[i]) < tiny {
				piv[i] = tiny
			}
			s[i] -= float64(m * s[i-1])
		}
		s[k-1] /= piv[k-1]
		for i := k - 2; i >= 0; i-- {
			s[i] = (s[i] - float64(e[i]*s[i+1])) / piv[i]
		}
		scale(s, 1/math.Sqrt(sumSq(s)))
	}
	return math.Abs(s[k-1])
}

// center subtracts the mean from x: the projection onto 1^perp.
func center(x []float64) {
	var s float64
	for _, v := range x {
		s += v
	}
	m := s / float64(len(x))
	for i := range x {
		x[i] -= m
	}
}

// scale multiplies x by c.
func scale(x []float64, c float64) {
	for i := range x {
		x[i] = float64(x[i] * c)
	}
}
