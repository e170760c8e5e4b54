package dadmm

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/consim/consim/consensus/edgeadmm"
	"github.com/consim/consim/graph"
	"github.com/consim/consim/objective"
)

// Reference is the centralized matrix form of the method on the stacked
// variables x, a in R^{nN}. Round t, with D_t and A_t the degree and
// adjacency matrices of the edges present in draw (t, graph.DrawDual),
// kron I_n, is
//
//	a <- a + c (D_t - A_t) x                         (t >= 1)
//	exact:      (1/N) grad f(x+) + a + 2c D_t x+ + gamma (x+ - x) - c (D_t + A_t) x = 0
//	linearized: (2c D_t + T^{-1}) x+ = T^{-1} x - (1/N) G(x, xi_t) - a + c (D_t + A_t) x
//
// with T = diag(tau_i) kron I_n, on the blocks of the agents that are not
// isolated. An agent isolated in round t ((D_t)_ii = 0 although i has
// graph neighbours) keeps its block, x_i+ = x_i, and draws no sample; its
// row of (D_t - A_t) is zero, so a_i is unchanged too. The exact equation
// is block separable once its coupling terms are formed: block i is x_i+ =
// prox_{f_i}(r_i / w_i, N w_i) with r = c (D_t + A_t) x + gamma x - a and
// w_i = 2c (D_t)_ii + gamma; a block with w_i = 0 keeps x_i. It takes the
// same edge draws and samples as the agents and is a test oracle: it
// builds dense matrices every round and does not model dropouts.
type Reference struct {
	*edgeadmm.Stack // x and the agents' f_i with their prox or tau_i
	cfg             Config
	eye             *mat.DiagDense // I_n
	a               *mat.VecDense
}

// NewReference returns the centralized iteration of the run with
// configuration cfg over graph g and edge process proc, with agent i's
// objective locals[i] and initial point x0[i] (a_0 = 0).
func NewReference(cfg Config, g *graph.Graph, proc graph.EdgeProcess, locals []objective.Local, x0 [][]float64) (*Reference, error) {
	cfg, err := cfg.normalized()
	if err != nil {
		return nil, fmt.Errorf("dadmm: reference: config: %w", err)
	}
	st, err := edgeadmm.NewStack(cfg.Method, cfg.Tau, cfg.Seed, g, proc, locals, x0)
	if err != nil {
		return nil, fmt.Errorf("dadmm: reference: %w", err)
	}
	ones := make([]float64, st.Dim)
	for k := range ones {
		ones[k] = 1
	}
	return &Reference{Stack: st, cfg: cfg, eye: mat.NewDiagDense(st.Dim, ones), a: mat.NewVecDense(g.N*st.Dim, nil)}, nil
}

// presentMatrices returns D_t kron eye and A_t kron eye, the degree and
// adjacency matrices of the edges of g present in draw (t,
// graph.DrawDual), and the degrees d_i(t).
func presentMatrices(g *graph.Graph, proc graph.EdgeProcess, t int, eye mat.Matrix) (dk, ak *mat.Dense, deg []float64) {
	N := g.N
	adj := mat.NewDense(N, N, nil)
	deg = make([]float64, N)
	for _, e := range g.Edges {
		if proc.Active(t, graph.DrawDual, e.I, e.J) {
			adj.Set(e.I, e.J, 1)
			adj.Set(e.J, e.I, 1)
			deg[e.I]++
			deg[e.J]++
		}
	}
	dk, ak = new(mat.Dense), new(mat.Dense)
	dk.Kronecker(mat.NewDiagDense(N, deg), eye)
	ak.Kronecker(adj, eye)
	return dk, ak, deg
}

// Step performs round t.
func (r *Reference) Step(t int) error {
	if t < 0 {
		return fmt.Errorf("dadmm: reference: round %d: must be non-negative", t)
	}
	c := r.cfg.C
	dk, ak, deg := presentMatrices(r.G, r.Proc, t, r.eye)
	if t > 0 {
		var lap mat.Dense
		lap.Sub(dk, ak)
		var lx mat.VecDense
		lx.MulVec(&lap, r.Primal)
		r.a.AddScaledVec(r.a, c, &lx)
	}
	var dpa mat.Dense
	dpa.Add(dk, ak)
	var coupling mat.VecDense // c (D_t + A_t) x - a
	coupling.MulVec(&dpa, r.Primal)
	coupling.ScaleVec(c, &coupling)
	coupling.SubVec(&coupling, r.a)
	skip := make([]bool, r.G.N)
	for i := range skip {
		skip[i] = deg[i] == 0 && len(r.G.Neighbors(i)) > 0
	}
	switch r.cfg.Method {
	case MethodExact:
		r.exact(&coupling, deg, skip)
	case MethodLinearized:
		r.linearized(t, &coupling, dk, skip)
	}
	return nil
}

// exact sets x_i <- prox_{f_i}(r_i / w_i, N w_i), r = coupling + gamma x,
// for the agents i not skipped.
func (r *Reference) exact(coupling *mat.VecDense, deg []float64, skip []bool) {
	n, N, gamma := r.Dim, float64(r.G.N), r.cfg.Gamma
	rhs := mat.NewVecDense(r.Primal.Len(), nil)
	rhs.AddScaledVec(coupling, gamma, r.Primal)
	for i, l := range r.Locals {
		w := float64(2*r.cfg.C*deg[i]) + gamma
		if w == 0 || skip[i] {
			continue
		}
		v := rhs.SliceVec(i*n, (i+1)*n).(*mat.VecDense)
		v.ScaleVec(1/w, v)
		l.Prox.Prox(v.RawVector().Data, N*w, r.Block(r.Primal, i))
	}
}

// linearized solves (2c D_t + T^{-1}) x+ = T^{-1} x - (1/N) G + coupling on
// the blocks not skipped.
func (r *Reference) linearized(t int, coupling *mat.VecDense, dk *mat.Dense, skip []bool) {
	n, N := r.Dim, r.G.N
	tinv := make([]float64, N*n)
	for i, loc := range r.Locals {
		for l := range n {
			tinv[i*n+l] = 1 / loc.Tau
		}
	}
	tInv := mat.NewDiagDense(N*n, tinv)
	g := mat.NewVecDense(N*n, nil)
	r.sample(t, g, skip)
	rhs := mat.NewVecDense(N*n, nil)
	rhs.MulVec(tInv, r.Primal)
	rhs.AddScaledVec(rhs, -1/float64(N), g)
	rhs.AddVec(rhs, coupling)
	var m mat.Dense
	m.Scale(2*r.cfg.C, dk)
	m.Add(&m, tInv)
	// m is diagonal and positive, so the solve is exact.
	for k := range rhs.Len() {
		if skip[k/n] {
			continue
		}
		r.Primal.SetVec(k, rhs.AtVec(k)/m.At(k, k))
	}
}

// sample writes the stacked stochastic gradients [G_i(x_i, xi_i)]_i of round
// t into dst, seeding each agent's sampler as the agents do; skipped
// agents draw none and their blocks stay 0.
func (r *Reference) sample(t int, dst *mat.VecDense, skip []bool) {
	for i, l := range r.Locals {
		if !skip[i] {
			l.Sample(t, r.Block(r.Primal, i), r.Block(dst, i))
		}
	}
}

// X returns a copy of agent i's block x_i.
func (r *Reference) X(i int) []float64 { return r.Copy(r.Primal, i) }

// Dual returns a copy of agent i's block a_i.
func (r *Reference) Dual(i int) []float64 { return r.Copy(r.a, i) }
