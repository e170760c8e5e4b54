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
	*gossip.Stack
	p    Params
	y, G *mat.Dense
}

// NewReference returns the matrix form of the run whose agent i has
// objective locals[i] and initial point x0[i].
func NewReference(p Params, g *graph.Graph, proc graph.EdgeProcess, locals []objective.Local, x0 [][]float64) (*Reference, error) {
	p = p.normalized()
	st, err := gossip.NewStack(p.Mixing, p.Gradient, p.Seed, g, proc, locals, x0, func(i int, f objective.Local, x0 []float64) error {
		_, err := p.check(i, g, proc, f, x0)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("tracking: reference: %w", err)
	}
	N, n := st.Iterates.Dims()
	r := &Reference{Stack: st, p: p, G: mat.NewDense(N, n, nil)}
	r.Gradients(0, r.G)
	r.y = mat.DenseCopyOf(r.G)
	return r, nil
}

// Step performs round t.
func (r *Reference) Step(t int) {
	w := r.W(t)
	var wx, wy, ay mat.Dense
	wx.Mul(w, r.Iterates)
	wy.Mul(w, r.y)
	ay.Scale(r.p.Step, r.y)
	r.Iterates.Sub(&wx, &ay)
	N, n := r.Iterates.Dims()
	gnew := mat.NewDense(N, n, nil)
	r.Gradients(t+1, gnew)
	r.y.Sub(gnew, r.G)
	r.y.Add(r.y, &wy)
	r.G = gnew
}

// Y returns a copy of y_i.
func (r *Reference) Y(i int) []float64 { return mat.Row(nil, i, r.y) }
