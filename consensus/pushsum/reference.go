package pushsum

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/consim/consim/graph"
	"github.com/consim/consim/objective"
)

// Reference is push-sum and subgradient-push in matrix form, on V(t) =
// [X(t), y(t)] in R^{N x (n+1)} (row i = [x_i, y_i]):
//
//	[W(t+1), y(t+1)] = C(t) [X(t), y(t)]
//	Z(t+1) = diag(y(t+1))^{-1} W(t+1)
//	X(t+1) = W(t+1) - alpha(t+1) grad F(Z(t+1))   (X(t+1) = W(t+1) for push-sum)
//
// with C(t) = graph.ColumnStochastic of the round's arc draw and row i of
// grad F(Z) the gradient of f_i at z_i. The product is graph.MulOrdered,
// which sums as the agents do, so the reference is bit-identical to them
// on the same draws. It is a test oracle: it forms C(t) densely and models
// no message loss.
type Reference struct {
	p      Params
	d      *graph.Digraph
	arcs   graph.ArcProcess
	locals []objective.Local // nil: push-sum
	v, w   *mat.Dense        // [X, y] and C [X, y]
	z      *mat.Dense
	g      []float64
	evals  int64
}

// NewReference returns the matrix form of the run whose agent i starts
// from x0[i], with objective locals[i] (locals nil for push-sum).
func NewReference(p Params, d *graph.Digraph, arcs graph.ArcProcess, locals []objective.Local, x0 [][]float64) (*Reference, error) {
	if d == nil || len(x0) != d.N || (locals != nil && len(locals) != d.N) {
		return nil, fmt.Errorf("pushsum: reference: need a digraph and one initial point (and objective, if any) per agent")
	}
	n := len(x0[0])
	r := &Reference{p: p, d: d, arcs: arcs, locals: locals, v: mat.NewDense(d.N, n+1, nil),
		w: mat.NewDense(d.N, n+1, nil), z: mat.NewDense(d.N, n, nil), g: make([]float64, n)}
	for i := range d.N {
		var f objective.Local
		if locals != nil {
			f = locals[i]
		}
		if err := check(p, i, d, arcs, f, x0[i]); err != nil {
			return nil, fmt.Errorf("pushsum: reference: agent %d: %w", i, err)
		}
		if len(x0[i]) != n {
			return nil, fmt.Errorf("pushsum: reference: agent %d: dimension %d, agent 0 has %d", i, len(x0[i]), n)
		}
		r.v.SetRow(i, append(append([]float64(nil), x0[i]...), 1))
		r.z.SetRow(i, x0[i])
	}
	return r, nil
}

// Step performs round t.
func (r *Reference) Step(t int) {
	graph.MulOrdered(r.w, graph.ColumnStochastic(r.d, r.arcs, t, arcDraw), r.v)
	r.v, r.w = r.w, r.v
	_, n := r.z.Dims()
	for i := range r.d.N {
		v, z := r.v.RawRowView(i), r.z.RawRowView(i)
		for l := range z {
			z[l] = v[l] / v[n]
		}
		if r.locals == nil {
			continue
		}
		r.locals[i].Grad(z, r.g)
		r.evals++
		alpha := r.p.StepAt(t + 1)
		for l, g := range r.g {
			v[l] -= float64(alpha * g)
		}
	}
}

// Z returns a copy of z_i.
func (r *Reference) Z(i int) []float64 { return mat.Row(nil, i, r.z) }

// Y returns y_i.
func (r *Reference) Y(i int) float64 { _, n := r.z.Dims(); return r.v.At(i, n) }

// GradEvals is the number of gradient calls so far, summed over agents.
func (r *Reference) GradEvals() int64 { return r.evals }
