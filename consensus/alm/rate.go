package alm

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/consim/consim/graph"
	"github.com/consim/consim/objective"
)

// Rate predictions for the ALM on quadratic problems.
//
// When every f_i is quadratic, grad f_i(x) = H_i x + g_i, the box is not
// active and no safeguard reset fires, round t of the method (see
// Reference.Step) is an affine map of the stacked state
// w = (x, y, z) in R^D, D = n (2N + |E|):
//
//	w_{t+1} = M(zeta_t) w_t + c,
//
// where zeta_t = (zeta0, zeta1, zeta2) are the round's three edge draws,
// delta^d_e in {0, 1} the presence of edge e in draw d, b_e = e_I - e_J
// for e = {I, J}, L_e = b_e b_e^T (all kron I_n), sigma the objective
// scale and H = blkdiag(H_i):
//
//	y_e' = y_e + eta delta^0_e b_e^T x
//	x'   = x - tau [ (sigma/N)(H x + g) + sum_e delta^1_e b_e y_e'
//	               + rho sum_e delta^1_e delta^2_e L_e x + mu (x - z) ]
//	z'   = z + beta (x - z),
//
// so c = (-tau (sigma/N) g, 0, 0) and M(zeta) is multi-affine in the
// 3|E| independent Bernoulli(p_e) indicators (delta^2 = delta^1 under
// SameDraw). Writing delta^d_e = p_e + v^d_e with centred v^d_e, of
// variance s_e = p_e (1 - p_e),
//
//	M(zeta) = Mbar + sum_k v_k F_k,
//
// where Mbar = E[M] and the v_k run over v^0_e, v^1_e, v^2_e, v^1_e v^2_e
// and v^1_e v^0_e: zero-mean and pairwise uncorrelated, of variance s_e
// (the first three) or s_e^2 (the products). Hence, exactly,
//
//	E[w_{t+1}] = Mbar E[w_t] + c,
//	T(S) = E[M S M^T] = Mbar S Mbar^T + sum_k Var(v_k) F_k S F_k^T,
//
// and the deviation d_t = w_t - w* from a point w* that every M(zeta)
// fixes (w* = M(zeta) w* + c for every zeta: the f_i share a minimizer
// x*, so that w* = (1 x*, 0, 1 x*)) obeys E[d_t d_t^T] = T^t(d_0 d_0^T).
// The long-run per-round factor of E||d_t||^2 is therefore the spectral
// radius of T (T maps PSD matrices to PSD matrices, so by the
// Krein-Rutman theorem its spectral radius is an eigenvalue with a PSD
// eigenvector, which power iteration from I finds). The mean E[d_t] decays
// like rho(Mbar)^t, and rho(Mbar)^2 <= rho(T) (Jensen).
//
// The y-components in ker(B^T P_p) (P_p = diag(p_e), B the incidence
// matrix) are fixed by Mbar: E[y_t], which starts at y_0 = 0 and moves
// along range(P_p B), never has them, so MeanRadius is the spectral radius
// of Mbar on the invariant subspace V = R^{nN} x range(P_p B kron I_n) x
// R^{nN}. With every p_e = 1 the draws are deterministic, T(S) = Mbar S
// Mbar^T and MeanSquare = MeanRadius^2 on V. With some p_e < 1 the draw
// noise of y_e' leaves V, and MeanSquare is the spectral radius of T on
// all symmetric D x D matrices: on a graph with cycles it is at least 1,
// since S = u u^T with u = (0, y_c, 0), y_c in ker(B^T P_p), has
// T(S) = S + (PSD), so the second moment of a cycle-space dual does not
// decay (see RateModel.MeanSquare).

// RateModel is one ALM round on a quadratic problem as a random affine map
// (see the comment above).
type RateModel struct {
	// N, Dim and Edges are the agents, the block dimension n and |E|.
	N, Dim, Edges int
	// Mean is Mbar = E[M(zeta)], D x D.
	Mean *mat.Dense
	// C is the constant term c.
	C []float64
	// Deterministic reports that every f_i's StochGrad equals its Grad,
	// so that the round is exactly w -> M(zeta) w + c. Otherwise only
	// E[M] is exact (E over the samples too, since a least-squares
	// minibatch gradient is affine in x with coefficients independent of
	// x): MeanRadius still predicts E[w_t], and MeanSquare ignores the
	// gradient noise.
	Deterministic bool

	g     *graph.Graph
	same  bool
	fl    []fluct
	basis *mat.Dense // D x r orthonormal basis of V
}

// fluct is one term v_k F_k of M(zeta) - Mbar: F_k is zero outside rows
// x cols, where it is K.
type fluct struct {
	rows, cols []int
	k          *mat.Dense
	vr         float64 // Var(v_k)
	edge       int
	draws      [2]int // v_k = v^draws[0]_e, times v^draws[1]_e when draws[1] >= 0
}

// D returns the dimension n (2N + |E|) of the stacked state.
func (m *RateModel) D() int { return m.Dim * (2*m.N + m.Edges) }

// The blocks of the stacked state (x, y, z): x_i, y_e and z_i start at
// XAt(i), YAt(e) and ZAt(i) and have n entries.
func (m *RateModel) XAt(i int) int { return i * m.Dim }
func (m *RateModel) YAt(e int) int { return (m.N + e) * m.Dim }
func (m *RateModel) ZAt(i int) int { return (m.N + m.Edges + i) * m.Dim }

// affineTol is the relative tolerance of the check that a gradient is
// affine.
const affineTol = 1e-9

// Hessians probes the local objectives with unit vectors:
// H_i e_k = grad f_i(e_k) - grad f_i(0), g_i = grad f_i(0). It fails if
// some grad f_i is not affine (checked at two random points, to 1e-9
// relative) and reports whether every StochGrad equals Grad there.
func Hessians(locals []objective.Local) (hs []*mat.Dense, gs [][]float64, deterministic bool, err error) {
	deterministic = true
	rng := rand.New(rand.NewPCG(1, 2))
	for i, f := range locals {
		n := f.Dim()
		g0 := make([]float64, n)
		f.Grad(make([]float64, n), g0)
		h := mat.NewDense(n, n, nil)
		e, gk := make([]float64, n), make([]float64, n)
		for k := range n {
			clear(e)
			e[k] = 1
			f.Grad(e, gk)
			for l := range n {
				h.Set(l, k, gk[l]-g0[l])
			}
		}
		for range 2 {
			u := make([]float64, n)
			for k := range u {
				u[k] = 3 * rng.NormFloat64()
			}
			f.Grad(u, gk)
			var scale, diff float64
			for l := range n {
				want := g0[l]
				for k := range n {
					want += h.At(l, k) * u[k]
				}
				scale = math.Max(scale, math.Abs(gk[l]))
				diff = math.Max(diff, math.Abs(gk[l]-want))
			}
			if diff > affineTol*math.Max(scale, 1) {
				return nil, nil, false, fmt.Errorf("alm: rate model: the gradient of agent %d is not affine (off by %.3g at a random point): the round is an affine map only for quadratic f_i", i, diff)
			}
			sg := make([]float64, n)
			f.StochGrad(u, sg, rand.New(rand.NewPCG(3, uint64(i))))
			for l := range n {
				if math.Abs(sg[l]-gk[l]) > affineTol*math.Max(scale, 1) {
					deterministic = false
				}
			}
		}
		hs, gs = append(hs, h), append(gs, g0)
	}
	return hs, gs, deterministic, nil
}

// NewRateModel builds the round map of the ALM with configuration cfg on
// g (edge e present in each draw with probability g.Edges[e].P,
// independently, as under graph.Bernoulli) for the agents' objectives
// locals, which must be quadratic (see Hessians). It requires a constant
// step (TauConstant); the box and the safeguard are not modelled: the
// prediction holds while the box is inactive and no reset fires.
func NewRateModel(cfg Config, g *graph.Graph, locals []objective.Local) (*RateModel, error) {
	cfg, err := cfg.normalized()
	if err != nil {
		return nil, fmt.Errorf("alm: rate model: config: %w", err)
	}
	if cfg.TauSchedule != TauConstant {
		return nil, fmt.Errorf("alm: rate model: tau schedule %q: the round map is time-invariant only for %q", cfg.TauSchedule, TauConstant)
	}
	if g == nil || len(locals) != g.N {
		return nil, fmt.Errorf("alm: rate model: need a graph and one objective per agent")
	}
	hs, gs, det, err := Hessians(locals)
	if err != nil {
		return nil, err
	}
	n := locals[0].Dim()
	for i, f := range locals {
		if f.Dim() != n {
			return nil, fmt.Errorf("alm: rate model: agent %d has dimension %d, agent 0 has %d", i, f.Dim(), n)
		}
	}
	N, E := g.N, len(g.Edges)
	m := &RateModel{N: N, Dim: n, Edges: E, Deterministic: det, g: g, same: cfg.SameDraw}
	D := m.D()
	tau, eta, rho, mu, beta := cfg.Tau, cfg.Eta, cfg.Rho, cfg.Mu, cfg.Beta
	wf := cfg.Scale / float64(N)
	mb := mat.NewDense(D, D, nil)
	m.C = make([]float64, D)
	for i := range N {
		xi, zi := m.XAt(i), m.ZAt(i)
		for l := range n {
			for k := range n {
				mb.Set(xi+l, xi+k, -tau*wf*hs[i].At(l, k))
			}
			mb.Set(xi+l, xi+l, mb.At(xi+l, xi+l)+1-tau*mu)
			mb.Set(xi+l, zi+l, tau*mu)
			mb.Set(zi+l, xi+l, beta)
			mb.Set(zi+l, zi+l, 1-beta)
			m.C[xi+l] = -tau * wf * gs[i][l]
		}
	}
	addL := func(dst *mat.Dense, e int, coef float64) { // dst[x,x] += coef L_e kron I
		ed := g.Edges[e]
		for l := range n {
			a, b := m.XAt(ed.I)+l, m.XAt(ed.J)+l
			dst.Set(a, a, dst.At(a, a)+coef)
			dst.Set(b, b, dst.At(b, b)+coef)
			dst.Set(a, b, dst.At(a, b)-coef)
			dst.Set(b, a, dst.At(b, a)-coef)
		}
	}
	for e, ed := range g.Edges {
		p := ed.P
		q := p * p // E[delta^1 delta^2]
		if m.same {
			q = p
		}
		addL(mb, e, -tau*(rho*q+eta*p*p))
		ye := m.YAt(e)
		for l := range n {
			mb.Set(m.XAt(ed.I)+l, ye+l, -tau*p)
			mb.Set(m.XAt(ed.J)+l, ye+l, tau*p)
			mb.Set(ye+l, ye+l, 1)
			mb.Set(ye+l, m.XAt(ed.I)+l, eta*p)
			mb.Set(ye+l, m.XAt(ed.J)+l, -eta*p)
		}
		m.addFlucts(e, tau, eta, rho)
	}
	m.Mean = mb
	m.basis = m.meanSubspace()
	return m, nil
}

// addFlucts appends the terms v_k F_k of edge e (see the comment at the
// top of the file). The coefficient of L_e in the x-row of M is
// -tau (rho delta^1 delta^2 + eta delta^1 delta^0); the y_e-column of the
// x-row is -tau delta^1 b_e; the x-column of the y_e-row is
// eta delta^0 b_e^T.
func (m *RateModel) addFlucts(e int, tau, eta, rho float64) {
	n, ed := m.Dim, m.g.Edges[e]
	p := ed.P
	s := p * (1 - p)
	if s == 0 {
		return
	}
	xs := make([]int, 0, 2*n)
	for _, i := range [2]int{ed.I, ed.J} {
		for l := range n {
			xs = append(xs, m.XAt(i)+l)
		}
	}
	ys := make([]int, n)
	for l := range ys {
		ys[l] = m.YAt(e) + l
	}
	lap := func(k *mat.Dense, coef float64) { // k[0:2n, 0:2n] += coef [[I, -I], [-I, I]]
		for l := range n {
			k.Set(l, l, k.At(l, l)+coef)
			k.Set(n+l, n+l, k.At(n+l, n+l)+coef)
			k.Set(l, n+l, k.At(l, n+l)-coef)
			k.Set(n+l, l, k.At(n+l, l)-coef)
		}
	}
	// v^0: x -> x (-tau eta p L_e) and x -> y_e (eta b_e^T).
	k0 := mat.NewDense(3*n, 2*n, nil)
	lap(k0, -tau*eta*p)
	for l := range n {
		k0.Set(2*n+l, l, eta)
		k0.Set(2*n+l, n+l, -eta)
	}
	m.fl = append(m.fl, fluct{rows: append(append([]int{}, xs...), ys...), cols: xs, k: k0, vr: s, edge: e, draws: [2]int{graph.DrawDual, -1}})
	// v^1: x -> x (-tau a1 L_e) and y_e -> x (-tau b_e).
	a1 := p * (rho + eta)
	if m.same {
		a1 = rho + eta*p
	}
	k1 := mat.NewDense(2*n, 3*n, nil)
	lap(k1, -tau*a1)
	for l := range n {
		k1.Set(l, 2*n+l, -tau)
		k1.Set(n+l, 2*n+l, tau)
	}
	m.fl = append(m.fl, fluct{rows: xs, cols: append(append([]int{}, xs...), ys...), k: k1, vr: s, edge: e, draws: [2]int{graph.DrawAdjoint, -1}})
	lapOnly := func(coef, vr float64, d0, d1 int) {
		k := mat.NewDense(2*n, 2*n, nil)
		lap(k, coef)
		m.fl = append(m.fl, fluct{rows: xs, cols: xs, k: k, vr: vr, edge: e, draws: [2]int{d0, d1}})
	}
	if !m.same {
		lapOnly(-tau*rho*p, s, graph.DrawPenalty, -1)
		lapOnly(-tau*rho, s*s, graph.DrawAdjoint, graph.DrawPenalty)
	}
	lapOnly(-tau*eta, s*s, graph.DrawAdjoint, graph.DrawDual)
}

// meanSubspace returns an orthonormal basis of V (see the comment at the
// top of the file): all of x and z, and y in range(P_p B) kron R^n.
func (m *RateModel) meanSubspace() *mat.Dense {
	N, E, n := m.N, m.Edges, m.Dim
	var q *mat.Dense
	r := 0
	if E > 0 {
		pb := mat.NewDense(E, N, nil)
		for e, ed := range m.g.Edges {
			pb.Set(e, ed.I, ed.P)
			pb.Set(e, ed.J, -ed.P)
		}
		var svd mat.SVD
		if svd.Factorize(pb, mat.SVDThin) {
			var u mat.Dense
			svd.UTo(&u)
			vals := svd.Values(nil)
			for _, v := range vals {
				if v > 1e-10*vals[0] {
					r++
				}
			}
			q = mat.DenseCopyOf(u.Slice(0, E, 0, r))
		}
	}
	cols := 2*N*n + r*n
	j := mat.NewDense(m.D(), cols, nil)
	c := 0
	for k := range N * n {
		j.Set(m.XAt(0)+k, c, 1)
		c++
	}
	for k := range N * n {
		j.Set(m.ZAt(0)+k, c, 1)
		c++
	}
	for a := range r {
		for l := range n {
			for e := range E {
				j.Set(m.YAt(e)+l, c, q.At(e, a))
			}
			c++
		}
	}
	return j
}

// Matrix returns M(zeta) of round t of the edge process proc (its draws
// graph.DrawDual, DrawAdjoint and DrawPenalty; DrawAdjoint for both under
// SameDraw): Mbar + sum_k v_k(zeta) F_k.
func (m *RateModel) Matrix(proc graph.EdgeProcess, t int) *mat.Dense {
	out := mat.DenseCopyOf(m.Mean)
	for _, f := range m.fl {
		v := m.centred(proc, t, f.edge, f.draws[0])
		if f.draws[1] >= 0 {
			v *= m.centred(proc, t, f.edge, f.draws[1])
		}
		if v == 0 {
			continue
		}
		for a, r := range f.rows {
			for b, c := range f.cols {
				out.Set(r, c, out.At(r, c)+v*f.k.At(a, b))
			}
		}
	}
	return out
}

func (m *RateModel) centred(proc graph.EdgeProcess, t, e, d int) float64 {
	if m.same && d == graph.DrawPenalty {
		d = graph.DrawAdjoint
	}
	ed := m.g.Edges[e]
	v := -ed.P
	if proc.Active(t, d, ed.I, ed.J) {
		v++
	}
	return v
}

// SecondMoment writes T(S) = E[M S M^T] = Mbar S Mbar^T + sum_k Var(v_k)
// F_k S F_k^T into dst, for symmetric S (D x D).
func (m *RateModel) SecondMoment(s, dst *mat.Dense) {
	var ms mat.Dense
	ms.Mul(m.Mean, s)
	dst.Mul(&ms, m.Mean.T())
	for _, f := range m.fl {
		sub := mat.NewDense(len(f.cols), len(f.cols), nil)
		for a, r := range f.cols {
			for b, c := range f.cols {
				sub.Set(a, b, s.At(r, c))
			}
		}
		var ks, kst mat.Dense
		ks.Mul(f.k, sub)
		kst.Mul(&ks, f.k.T())
		for a, r := range f.rows {
			for b, c := range f.rows {
				dst.Set(r, c, dst.At(r, c)+f.vr*kst.At(a, b))
			}
		}
	}
}

// MeanRadius returns rho(Mbar) on V: the per-round factor of
// ||E[w_t] - w*|| in the long run.
func (m *RateModel) MeanRadius() (float64, error) {
	var mj, red mat.Dense
	mj.Mul(m.Mean, m.basis)
	red.Mul(m.basis.T(), &mj)
	var eig mat.Eigen
	if !eig.Factorize(&red, mat.EigenNone) {
		return 0, fmt.Errorf("alm: rate model: eigenvalues of E[M] did not converge")
	}
	var r float64
	for _, v := range eig.Values(nil) {
		r = math.Max(r, math.Hypot(real(v), imag(v)))
	}
	return r, nil
}

// MeanSquareOptions bound the Arnoldi iteration of MeanSquare.
type MeanSquareOptions struct {
	// Tol is the relative residual ||T(S) - r S||_F / r at which the
	// iteration stops; 0 means 1e-7.
	Tol float64
	// Krylov is the Krylov dimension between restarts; 0 means 100.
	Krylov int
	// Restarts bounds the restarts; 0 means 100.
	Restarts int
}

// MeanSquareResult is the spectral radius of T with its eigenvector.
type MeanSquareResult struct {
	// Rate is rho(T): the long-run per-round factor of E||w_t - w*||^2.
	Rate float64
	// Residual is ||T(S) - Rate S||_F / Rate for the returned S
	// (||S||_F = 1).
	Residual float64
	// Products is the number of applications of T.
	Products int
	// Mode is S, the eigenvector (||S||_F = 1, trace >= 0); nil when every
	// p_e = 1.
	Mode *mat.Dense
}

// MeanSquare returns rho(T). With every p_e = 1 it is MeanRadius^2 (the
// draws are deterministic; see the comment at the top of the file).
// Otherwise it is the largest real Ritz value of T on all D x D matrices
// by restarted Arnoldi from the identity, restarted with the Ritz vector:
// T is positive, so rho(T) is a real eigenvalue with a PSD eigenvector
// (Krein-Rutman) and the identity overlaps it; Arnoldi, unlike power
// iteration, also converges when eigenvalues of modulus rho(T) but
// other phases exist. It fails if the residual does not reach opt.Tol.
func (m *RateModel) MeanSquare(opt MeanSquareOptions) (MeanSquareResult, error) {
	if opt.Tol == 0 {
		opt.Tol = 1e-7
	}
	if opt.Krylov == 0 {
		opt.Krylov = 100
	}
	if opt.Restarts == 0 {
		opt.Restarts = 100
	}
	if len(m.fl) == 0 {
		r, err := m.MeanRadius()
		return MeanSquareResult{Rate: r * r}, err
	}
	D := m.D()
	v0 := make([]float64, D*D)
	for k := range D {
		v0[k*D+k] = 1
	}
	apply := func(src, dst []float64) {
		m.SecondMoment(mat.NewDense(D, D, src), mat.NewDense(D, D, dst))
	}
	lam, vec, resid, prods, err := arnoldiTop(apply, v0, opt.Krylov, opt.Restarts, opt.Tol)
	res := MeanSquareResult{Rate: lam, Residual: resid, Products: prods}
	if err != nil {
		return res, fmt.Errorf("alm: rate model: mean square: %w", err)
	}
	s := mat.NewDense(D, D, vec)
	var tr float64
	for k := range D {
		tr += s.At(k, k)
	}
	if tr < 0 {
		s.Scale(-1, s)
	}
	res.Mode = s
	return res, nil
}

// arnoldiTop returns the largest real eigenvalue of the linear map apply
// (and its unit eigenvector), by Arnoldi iterations of k steps from v0,
// each restarted with the Ritz vector of the largest real Ritz value,
// until the residual ||A u - lambda u|| / |lambda| is at most tol.
func arnoldiTop(apply func(src, dst []float64), v0 []float64, k, restarts int, tol float64) (lam float64, vec []float64, resid float64, prods int, err error) {
	n := len(v0)
	k = min(k, n)
	vs := make([][]float64, k+1)
	for j := range vs {
		vs[j] = make([]float64, n)
	}
	start := append([]float64(nil), v0...)
	for range restarts {
		nrm := math.Sqrt(floats(start, start))
		if !(nrm > 0) {
			return 0, nil, 0, prods, fmt.Errorf("Arnoldi: zero start vector")
		}
		for i := range start {
			vs[0][i] = start[i] / nrm
		}
		h := mat.NewDense(k+1, k, nil)
		m := k
		for j := range k {
			apply(vs[j], vs[j+1])
			prods++
			w := vs[j+1]
			for range 2 { // Gram-Schmidt, twice
				for i := 0; i <= j; i++ {
					c := floats(vs[i], w)
					h.Set(i, j, h.At(i, j)+c)
					for l := range w {
						w[l] -= c * vs[i][l]
					}
				}
			}
			hn := math.Sqrt(floats(w, w))
			h.Set(j+1, j, hn)
			if math.IsNaN(hn) || math.IsInf(hn, 0) {
				return 0, nil, 0, prods, fmt.Errorf("Arnoldi: non-finite vector at step %d", j)
			}
			if hn <= 1e-14*math.Abs(h.At(j, j))+1e-300 {
				m = j + 1 // invariant subspace
				break
			}
			for l := range w {
				w[l] /= hn
			}
		}
		hm := mat.DenseCopyOf(h.Slice(0, m, 0, m))
		var eig mat.Eigen
		if !eig.Factorize(hm, mat.EigenRight) {
			return 0, nil, 0, prods, fmt.Errorf("Arnoldi: eigenvalues of the Hessenberg matrix did not converge")
		}
		vals := eig.Values(nil)
		var cv mat.CDense
		eig.VectorsTo(&cv)
		best := -1
		for i, v := range vals {
			if math.Abs(imag(v)) <= 1e-10*math.Abs(real(v)) && (best < 0 || real(v) > real(vals[best])) {
				best = i
			}
		}
		if best < 0 {
			return 0, nil, 0, prods, fmt.Errorf("Arnoldi: no real Ritz value")
		}
		lam = real(vals[best])
		u := make([]float64, m)
		var un float64
		for i := range m {
			u[i] = real(cv.At(i, best))
			un += u[i] * u[i]
		}
		un = math.Sqrt(un)
		vec = make([]float64, n)
		for i := range m {
			for l := range vec {
				vec[l] += u[i] / un * vs[i][l]
			}
		}
		resid = math.Abs(h.At(m, m-1)*u[m-1]/un) / math.Abs(lam)
		if m < k {
			resid = 0
		}
		if resid <= tol {
			return lam, vec, resid, prods, nil
		}
		start = vec
	}
	return lam, vec, resid, prods, fmt.Errorf("Arnoldi: residual %.3g after %d products, want <= %.3g", resid, prods, tol)
}

func floats(a, b []float64) float64 {
	var s float64
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

// Curves returns the exact predicted curves of T rounds from a random
// start with mean deviation E[d_0] = d0 and second moment
// E[d_0 d_0^T] = s0 (D x D): the squared norm of the x-block of
// E[d_t] = Mbar^t d0 and the mean square of the x-block,
// E||x_t - x*||^2 = tr_x T^t(s0), for t = 0..T.
func (m *RateModel) Curves(d0 []float64, s0 *mat.Dense, T int) (mean, meanSquare []float64) {
	D, nx := m.D(), m.N*m.Dim
	d := mat.NewVecDense(D, append([]float64(nil), d0...))
	s := mat.DenseCopyOf(s0)
	next := mat.NewDense(D, D, nil)
	var nd mat.VecDense
	for t := 0; t <= T; t++ {
		var a, b float64
		for k := range nx {
			a += d.AtVec(m.XAt(0)+k) * d.AtVec(m.XAt(0)+k)
			b += s.At(m.XAt(0)+k, m.XAt(0)+k)
		}
		mean, meanSquare = append(mean, a), append(meanSquare, b)
		if t == T {
			break
		}
		nd.MulVec(m.Mean, d)
		d.CopyVec(&nd)
		m.SecondMoment(s, next)
		s, next = next, s
	}
	return mean, meanSquare
}
