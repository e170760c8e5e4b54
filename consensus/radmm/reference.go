package radmm

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/consim/consim/consensus/edgeadmm"
	"github.com/consim/consim/graph"
	"github.com/consim/consim/objective"
)

// Reference is the centralized matrix form of the method on the stacked
// variables x in R^{Nn} and z, y in R^{|E|n}. With B the signed edge-agent
// incidence matrix of the graph (row e = e_i - e_j, i < j, in the order of
// graph.Graph.Edges), |B| its absolute value, D = diag(d_i) the degree
// matrix, S_t the diagonal selector of the edges present in draw (t,
// graph.DrawDual) and P_t the selector of their endpoints (and of agents
// without neighbours), all kron I_n, round t is
//
//	exact:      (1/N) grad f(x+) + B^T y + rho D x+ - rho |B|^T z = 0      on the blocks of P_t
//	linearized: (rho D + T^{-1}) x+ = T^{-1} x - (1/N) G(x, xi_t) - B^T y + rho |B|^T z   on P_t
//	            x+ = x                                                      off P_t
//	z+ = S_t (|B| x+)/2 + (I - S_t) z
//	y+ = y + (rho/2) S_t B x+
//
// with T = diag(tau_i) kron I_n. The exact equation is block separable: block
// i is x_i+ = prox_{f_i}(r_i / (rho d_i), N rho d_i) with r = rho |B|^T z -
// B^T y. It takes the same edge draws and samples as the agents and is a
// test oracle: it builds dense matrices and does not model message loss.
type Reference struct {
	*edgeadmm.Stack // x and the agents' f_i with their prox or tau_i
	cfg             Config
	b, babs         *mat.Dense // B kron I_n, |B| kron I_n (nil without edges)
	deg             []float64  // d_i
	z, y            *mat.VecDense
}

// NewReference returns the centralized iteration of the run with
// configuration cfg over graph g and edge process proc, with agent i's
// objective locals[i] and initial point x0[i] (z = y = 0).
func NewReference(cfg Config, g *graph.Graph, proc graph.EdgeProcess, locals []objective.Local, x0 [][]float64) (*Reference, error) {
	cfg, err := cfg.normalized()
	if err != nil {
		return nil, fmt.Errorf("radmm: reference: config: %w", err)
	}
	st, err := edgeadmm.NewStack(cfg.Method, cfg.Tau, cfg.Seed, g, proc, locals, x0)
	if err != nil {
		return nil, fmt.Errorf("radmm: reference: %w", err)
	}
	r := &Reference{Stack: st, cfg: cfg}
	n, N, M := r.Dim, g.N, len(g.Edges)
	r.deg = make([]float64, N)
	for i := range N {
		r.deg[i] = float64(len(g.Neighbors(i)))
	}
	if M > 0 {
		sb := mat.NewDense(M, N, nil)
		ab := mat.NewDense(M, N, nil)
		for k, e := range g.Edges {
			sb.Set(k, e.I, 1)
			sb.Set(k, e.J, -1)
			ab.Set(k, e.I, 1)
			ab.Set(k, e.J, 1)
		}
		r.b, r.babs = graph.KronIdentity(sb, n), graph.KronIdentity(ab, n)
	}
	if M > 0 {
		r.z = mat.NewVecDense(M*n, nil)
		r.y = mat.NewVecDense(M*n, nil)
	}
	return r, nil
}

// Step performs round t.
func (r *Reference) Step(t int) error {
	if t < 0 {
		return fmt.Errorf("radmm: reference: round %d: must be non-negative", t)
	}
	n, N, M, rho := r.Dim, r.G.N, len(r.G.Edges), r.cfg.Rho
	// S_t and P_t.
	active := make([]bool, M)
	agent := make([]bool, N)
	for i := range N {
		agent[i] = r.deg[i] == 0
	}
	for k, e := range r.G.Edges {
		if r.Proc.Active(t, graph.DrawDual, e.I, e.J) {
			active[k] = true
			agent[e.I], agent[e.J] = true, true
		}
	}
	// coupling = rho |B|^T z - B^T y.
	coupling := mat.NewVecDense(N*n, nil)
	if M > 0 {
		var bty mat.VecDense
		bty.MulVec(r.b.T(), r.y)
		coupling.MulVec(r.babs.T(), r.z)
		coupling.ScaleVec(rho, coupling)
		coupling.SubVec(coupling, &bty)
	}
	switch r.cfg.Method {
	case MethodExact:
		r.exact(coupling, agent)
	case MethodLinearized:
		r.linearized(t, coupling, agent)
	}
	if M == 0 {
		return nil
	}
	// z+ = S_t |B| x+ / 2 + (I - S_t) z, y+ = y + (rho/2) S_t B x+.
	sel := make([]float64, M*n)
	for k, on := range active {
		if on {
			for l := range n {
				sel[k*n+l] = 1
			}
		}
	}
	s := mat.NewDiagDense(M*n, sel)
	var bx, abx, sbx, sabx, keep mat.VecDense
	bx.MulVec(r.b, r.Primal)
	abx.MulVec(r.babs, r.Primal)
	sbx.MulVec(s, &bx)
	sabx.MulVec(s, &abx)
	keep.MulVec(s, r.z)
	r.z.SubVec(r.z, &keep)
	r.z.AddScaledVec(r.z, 0.5, &sabx)
	r.y.AddScaledVec(r.y, rho/2, &sbx)
	return nil
}

// exact sets x_i <- prox_{f_i}(r_i / (rho d_i), N rho d_i) on the active
// blocks with d_i > 0.
func (r *Reference) exact(coupling *mat.VecDense, agent []bool) {
	n, N, rho := r.Dim, float64(r.G.N), r.cfg.Rho
	for i, l := range r.Locals {
		if !agent[i] || r.deg[i] == 0 {
			continue
		}
		w := rho * r.deg[i]
		v := mat.VecDenseCopyOf(coupling.SliceVec(i*n, (i+1)*n))
		v.ScaleVec(1/w, v)
		l.Prox.Prox(v.RawVector().Data, N*w, r.Block(r.Primal, i))
	}
}

// linearized solves (rho D + T^{-1}) x+ = T^{-1} x - (1/N) G + coupling on
// the active blocks.
func (r *Reference) linearized(t int, coupling *mat.VecDense, agent []bool) {
	n, N, rho := r.Dim, r.G.N, r.cfg.Rho
	g := mat.NewVecDense(N*n, nil)
	for i, l := range r.Locals {
		if agent[i] {
			l.Sample(t, r.Block(r.Primal, i), r.Block(g, i))
		}
	}
	diag := make([]float64, N*n) // rho D + T^{-1}
	tinv := make([]float64, N*n) // T^{-1}
	for i := range N {
		for l := range n {
			tau := r.Locals[i].Tau
			tinv[i*n+l] = 1 / tau
			diag[i*n+l] = rho*r.deg[i] + 1/tau
		}
	}
	rhs := mat.NewVecDense(N*n, nil)
	rhs.MulVec(mat.NewDiagDense(N*n, tinv), r.Primal)
	rhs.AddScaledVec(rhs, -1/float64(N), g)
	rhs.AddVec(rhs, coupling)
	for k := range rhs.Len() {
		if agent[k/n] {
			r.Primal.SetVec(k, rhs.AtVec(k)/diag[k])
		}
	}
}

// X returns a copy of agent i's block x_i.
func (r *Reference) X(i int) []float64 { return r.Copy(r.Primal, i) }

// Z returns a copy of z_e for edge index k of graph.Graph.Edges.
func (r *Reference) Z(k int) []float64 { return block(r.z, r.Dim, k) }

// Y returns a copy of the edge dual y_e for edge index k of
// graph.Graph.Edges (oriented from its lower endpoint).
func (r *Reference) Y(k int) []float64 { return block(r.y, r.Dim, k) }

// Lambda returns a copy of block i of B^T y.
func (r *Reference) Lambda(i int) []float64 {
	if r.y == nil {
		return make([]float64, r.Dim)
	}
	var bty mat.VecDense
	bty.MulVec(r.b.T(), r.y)
	return block(&bty, r.Dim, i)
}

func block(v *mat.VecDense, n, i int) []float64 {
	out := make([]float64, n)
	for l := range out {
		out[l] = v.AtVec(i*n + l)
	}
	return out
}
