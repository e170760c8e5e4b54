package dgd

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/consim/consim/consensus/gossip"
	"github.com/consim/consim/graph"
	"github.com/consim/consim/objective"
)

// Reference is DGD in matrix form on X in R^{N x n}, row i = x_i:
//
//	X_{t+1} = W(zeta_t) X_t - alpha_t G_t,
//
// with W(zeta_t) = Params.Mixing's matrix of the round's edge draw and row
// i of G_t agent i's gradient of round t (the same samples as the agents).
// It is a test oracle: it forms W densely and models no message loss.
type Reference struct {
	p      Params
	g      *graph.Graph
	proc   graph.EdgeProcess
	oracle []*gossip.Oracle
	x      *mat.Dense
}

// NewReference returns the matrix form of the run whose agent i has
// objective locals[i] (locals nil, or a nil entry, for zero gradients) and
// initial point x0[i].
func NewReference(p Params, g *graph.Graph, proc graph.EdgeProcess, locals []objective.Local, x0 [][]float64) (*Reference, error) {
	if g == nil || len(x0) != g.N || (locals != nil && len(locals) != g.N) {
		return nil, fmt.Errorf("dgd: reference: need a graph and one initial point (and objective, if any) per agent")
	}
	r := &Reference{g: g, proc: proc, x: mat.NewDense(g.N, len(x0[0]), nil)}
	for i := range g.N {
		var f objective.Local
		if locals != nil {
			f = locals[i]
		}
		var err error
		if r.p, err = p.check(i, g, proc, f, x0[i]); err != nil {
			return nil, fmt.Errorf("dgd: reference: agent %d: %w", i, err)
		}
		if len(x0[i]) != len(x0[0]) {
			return nil, fmt.Errorf("dgd: reference: agent %d: dimension %d, agent 0 has %d", i, len(x0[i]), len(x0[0]))
		}
		r.oracle = append(r.oracle, gossip.NewOracle(r.p.Gradient, r.p.Seed, f))
		r.x.SetRow(i, x0[i])
	}
	return r, nil
}

// Step performs round t.
func (r *Reference) Step(t int) {
	N, n := r.x.Dims()
	grad := mat.NewDense(N, n, nil)
	for i, o := range r.oracle {
		o.Grad(t, i, r.x.RawRowView(i), grad.RawRowView(i))
	}
	var wx mat.Dense
	wx.Mul(r.p.Mixing.Graph().Matrix(r.g, r.proc, t, gossip.EdgeDraw), r.x)
	grad.Scale(r.p.StepAt(t), grad)
	r.x.Sub(&wx, grad)
}

// X returns a copy of x_i.
func (r *Reference) X(i int) []float64 { return mat.Row(nil, i, r.x) }

// GradEvals is the number of oracle calls so far, summed over agents.
func (r *Reference) GradEvals() int64 {
	var s int64
	for _, o := range r.oracle {
		s += o.Evals
	}
	return s
}
