package tracking

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/consim/consim/consensus/gossip"
	"github.com/consim/consim/graph"
	"github.com/consim/consim/objective"
)

// Reference is DIGing in matrix form on X, Y in R^{N x n}, row i = agent
// i:
//
//	X_{t+1} = W(zeta_t) X_t - alpha Y_t
//	Y_{t+1} = W(zeta_t) Y_t + G_{t+1} - G_t,    Y_0 = G_0,
//
// with W(zeta_t) = Params.Mixing's matrix of the round's edge draw and row
// i of G_t agent i's gradient at x_i^t (the same samples as the agents). It
// is a test oracle: it forms W densely and models no message loss.
type Reference struct {
	p       Params
	g       *graph.Graph
	proc    graph.EdgeProcess
	oracle  []*gossip.Oracle
	x, y, G *mat.Dense
}

// NewReference returns the matrix form of the run whose agent i has
// objective locals[i] and initial point x0[i].
func NewReference(p Params, g *graph.Graph, proc graph.EdgeProcess, locals []objective.Local, x0 [][]float64) (*Reference, error) {
	if g == nil || len(x0) != g.N || len(locals) != g.N {
		return nil, fmt.Errorf("tracking: reference: need a graph and one objective and initial point per agent")
	}
	n := len(x0[0])
	r := &Reference{g: g, proc: proc, x: mat.NewDense(g.N, n, nil), G: mat.NewDense(g.N, n, nil)}
	for i := range g.N {
		var err error
		if r.p, err = p.check(i, g, proc, locals[i], x0[i]); err != nil {
			return nil, fmt.Errorf("tracking: reference: agent %d: %w", i, err)
		}
		if len(x0[i]) != n {
			return nil, fmt.Errorf("tracking: reference: agent %d: dimension %d, agent 0 has %d", i, len(x0[i]), n)
		}
		r.oracle = append(r.oracle, gossip.NewOracle(r.p.Gradient, r.p.Seed, locals[i]))
		r.x.SetRow(i, x0[i])
	}
	r.gradients(0, r.G)
	r.y = mat.DenseCopyOf(r.G)
	return r, nil
}

// gradients writes G_t, the rows g_i^t at the rows of X, into dst.
func (r *Reference) gradients(t int, dst *mat.Dense) {
	for i, o := range r.oracle {
		o.Grad(t, i, r.x.RawRowView(i), dst.RawRowView(i))
	}
}

// Step performs round t.
func (r *Reference) Step(t int) {
	w := r.p.Mixing.Graph().Matrix(r.g, r.proc, t, gossip.EdgeDraw)
	var wx, wy, ay mat.Dense
	wx.Mul(w, r.x)
	wy.Mul(w, r.y)
	ay.Scale(r.p.Step, r.y)
	r.x.Sub(&wx, &ay)
	N, n := r.x.Dims()
	gnew := mat.NewDense(N, n, nil)
	r.gradients(t+1, gnew)
	r.y.Sub(gnew, r.G)
	r.y.Add(r.y, &wy)
	r.G = gnew
}

// X returns a copy of x_i.
func (r *Reference) X(i int) []float64 { return mat.Row(nil, i, r.x) }

// Y returns a copy of y_i.
func (r *Reference) Y(i int) []float64 { return mat.Row(nil, i, r.y) }

// GradEvals is the number of oracle calls so far, summed over agents.
func (r *Reference) GradEvals() int64 {
	var s int64
	for _, o := range r.oracle {
		s += o.Evals
	}
	return s
}
