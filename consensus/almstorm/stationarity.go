package almstorm

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/consim/consim/graph"
	"github.com/consim/consim/objective"
)

// Stationarity evaluates the Moreau-envelope stationarity of the consensus
// problem min { f(x) = (1/N) sum_i f_i(x_i) : x_i in X, x_1 = ... = x_N }
// at stacked points v = (v_1, ..., v_N):
//
//	Psi(v)       = min_{x feasible} f(x) + (mu/2) ||x - v||^2,
//	grad Psi(v)  = mu (v - xbar*(v)),   ||grad Psi(v)|| = mu sqrt(sum_i ||v_i - u*||^2),
//
// where xbar*(v) = (u*, ..., u*) and u* minimizes over X
//
//	phi(u) = (1/N) sum_i f_i(u) + (N mu / 2) ||u - vbar||^2   (vbar the mean of the v_i),
//
// which is (N mu - max_i L_i)-strongly convex when mu > L_f = max_i L_i / N.
// It is the stationarity measure of the paper's Theorems 3.1 and 4.x (at
// v = z_t) and, at v = x_t, a measure that every consensus method has. A
// zero value means v is consensual and stationary. The inner solve is
// projected gradient with step 1/(max_i L_i + N mu), warm-started from the
// previous call's u*, until the projected-gradient step is below Tol.
//
// It needs every agent's block and objective, so it is an evaluator over
// the gathered iterates (a run's reports, or a lockstep driver's agents),
// not a measure an agent can report: no agent sees all of f.
type Stationarity struct {
	locals []objective.Local
	box    objective.Box
	mu     float64
	lmax   float64
	// Tol is the stopping threshold on ||u_{k+1} - u_k||; 1e-12 relative
	// to 1 + ||u|| by default.
	Tol float64
	// MaxIter bounds the inner iterations (default 100000).
	MaxIter int

	u, g, gi, vbar []float64
	warm           bool
	// Iters is the number of inner iterations of the last call.
	Iters int
}

// NewStationarity returns the evaluator for the objectives locals on the
// box, with Moreau parameter mu > L_f = max_i L_i / N.
func NewStationarity(locals []objective.Local, box objective.Box, mu float64) (*Stationarity, error) {
	if len(locals) == 0 {
		return nil, fmt.Errorf("almstorm: stationarity: no objectives")
	}
	n := locals[0].Dim()
	var lmax float64
	for i, f := range locals {
		if f == nil || f.Dim() != n {
			return nil, fmt.Errorf("almstorm: stationarity: agent %d: objective missing or of another dimension than agent 0's %d", i, n)
		}
		lmax = math.Max(lmax, f.Smoothness())
	}
	N := float64(len(locals))
	if !(mu > lmax/N) || math.IsInf(mu, 0) {
		return nil, fmt.Errorf("almstorm: stationarity: mu = %v: must be finite and exceed L_f = max_i L_i / N = %v", mu, lmax/N)
	}
	return &Stationarity{locals: locals, box: box, mu: mu, lmax: lmax, Tol: 1e-12, MaxIter: 100000,
		u: make([]float64, n), g: make([]float64, n), gi: make([]float64, n), vbar: make([]float64, n)}, nil
}

// Mu is the Moreau parameter.
func (s *Stationarity) Mu() float64 { return s.mu }

// Prox returns a copy of u*, the common block of xbar*(v) of the last call.
func (s *Stationarity) Prox() []float64 { return append([]float64(nil), s.u...) }

// At returns ||grad Psi(v)|| for the blocks v[i] of the N agents.
func (s *Stationarity) At(v [][]float64) (float64, error) {
	N, n := len(s.locals), len(s.u)
	if len(v) != N {
		return 0, fmt.Errorf("almstorm: stationarity: %d blocks for %d agents", len(v), N)
	}
	clear(s.vbar)
	for i, vi := range v {
		if len(vi) != n {
			return 0, fmt.Errorf("almstorm: stationarity: block %d has length %d, want %d", i, len(vi), n)
		}
		for l, x := range vi {
			s.vbar[l] += x / float64(N)
		}
	}
	if !s.warm {
		copy(s.u, s.vbar)
		s.box.Project(s.u)
		s.warm = true
	}
	nmu := float64(N) * s.mu
	step := 1 / (s.lmax + nmu)
	s.Iters = 0
	for s.Iters < s.MaxIter {
		s.Iters++
		clear(s.g)
		for _, f := range s.locals {
			f.Grad(s.u, s.gi)
			for l := range s.g {
				s.g[l] += s.gi[l] / float64(N)
			}
		}
		var d2, u2 float64
		for l := range s.u {
			old := s.u[l]
			nu := old - step*(s.g[l]+nmu*(old-s.vbar[l]))
			nu = math.Min(math.Max(nu, s.box.Lo), s.box.Hi)
			s.u[l] = nu
			d2 += (nu - old) * (nu - old)
			u2 += nu * nu
		}
		if math.IsNaN(d2) {
			return math.NaN(), fmt.Errorf("almstorm: stationarity: inner solve produced NaN")
		}
		if math.Sqrt(d2) <= s.Tol*(1+math.Sqrt(u2)) {
			break
		}
	}
	var sq float64
	for _, vi := range v {
		for l, x := range vi {
			d := x - s.u[l]
			sq += d * d
		}
	}
	return s.mu * math.Sqrt(sq), nil
}

// Certificate is the output of eq. (3.2) and what it certifies.
type Certificate struct {
	// XHat is xhat = proj_X(x_{t*} - tau' Ghat), stacked by agent.
	XHat [][]float64
	// GradMap is ||x_{t*} - xhat|| / tau', the batch estimate of the
	// gradient mapping.
	GradMap float64
	// Feasibility is ||E[A] xhat||.
	Feasibility float64
	// KKT is dist(0, grad f(xhat) + E[A]^T y_{t*+1} + N_X(xhat)) with the
	// full gradient: what xhat is certified for.
	KKT float64
	// Samples is the number of component samples of the batch.
	Samples int64
}

// CertifyInput is the frozen state of round t* and the method's
// parameters, in the units the agents run in (sigma f with its duals).
type CertifyInput struct {
	Graph  *graph.Graph
	Locals []objective.Local
	Box    objective.Box
	// Scale is sigma: the agents minimise sigma f; KKT and the duals are
	// reported for f.
	Scale float64
	// Eta, Rho, Mu are the method's dual step, penalty and proximal weight.
	Eta, Rho, Mu float64
	// TauOut is tau' <= 1/L_K of (3.2).
	TauOut float64
	// X and Z are x_{t*} and z_{t*} by agent; Y[k] is y_{t*} of edge k of
	// the graph (Graph.Edges order).
	X, Z, Y [][]float64
	// B is the batch: B calls of each f_i's StochGrad at x_{t*}.
	B int
	// Seed keys the fresh batch: agent i's calls draw from
	// graph.SeedSample(Seed, -1, i), a stream no round uses.
	Seed uint64
}

// Certify computes the output of eq. (3.2) for Algorithm 2 with E[A] in
// place of the single draw of round t* (the notes' correction):
//
//	y'   = y_{t*} + eta E[A] x_{t*},
//	Ghat = (sigma/N) (1/B) sum_b [G_i(x_i; xi_b)]_i + E[A]^T y' + rho E[A]^T E[A] x + mu (x - z),
//	xhat = proj_X(x - tau' Ghat),
//
// and reports ||x - xhat||/tau', ||E[A] xhat|| and the box-KKT residual at
// (xhat, y'/sigma) for f with the full gradient. E[A] = E[W] kron I_n has
// the row p_ij (e_i - e_j) for edge {i, j} with i < j.
func Certify(in CertifyInput) (Certificate, error) {
	g := in.Graph
	N := g.N
	if len(in.Locals) != N || len(in.X) != N || len(in.Z) != N || len(in.Y) != len(g.Edges) {
		return Certificate{}, fmt.Errorf("almstorm: certificate: %d objectives, %d x, %d z blocks for %d agents and %d duals for %d edges",
			len(in.Locals), len(in.X), len(in.Z), N, len(in.Y), len(g.Edges))
	}
	if in.B < 1 || !(in.TauOut > 0) || !(in.Scale > 0) {
		return Certificate{}, fmt.Errorf("almstorm: certificate: batch %d, tau' %v, sigma %v: want B >= 1, tau' > 0, sigma > 0", in.B, in.TauOut, in.Scale)
	}
	n := in.Locals[0].Dim()
	// E[A] x and y' by edge.
	ax := func(x [][]float64) [][]float64 {
		out := make([][]float64, len(g.Edges))
		for k, e := range g.Edges {
			out[k] = make([]float64, n)
			for l := range out[k] {
				out[k][l] = e.P * (x[e.I][l] - x[e.J][l])
			}
		}
		return out
	}
	// atY returns E[A]^T w by agent.
	atY := func(w [][]float64) [][]float64 {
		out := make([][]float64, N)
		for i := range out {
			out[i] = make([]float64, n)
		}
		for k, e := range g.Edges {
			for l := range n {
				out[e.I][l] += e.P * w[k][l]
				out[e.J][l] -= e.P * w[k][l]
			}
		}
		return out
	}
	axs := ax(in.X)
	yp := make([][]float64, len(g.Edges))
	for k := range yp {
		yp[k] = make([]float64, n)
		for l := range n {
			yp[k][l] = in.Y[k][l] + in.Eta*axs[k][l]
		}
	}
	aty, atax := atY(yp), atY(axs)
	var pcg rand.PCG
	rng := rand.New(&pcg)
	gi := make([]float64, n)
	cert := Certificate{XHat: make([][]float64, N)}
	var gm2 float64
	for i, f := range in.Locals {
		sum := make([]float64, n)
		graph.SeedSample(&pcg, in.Seed, -1, i)
		for range in.B {
			cert.Samples += int64(f.StochGrad(in.X[i], gi, rng))
			for l := range sum {
				sum[l] += gi[l]
			}
		}
		xh := make([]float64, n)
		for l := range n {
			G := in.Scale/float64(N)*sum[l]/float64(in.B) + aty[i][l] + in.Rho*atax[i][l] + in.Mu*(in.X[i][l]-in.Z[i][l])
			xh[l] = in.X[i][l] - in.TauOut*G
		}
		in.Box.Project(xh)
		for l := range n {
			d := in.X[i][l] - xh[l]
			gm2 += d * d
		}
		cert.XHat[i] = xh
	}
	cert.GradMap = math.Sqrt(gm2) / in.TauOut
	var feas2 float64
	for _, r := range ax(cert.XHat) {
		for _, v := range r {
			feas2 += v * v
		}
	}
	cert.Feasibility = math.Sqrt(feas2)
	var kkt2 float64
	for i, f := range in.Locals {
		f.Grad(cert.XHat[i], gi)
		for l := range gi {
			gi[l] = gi[l]/float64(N) + aty[i][l]/in.Scale
		}
		kkt2 += boxResidualSq(cert.XHat[i], gi, in.Box)
	}
	cert.KKT = math.Sqrt(kkt2)
	return cert, nil
}

// boxResidualSq returns ||dist(0, g + N_X(x))||^2 for x in the box X:
// |g_k| inside, max(0, -g_k) at the lower bound, max(0, g_k) at the upper.
func boxResidualSq(x, g []float64, b objective.Box) float64 {
	var s float64
	for k, v := range g {
		var r float64
		switch atLo, atHi := x[k] <= b.Lo, x[k] >= b.Hi; {
		case atLo && atHi:
		case atLo:
			r = max(0, -v)
		case atHi:
			r = max(0, v)
		default:
			r = v
		}
		s += r * r
	}
	return s
}
