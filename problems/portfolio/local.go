package portfolio

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/consim/consim/objective"
)

// Local is agent i's mean-variance portfolio objective with its
// share of the regularizer, P_i(x) = F_i(x) + R(x), R(x) = (mu/2)||x||^2,
// as a objective.Local: the objective the coordinator evaluates at the
// average iterate. F_i(x) = -<rbar_i, x> + x^T S_i x is the portfolio
// objective of agent i's shard of periods (Portfolio), so P_i is the
// quadratic with Hessian H_i = 2 S_i + mu I. The composition agents never
// call it; they query the shard as a Composition (admm.OracleCounter).
type Local struct {
	p   *Portfolio
	r   Ridge
	sol *Solution // minimizer of P_i and its Hessian H_i
	l   float64   // lambda_max(H_i)
	tmp []float64
}

var _ objective.Local = (*Local)(nil)

// NewLocal returns P_i = F_i + R for shard p and R = r. It
// factors H_i = 2 S_i + mu I, so it fails unless H_i is positive definite
// (mu > 0 always suffices).
func NewLocal(p *Portfolio, r Ridge) (*Local, error) {
	if p == nil {
		return nil, fmt.Errorf("portfolio: local: nil shard")
	}
	sol, err := p.Solve(r)
	if err != nil {
		return nil, fmt.Errorf("portfolio: local: %w", err)
	}
	var eig mat.EigenSym
	if !eig.Factorize(sol.H, false) {
		return nil, fmt.Errorf("portfolio: local: eigenvalues of 2 S_i + mu I did not converge")
	}
	l := math.Inf(-1)
	for _, v := range eig.Values(nil) {
		l = math.Max(l, v)
	}
	return &Local{p: p, r: r, sol: sol, l: l, tmp: make([]float64, p.Dims().D)}, nil
}

// Dim is the number of assets.
func (f *Local) Dim() int { return f.p.Dims().D }

// Value returns P_i(x) = -<rbar_i, x> + x^T S_i x + (mu/2)||x||^2.
func (f *Local) Value(x []float64) float64 {
	return float64(f.p.Objective(x)) + float64(f.r.Value(x))
}

// Grad writes grad P_i(x) = -rbar_i + 2 S_i x + mu x into g.
func (f *Local) Grad(x, g []float64) {
	f.p.ObjectiveGrad(x, g)
	for k, v := range x {
		g[k] += float64(f.r.Mu * v)
	}
}

// StochGrad writes the exact gradient grad P_i(x) into g and returns the
// number of periods n_i it used: a sample of the composition has no
// unbiased single-period gradient, and the composition agents estimate it
// with admm.Estimator instead. rng is not used.
func (f *Local) StochGrad(x, g []float64, _ *rand.Rand) int {
	f.Grad(x, g)
	return f.p.Dims().M
}

// Smoothness returns L_i = lambda_max(2 S_i + mu I), the Lipschitz
// constant of grad P_i.
func (f *Local) Smoothness() float64 { return f.l }

// Central returns the consensus portfolio problem of the shards
// with the regularizer r,
//
//	min_x f(x) = (1/N) sum_i P_i(x),  P_i = F_i + R,
//
// with its exact minimizer: f is the quadratic with Hessian
// H = (1/N) sum_i (2 S_i + mu I) and gradient H x - (1/N) sum_i rbar_i, so
// x* solves H x* = (1/N) sum_i rbar_i (a Cholesky solve) and f* = f(x*).
// With one shard this is Portfolio.Solve of the whole reward matrix;
// with several it is the optimum of the sharded objective, which the
// decentralized agents converge to (see Split for how it differs
// from the whole matrix's problem). X is unconstrained.
func Central(shards []*Portfolio, r Ridge) (*objective.Problem, error) {
	if len(shards) == 0 {
		return nil, fmt.Errorf("portfolio: central: no shards")
	}
	n := shards[0].Dims().D
	N := len(shards)
	prob := &objective.Problem{
		Locals: make([]objective.Local, N),
		Box:    objective.Box{Lo: math.Inf(-1), Hi: math.Inf(1)},
		Convex: true,
	}
	h := mat.NewSymDense(n, nil)
	b := make([]float64, n)
	zero := make([]float64, n)
	periods := 0
	for i, p := range shards {
		if d := p.Dims().D; d != n {
			return nil, fmt.Errorf("portfolio: central: shard %d has %d assets, shard 0 has %d", i, d, n)
		}
		f, err := NewLocal(p, r)
		if err != nil {
			return nil, fmt.Errorf("portfolio: central: shard %d: %w", i, err)
		}
		prob.Locals[i] = f
		h.AddSym(h, f.sol.H)
		// grad F_i(0) = -rbar_i exactly.
		p.ObjectiveGrad(zero, f.tmp)
		for k, v := range f.tmp {
			b[k] -= v
		}
		periods += p.Dims().M
	}
	h.ScaleSym(1/float64(N), h)
	for k := range b {
		b[k] /= float64(N)
	}
	var ch mat.Cholesky
	if !ch.Factorize(h) {
		return nil, fmt.Errorf("portfolio: central: (1/N) sum_i (2 S_i + mu I) is not positive definite")
	}
	var xs mat.VecDense
	if err := ch.SolveVecTo(&xs, mat.NewVecDense(n, b)); err != nil {
		return nil, fmt.Errorf("portfolio: central: solving for x*: %w", err)
	}
	prob.XStar = append([]float64(nil), xs.RawVector().Data...)
	prob.FStar = prob.Value(prob.XStar)
	prob.Name = fmt.Sprintf("portfolio(assets=%d,periods=%d,N=%d)", n, periods, N)
	return prob, nil
}
