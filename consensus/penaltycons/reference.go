package penaltycons

import (
	"fmt"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/consim/consim/graph"
	"github.com/consim/consim/objective"
)

// Reference is the stacked matrix form on x, z in R^{nN}:
//
//	y = (1 - 1/b_k) x + (1/b_k) z,
//	g = (1/N) [G_i(y_i; xi_i)]_i + rho_k A(zeta_t)^T A(zeta_t) y,
//	z <- proj_X(z - gamma_k g),   x <- (1 - 1/b_k) x + (1/b_k) z,
//
// with A(zeta_t) = W(zeta_t) kron I_n from graph.Incidence of draw
// graph.DrawDual, on the agents' samples. It is a test oracle.
type Reference struct {
	cfg    Config
	g      *graph.Graph
	proc   graph.EdgeProcess
	locals []objective.Local
	box    objective.Box
	n      int
	x, z   *mat.VecDense
	pcg    rand.PCG
	rng    *rand.Rand
}

// NewReference returns the reference of the run from the initial points x0.
func NewReference(cfg Config, g *graph.Graph, proc graph.EdgeProcess, locals []objective.Local, box objective.Box, x0 [][]float64) (*Reference, error) {
	if _, err := cfg.rule(); err != nil {
		return nil, fmt.Errorf("penaltycons: reference: %w", err)
	}
	if g == nil || len(locals) != g.N || len(x0) != g.N {
		return nil, fmt.Errorf("penaltycons: reference: need a graph and one objective and initial point per agent")
	}
	n := locals[0].Dim()
	r := &Reference{cfg: cfg, g: g, proc: proc, locals: locals, box: box, n: n,
		x: mat.NewVecDense(g.N*n, nil)}
	for i := range x0 {
		if len(x0[i]) != n {
			return nil, fmt.Errorf("penaltycons: reference: agent %d: initial point of length %d, want %d", i, len(x0[i]), n)
		}
		for l, v := range x0[i] {
			r.x.SetVec(i*n+l, v)
		}
	}
	r.z = mat.VecDenseCopyOf(r.x)
	r.rng = rand.New(&r.pcg)
	return r, nil
}

// Step performs round t.
func (r *Reference) Step(t int) error {
	st, err := r.cfg.Step(t)
	if err != nil {
		return err
	}
	n, N := r.n, r.g.N
	ib := 1 / st.Beta
	var y mat.VecDense
	y.ScaleVec(1-ib, r.x)
	y.AddScaledVec(&y, ib, r.z)
	gr := mat.NewVecDense(N*n, nil)
	for i, f := range r.locals {
		graph.SeedSample(&r.pcg, r.cfg.Seed, t, i)
		f.StochGrad(y.RawVector().Data[i*n:(i+1)*n], gr.RawVector().Data[i*n:(i+1)*n], r.rng)
	}
	gr.ScaleVec(1/float64(N), gr)
	if len(r.g.Edges) > 0 {
		A := graph.KronIdentity(r.g.Incidence(r.proc, t, int(graph.DrawDual)), n)
		var ay, pen mat.VecDense
		ay.MulVec(A, &y)
		pen.MulVec(A.T(), &ay)
		gr.AddScaledVec(gr, st.Rho, &pen)
	}
	r.z.AddScaledVec(r.z, -st.Gamma, gr)
	r.box.Project(r.z.RawVector().Data)
	r.x.ScaleVec(1-ib, r.x)
	r.x.AddScaledVec(r.x, ib, r.z)
	return nil
}

// X returns a copy of agent i's x_i.
func (r *Reference) X(i int) []float64 {
	return append([]float64(nil), r.x.RawVector().Data[i*r.n:(i+1)*r.n]...)
}
