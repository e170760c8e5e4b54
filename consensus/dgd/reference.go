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
	*gossip.Stack
	p Params
}

// NewReference returns the matrix form of the run whose agent i has
// objective locals[i] (locals nil, or a nil entry, for zero gradients) and
// initial point x0[i].
func NewReference(p Params, g *graph.Graph, proc graph.EdgeProcess, locals []objective.Local, x0 [][]float64) (*Reference, error) {
	p = p.normalized()
	st, err := gossip.NewStack(p.Mixing, p.Gradient, p.Seed, g, proc, locals, x0, func(i int, f objective.Local, x0 []float64) error {
		_, err := p.check(i, g, proc, f, x0)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("dgd: reference: %w", err)
	}
	return &Reference{Stack: st, p: p}, nil
}

// Step performs round t.
func (r *Reference) Step(t int) {
	N, n := r.Iterates.Dims()
	grad := mat.NewDense(N, n, nil)
	r.Gradients(t, grad)
	var wx mat.Dense
	wx.Mul(r.W(t), r.Iterates)
	grad.Scale(r.p.StepAt(t), grad)
	r.Iterates.Sub(&wx, grad)
}
