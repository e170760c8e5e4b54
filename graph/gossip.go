package graph

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// Rate predictions for randomized gossip.
//
// Gossip iterates x_{t+1} = W_t x_t, where W_t = W(zeta_t) is the mixing
// matrix (see Mixing) of the edges present in round t under the Bernoulli
// edge process of the graph: edge e is present with probability p_e,
// independently of the other edges, and the draws are i.i.d. over rounds.
// Every W(zeta) is symmetric with W 1 = 1, so with P = I - 11^T/N it
// commutes with P and the disagreement e_t = P x_t obeys e_{t+1} = W_t e_t.
//
// Write W(zeta) = I - sum_e v_e L_e, where L_e = b_e b_e^T, b_e = e_i - e_j
// for e = {i, j}, and v_e = delta_e w_e(zeta) is the weight of e when
// present (delta_e = 1) and 0 otherwise. With a_e = E[v_e], the mean
// Laplacian Abar = sum_e a_e L_e and the edge-pair moments
// c_ef = E[v_e v_f], the second moment of the disagreement,
// S_t = E[e_t e_t^T], evolves linearly, S_{t+1} = T(S_t) with
//
//	T(S) = E[P W S W^T P] = S - (Abar S + S Abar) + sum_{e,f} c_ef L_e S L_f
//	     = S - (Abar S + S Abar) + B^T (C o (B S B^T)) B,
//
// B the |E| x N incidence matrix (rows b_e^T) and o the entrywise product.
// T maps the symmetric matrices S = P S P to themselves; it is self-adjoint
// in the Frobenius inner product (<A, T(B)> = E tr(A W B W) = <T(A), B>) and
// positive (T(S) is PSD when S is), so by the Krein-Rutman theorem its
// spectral radius rho2 is its largest eigenvalue, with a PSD eigenvector
// S*. Hence E||e_t||^2 = tr S_t decays like rho2^t in the long run, for
// every start with tr(S_0 S*) > 0, and exactly like rho2^t when S_0 = S*.
//
// The moments a_e and c_ef are:
//
//   - uniform weights (v_e = alpha delta_e), closed form by edge
//     independence: a_e = alpha p_e, c_ef = alpha^2 p_e p_f for e != f and
//     c_ee = alpha^2 p_e, i.e. E[L kron L] = sum_{e != f} p_e p_f
//     L_e kron L_f + sum_e p_e L_e kron L_e;
//   - Metropolis-Hastings weights, exact: v_e depends only on the presence
//     of e and the realized degrees of its endpoints, i.e. on the edges
//     N(e) that touch an endpoint of e. So c_ef = a_e a_f when N(e) and
//     N(f) are disjoint; otherwise, and for a_e and c_ee,
//     c_ef = p_e p_f E[w_e w_f | e, f present], an expectation over the
//     joint law of the realized degrees of the (at most 4) endpoints of e
//     and f, which is computed exactly by adding the independent edges of
//     N(e) u N(f) one at a time to the distribution of the degree vector
//     (a dynamic program over the prod_u (deg(u) + 1) <= (|E|/2 + 1)^4
//     degree vectors). This is the enumeration of all presence patterns,
//     grouped by the degrees they produce, so it is exact for any graph;
//     it is used while its total work (states times edges, summed over the
//     moments) stays within GossipOptions.MaxWork. The default budget
//     covers every graph with at most 16 edges (at most 136 pairs of
//     9^4 states and 32 edges each) and the sparse topologies (ring,
//     torus) of any size;
//   - Metropolis-Hastings weights otherwise, by Monte Carlo: a_e and c_ef
//     are averages over Samples draws (the rounds 0..Samples-1 of the
//     Bernoulli process with GossipOptions.Seed). The estimated map T^ is
//     itself a positive self-adjoint map, and rho2 = rho(T^) carries the
//     delta-method standard error sd(q_s)/sqrt(Samples) with
//     q_s = <S*, W_s S* W_s>, ||S*||_F = 1.
//
// rho2 is computed by Lanczos iteration with full reorthogonalization on
// the space of symmetric matrices S = P S P, applying T through the
// formula above (O(N^2 |E| + |E|^2) per step, never forming the N^2 x N^2
// matrix E[W kron W]), started from P, which overlaps S* since
// <P, S*> = tr S* > 0.

// Defaults of GossipOptions.
const (
	// DefaultMaxWork bounds the exact computation of the
	// Metropolis-Hastings moments: about 2.7e8 state updates, a second or
	// two.
	DefaultMaxWork = 1 << 28
	// DefaultGossipSamples is the Monte Carlo sample count, reduced on
	// dense graphs (see GossipOptions.Samples).
	DefaultGossipSamples = 20000
	// MinGossipSamples is the smallest default Monte Carlo sample count.
	MinGossipSamples = 1000
)

// GossipOptions tunes GossipRates. The zero value selects the defaults.
type GossipOptions struct {
	// MaxWork bounds the exact computation of the Metropolis-Hastings
	// moments, in state updates of its dynamic program; past it the whole
	// computation switches to Monte Carlo. 0 means DefaultMaxWork; a
	// negative value forces Monte Carlo.
	MaxWork int64
	// Samples is the Monte Carlo sample count. 0 means
	// DefaultGossipSamples, reduced to keep Samples m^2 within
	// DefaultMaxWork for m = sum_e p_e, the expected number of present
	// edges (one sample costs O(m^2)), but never below MinGossipSamples.
	// GossipRates.MeanSquareSE reports the precision reached.
	Samples int
	// Seed is the seed of the Monte Carlo draws.
	Seed uint64
}

// GossipRates are the rate predictions of gossip x_{t+1} = W_t x_t on a
// graph with a mixing rule.
type GossipRates struct {
	// MeanSquare is rho2, the spectral radius of S -> E[P W S W^T P] on
	// the symmetric matrices S = P S P: the long-run per-round factor of
	// E||x_t - xbar_t||^2.
	MeanSquare float64
	// MeanSquareSE is the standard error of MeanSquare: 0 when Exact.
	MeanSquareSE float64
	// Exact reports that the moments were computed exactly (closed form
	// or enumeration), up to the Lanczos tolerance.
	Exact bool
	// Samples is the Monte Carlo sample count, 0 when Exact.
	Samples int
	// Iterations is the number of Lanczos steps taken.
	Iterations int
	// Mode is S*, the eigenvector of MeanSquare (PSD, trace 1): the shape
	// of E[e_t e_t^T] in the long run. A Gaussian start x_0 ~ N(0, S*)
	// has E||e_t||^2 = MeanSquare^t exactly.
	Mode *mat.SymDense
	// WorstStep is lambda_max(E[W^T P W]) = max over e perpendicular to 1
	// of E||W e||^2 / ||e||^2: the worst single-round factor. It bounds
	// MeanSquare from above.
	WorstStep float64
	// FirstMoment is the spectral radius of E[W] on the disagreement
	// subspace, rho(E[W] - 11^T/N): the rate of ||E[e_t]||. Its square
	// bounds MeanSquare from below.
	FirstMoment float64
}

// GossipRates returns the rate predictions of gossip with mixing rule m on
// g under its Bernoulli edge process. It fails if m is invalid for g.
func (g *Graph) GossipRates(m Mixing, opt GossipOptions) (GossipRates, error) {
	if err := m.ValidateFor(g); err != nil {
		return GossipRates{}, fmt.Errorf("graph: gossip rates: %w", err)
	}
	if opt.MaxWork == 0 {
		opt.MaxWork = DefaultMaxWork
	}
	if opt.Samples == 0 {
		var m float64
		for _, e := range g.Edges {
			m += e.P
		}
		opt.Samples = int(min(DefaultGossipSamples, max(MinGossipSamples, DefaultMaxWork/max(m*m, 1))))
	}
	if opt.Samples < 2 {
		return GossipRates{}, fmt.Errorf("graph: gossip rates: samples = %d: need at least 2", opt.Samples)
	}
	N := g.N
	if N == 1 {
		return GossipRates{Exact: true, Mode: mat.NewSymDense(1, nil)}, nil
	}
	mo := g.mixingMoments(m, opt)
	var r GossipRates
	r.Exact, r.Samples = mo.exact, mo.samples
	proj := func(s *mat.Dense) { projectDisagreement(s) }
	p := identity(N)
	proj(p)
	theta, mode, iters, err := lanczosTop(mo.apply, proj, p, N*(N-1)/2)
	if err != nil {
		return GossipRates{}, fmt.Errorf("graph: gossip rates: %w", err)
	}
	r.MeanSquare, r.Iterations = theta, iters
	// Orient S* positive (trace > 0) and report it with trace 1.
	var tr float64
	for i := range N {
		tr += mode.At(i, i)
	}
	r.Mode = mat.NewSymDense(N, nil)
	for i := range N {
		for j := i; j < N; j++ {
			r.Mode.SetSym(i, j, (mode.At(i, j)+mode.At(j, i))/(2*tr))
		}
	}
	if !mo.exact {
		mode.Scale(1/math.Sqrt(frob(mode, mode)), mode)
		r.MeanSquareSE = g.monteCarloSE(m, opt, mode)
	}
	tp := mat.NewDense(N, N, nil)
	mo.apply(p, tp)
	if r.WorstStep, err = symExtreme(tp, false); err != nil {
		return GossipRates{}, fmt.Errorf("graph: gossip rates: E[W P W]: %w", err)
	}
	ew := identity(N)
	ew.Sub(ew, mo.abar)
	for i := range N {
		for j := range N {
			ew.Set(i, j, ew.At(i, j)-1/float64(N))
		}
	}
	if r.FirstMoment, err = symExtreme(ew, true); err != nil {
		return GossipRates{}, fmt.Errorf("graph: gossip rates: E[W]: %w", err)
	}
	return r, nil
}

// moments are a_e = E[v_e] (through Abar = sum_e a_e L_e) and
// c_ef = E[v_e v_f] of a random mixing matrix W = I - sum_e v_e L_e.
type moments struct {
	g       *Graph
	abar    *mat.Dense
	c       []float64 // c[e*|E|+f] = c_ef
	exact   bool
	samples int
}

// newMoments returns the moments with a_e = a[e] and the given c.
func newMoments(g *Graph, a, c []float64) *moments {
	abar := mat.NewDense(g.N, g.N, nil)
	for k, e := range g.Edges {
		abar.Set(e.I, e.I, abar.At(e.I, e.I)+a[k])
		abar.Set(e.J, e.J, abar.At(e.J, e.J)+a[k])
		abar.Set(e.I, e.J, abar.At(e.I, e.J)-a[k])
		abar.Set(e.J, e.I, abar.At(e.J, e.I)-a[k])
	}
	return &moments{g: g, abar: abar, c: c, exact: true}
}

// apply writes T(S) = S - (Abar S + S Abar) + B^T (C o (B S B^T)) B into
// dst, for symmetric S (N x N, contiguous, like dst).
func (mo *moments) apply(s, dst *mat.Dense) {
	var as mat.Dense
	as.Mul(mo.abar, s)
	dst.Copy(s)
	dst.Sub(dst, &as)
	dst.Sub(dst, as.T())
	E, M, N := mo.g.Edges, len(mo.g.Edges), mo.g.N
	sd, dd := s.RawMatrix().Data, dst.RawMatrix().Data
	for e := range M {
		ie, je := E[e].I*N, E[e].J*N
		row := mo.c[e*M : (e+1)*M]
		for f, c := range row {
			if c == 0 {
				continue
			}
			i, j := E[f].I, E[f].J
			q := float64(c * (sd[ie+i] - sd[ie+j] - sd[je+i] + sd[je+j]))
			dd[ie+i] += q
			dd[ie+j] -= q
			dd[je+i] -= q
			dd[je+j] += q
		}
	}
}

// mixingMoments computes the moments of W(zeta) under m: closed form for
// uniform weights, enumeration or Monte Carlo for Metropolis-Hastings.
func (g *Graph) mixingMoments(m Mixing, opt GossipOptions) *moments {
	M := len(g.Edges)
	a, c := make([]float64, M), make([]float64, M*M)
	if m.Rule == MixUniform {
		for e, ee := range g.Edges {
			a[e] = m.Alpha * ee.P
			for f, ff := range g.Edges {
				if e == f {
					c[e*M+f] = m.Alpha * m.Alpha * ee.P
				} else {
					c[e*M+f] = m.Alpha * m.Alpha * ee.P * ff.P
				}
			}
		}
		return newMoments(g, a, c)
	}
	if opt.MaxWork >= 0 {
		if mo := g.exactMoments(m, opt.MaxWork, a, c); mo != nil {
			return mo
		}
	}
	present, deg, v := make([]bool, M), make([]int, g.N), make([]float64, M)
	proc := Bernoulli{G: g, Seed: opt.Seed}
	clear(a)
	clear(c)
	var on []int
	for s := range opt.Samples {
		proc.Present(s, 0, present)
		m.edgeWeights(g, present, deg, v)
		on = on[:0]
		for e := range M {
			if v[e] != 0 {
				on = append(on, e)
				a[e] += v[e]
			}
		}
		for k, e := range on {
			for _, f := range on[k:] {
				c[e*M+f] += float64(v[e] * v[f])
			}
		}
	}
	for e := range M {
		for f := e + 1; f < M; f++ {
			c[f*M+e] = c[e*M+f]
		}
	}
	inv := 1 / float64(opt.Samples)
	for k := range a {
		a[k] *= inv
	}
	for k := range c {
		c[k] *= inv
	}
	mo := newMoments(g, a, c)
	mo.exact, mo.samples = false, opt.Samples
	return mo
}

// exactMoments computes the Metropolis-Hastings moments exactly (see the
// comment at the top of the file). It returns nil, leaving a and c
// partly written, if the work would exceed maxWork.
func (g *Graph) exactMoments(m Mixing, maxWork int64, a, c []float64) *moments {
	M := len(g.Edges)
	dp := newDegreeDP(g, m, maxWork)
	for e := range M {
		m1, m2, ok := dp.expect(e, -1)
		if !ok {
			return nil
		}
		a[e], c[e*M+e] = g.Edges[e].P*m1, g.Edges[e].P*m2
	}
	near := make([]int, M) // near[f] == e+1: N(f) meets N(e)
	for e := range M {
		// N(f) meets N(e) iff f touches an endpoint of an edge of N(e).
		for _, u := range [2]int{g.Edges[e].I, g.Edges[e].J} {
			for _, h := range dp.inc[u] {
				for _, w := range [2]int{g.Edges[h].I, g.Edges[h].J} {
					for _, f := range dp.inc[w] {
						near[f] = e + 1
					}
				}
			}
		}
		for f := e + 1; f < M; f++ {
			if near[f] == e+1 {
				m1, _, ok := dp.expect(e, f)
				if !ok {
					return nil
				}
				c[e*M+f] = g.Edges[e].P * g.Edges[f].P * m1
			} else {
				c[e*M+f] = a[e] * a[f]
			}
			c[f*M+e] = c[e*M+f]
		}
	}
	return newMoments(g, a, c)
}

// degreeDP computes conditional expectations of Metropolis-Hastings
// weights over the joint law of the realized degrees of a few agents.
type degreeDP struct {
	g     *Graph
	m     Mixing
	inc   [][]int // inc[u]: edges at agent u
	prob  []float64
	next  []float64
	verts []int
	mark  []int
	stamp int
	work  int64 // state updates so far
	max   int64 // budget of work
}

func newDegreeDP(g *Graph, m Mixing, maxWork int64) *degreeDP {
	dp := &degreeDP{g: g, m: m, inc: make([][]int, g.N), mark: make([]int, len(g.Edges)), max: maxWork}
	for k, e := range g.Edges {
		dp.inc[e.I] = append(dp.inc[e.I], k)
		dp.inc[e.J] = append(dp.inc[e.J], k)
	}
	return dp
}

// expect returns, given that e (and f, when f >= 0) are present,
// E[w_e w_f] (f >= 0) or E[w_e] and E[w_e^2] (f < 0). It propagates the
// law of the degree vector of the endpoints V of e and f, encoded as the
// digits of a mixed-radix number (radix deg(u) + 1 for u in V), through
// the edges at V other than
// e and f, each present independently with its p. It returns false,
// before any work, if the work would exceed the budget.
func (dp *degreeDP) expect(e, f int) (float64, float64, bool) {
	g := dp.g
	dp.verts = dp.verts[:0]
	addVert := func(u int) {
		for _, v := range dp.verts {
			if v == u {
				return
			}
		}
		dp.verts = append(dp.verts, u)
	}
	for _, k := range [2]int{e, f} {
		if k >= 0 {
			addVert(g.Edges[k].I)
			addVert(g.Edges[k].J)
		}
	}
	radix := func(u int) int { return len(dp.inc[u]) + 1 }
	digit := func(u int) int { // place value of u's degree, 0 if u is not in V
		d := 1
		for _, v := range dp.verts {
			if v == u {
				return d
			}
			d *= radix(v)
		}
		return 0
	}
	step := func(k int) int { return digit(g.Edges[k].I) + digit(g.Edges[k].J) }
	size, nedges := 1, 0
	for _, u := range dp.verts {
		size *= radix(u)
		nedges += len(dp.inc[u])
	}
	if dp.work += int64(size) * int64(nedges); dp.work > dp.max {
		return 0, 0, false
	}
	dp.prob = append(dp.prob[:0], make([]float64, size)...)
	dp.next = append(dp.next[:0], make([]float64, size)...)
	start := step(e)
	if f >= 0 {
		start += step(f)
	}
	dp.prob[start] = 1
	dp.stamp++
	for _, u := range dp.verts {
		for _, h := range dp.inc[u] {
			if h == e || h == f || dp.mark[h] == dp.stamp {
				continue
			}
			dp.mark[h] = dp.stamp
			p, d := g.Edges[h].P, step(h)
			clear(dp.next)
			for s, q := range dp.prob {
				if q == 0 {
					continue
				}
				dp.next[s+d] += float64(q * p)
				if p < 1 {
					dp.next[s] += float64(q * (1 - p))
				}
			}
			dp.prob, dp.next = dp.next, dp.prob
		}
	}
	degree := func(s, u int) int { return s / digit(u) % radix(u) }
	weight := func(s, k int) float64 {
		return dp.m.Weight(degree(s, g.Edges[k].I), degree(s, g.Edges[k].J))
	}
	var m1, m2 float64
	for s, q := range dp.prob {
		if q == 0 {
			continue
		}
		we := weight(s, e)
		if f >= 0 {
			m1 += float64(q * we * weight(s, f))
		} else {
			m1 += float64(q * we)
			m2 += float64(q * we * we)
		}
	}
	return m1, m2, true
}

// monteCarloSE returns sd(q_s)/sqrt(Samples), q_s = <S*, W_s S* W_s> over
// the same draws as the Monte Carlo moments, for ||S*||_F = 1.
func (g *Graph) monteCarloSE(m Mixing, opt GossipOptions, mode *mat.Dense) float64 {
	N, M := g.N, len(g.Edges)
	present, deg, v := make([]bool, M), make([]int, N), make([]float64, M)
	proc := Bernoulli{G: g, Seed: opt.Seed}
	sd := mode.RawMatrix().Data
	y := make([]float64, N*N)
	var sum, sum2 float64
	for s := range opt.Samples {
		proc.Present(s, 0, present)
		m.edgeWeights(g, present, deg, v)
		// Y = W S* = S* - sum_e v_e b_e (b_e^T S*).
		copy(y, sd)
		for k, e := range g.Edges {
			if v[k] == 0 {
				continue
			}
			for l := range N {
				d := float64(v[k] * (sd[e.I*N+l] - sd[e.J*N+l]))
				y[e.I*N+l] -= d
				y[e.J*N+l] += d
			}
		}
		// q = tr(S* W S* W) = tr(Y Y).
		var q float64
		for i := range N {
			for j := range N {
				q += float64(y[i*N+j] * y[j*N+i])
			}
		}
		sum += q
		sum2 += float64(q * q)
	}
	n := float64(opt.Samples)
	mean := sum / n
	return math.Sqrt(math.Max(sum2-float64(n*mean*mean), 0) / (n - 1) / n)
}

// lanczosTop returns the largest eigenvalue of the self-adjoint map apply
// (in the Frobenius inner product) on the subspace fixed by proj, of
// dimension dim, its unit eigenvector and the number of steps taken, by
// Lanczos iteration with full reorthogonalization from start.
func lanczosTop(apply func(s, dst *mat.Dense), proj func(*mat.Dense), start *mat.Dense, dim int) (float64, *mat.Dense, int, error) {
	const tol = 1e-11
	r, c := start.Dims()
	nrm := math.Sqrt(frob(start, start))
	if nrm == 0 {
		return 0, nil, 0, fmt.Errorf("lanczos: zero start")
	}
	q := mat.NewDense(r, c, nil)
	q.Scale(1/nrm, start)
	var qs []*mat.Dense
	var alpha, beta []float64
	maxIter := min(dim, 500)
	for j := 0; ; j++ {
		qs = append(qs, q)
		w := mat.NewDense(r, c, nil)
		apply(q, w)
		proj(w)
		aj := frob(w, q)
		alpha = append(alpha, aj)
		for pass := 0; pass < 2; pass++ {
			for _, qi := range qs {
				addScaled(w, -frob(w, qi), qi)
			}
		}
		// Project once more: the round-off the subtractions leave outside
		// the subspace would otherwise grow by 1/b_j per step.
		proj(w)
		bj := math.Sqrt(frob(w, w))
		if j%4 == 3 || j+1 >= maxIter || bj <= 1e-14*math.Abs(aj) {
			theta, s, err := tridiagTop(alpha, beta)
			if err != nil {
				return 0, nil, 0, err
			}
			// The Ritz pair's residual is ||T(v) - theta v|| = b_j |s_j|; a
			// Krylov space of the full dimension is invariant.
			done := bj*math.Abs(s[j]) <= tol*math.Max(math.Abs(theta), 1e-300) || j+1 >= dim
			if !done && j+1 >= maxIter {
				return 0, nil, 0, fmt.Errorf("lanczos: no convergence in %d steps (residual %.3g)", maxIter, bj*math.Abs(s[j]))
			}
			if done || bj <= 1e-14*math.Abs(aj) {
				vec := mat.NewDense(r, c, nil)
				for i, qi := range qs {
					addScaled(vec, s[i], qi)
				}
				return theta, vec, j + 1, nil
			}
		}
		beta = append(beta, bj)
		q = w
		q.Scale(1/bj, w)
	}
}

// tridiagTop returns the largest eigenvalue of the symmetric tridiagonal
// matrix with diagonal alpha and off-diagonal beta, and its eigenvector.
func tridiagTop(alpha, beta []float64) (float64, []float64, error) {
	k := len(alpha)
	t := mat.NewSymDense(k, nil)
	for i := range k {
		t.SetSym(i, i, alpha[i])
		if i+1 < k {
			t.SetSym(i, i+1, beta[i])
		}
	}
	var es mat.EigenSym
	if !es.Factorize(t, true) {
		return 0, nil, fmt.Errorf("lanczos: tridiagonal eigendecomposition (k=%d) did not converge", k)
	}
	var vecs mat.Dense
	es.VectorsTo(&vecs)
	return es.Values(nil)[k-1], mat.Col(nil, k-1, &vecs), nil
}

// symExtreme returns the largest eigenvalue of the symmetric part of a, or
// with abs its largest eigenvalue in absolute value.
func symExtreme(a *mat.Dense, abs bool) (float64, error) {
	n, _ := a.Dims()
	s := mat.NewSymDense(n, nil)
	for i := range n {
		for j := i; j < n; j++ {
			s.SetSym(i, j, (a.At(i, j)+a.At(j, i))/2)
		}
	}
	var es mat.EigenSym
	if !es.Factorize(s, false) {
		return 0, fmt.Errorf("eigendecomposition (N=%d) did not converge", n)
	}
	ev := es.Values(nil)
	if abs {
		return math.Max(math.Abs(ev[0]), math.Abs(ev[n-1])), nil
	}
	return ev[n-1], nil
}

// projectDisagreement sets S <- P sym(S) P, P = I - 11^T/N, sym(S) =
// (S + S^T)/2: the entries (S_ij + S_ji)/2 - rbar_i - rbar_j + sbar with
// the row means rbar of sym(S) and its grand mean sbar. Symmetrizing keeps
// round-off from leaving the symmetric matrices, on which T is
// self-adjoint.
func projectDisagreement(s *mat.Dense) {
	n, _ := s.Dims()
	for i := range n {
		for j := i + 1; j < n; j++ {
			v := (s.At(i, j) + s.At(j, i)) / 2
			s.Set(i, j, v)
			s.Set(j, i, v)
		}
	}
	rows := make([]float64, n)
	var all float64
	for i := range n {
		for j := range n {
			rows[i] += s.At(i, j)
		}
		all += rows[i]
	}
	fn := float64(n)
	for i := range n {
		for j := range n {
			s.Set(i, j, s.At(i, j)-rows[i]/fn-rows[j]/fn+all/(fn*fn))
		}
	}
}

// identity returns the N x N identity as a Dense.
func identity(n int) *mat.Dense {
	d := mat.NewDense(n, n, nil)
	for i := range n {
		d.Set(i, i, 1)
	}
	return d
}

// frob returns the Frobenius inner product <a, b> = sum_ij a_ij b_ij of two
// contiguous matrices of the same shape.
func frob(a, b *mat.Dense) float64 {
	ad, bd := a.RawMatrix().Data, b.RawMatrix().Data
	var s float64
	for k, v := range ad {
		s += float64(v * bd[k])
	}
	return s
}

// addScaled sets dst <- dst + alpha src for contiguous matrices.
func addScaled(dst *mat.Dense, alpha float64, src *mat.Dense) {
	dd, sd := dst.RawMatrix().Data, src.RawMatrix().Data
	for k, v := range sd {
		dd[k] += float64(alpha * v)
	}
}
