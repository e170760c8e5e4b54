package pushpull

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/consim/consim/graph"
	"github.com/consim/consim/objective"
)

// Reference is the push-pull method in matrix form on X, Y in R^{N x n}
// (row i = x_i, y_i):
//
//	X(k+1) = R(k) (X(k) - alpha Y(k))        (AB: R(k) X(k) - alpha Y(k))
//	Y(k+1) = C(k) Y(k) + G(k+1) - G(k),      G(k) = grad F(X(k)), Y(0) = G(0),
//
// with R(k) = graph.RowStochastic and C(k) = graph.ColumnStochastic of the
// round's arc draw. The products are graph.MulOrdered, which sums as the
// agents do, so the reference is bit-identical to them on the same draws.
// It is a test oracle: it forms R(k) and C(k) densely and models no
// message loss.
type Reference struct {
	p         Params
	d         *graph.Digraph
	arcs      graph.ArcProcess
	locals    []objective.Local
	x, y, g   *mat.Dense
	v, nx, ny *mat.Dense // scratch: X - alpha Y, and the mixes
	gnew      []float64
	evals     int64
}

// NewReference returns the matrix form of the run whose agent i has
// objective locals[i] and initial point x0[i].
func NewReference(p Params, d *graph.Digraph, arcs graph.ArcProcess, locals []objective.Local, x0 [][]float64) (*Reference, error) {
	if d == nil || len(x0) != d.N || len(locals) != d.N {
		return nil, fmt.Errorf("pushpull: reference: need a digraph and one objective and initial point per agent")
	}
	N, n := d.N, len(x0[0])
	r := &Reference{p: p, d: d, arcs: arcs, locals: locals, x: mat.NewDense(N, n, nil), y: mat.NewDense(N, n, nil),
		g: mat.NewDense(N, n, nil), v: mat.NewDense(N, n, nil), nx: mat.NewDense(N, n, nil), ny: mat.NewDense(N, n, nil),
		gnew: make([]float64, n)}
	for i := range N {
		if err := check(p, i, d, arcs, locals[i], x0[i]); err != nil {
			return nil, fmt.Errorf("pushpull: reference: agent %d: %w", i, err)
		}
		if len(x0[i]) != n {
			return nil, fmt.Errorf("pushpull: reference: agent %d: dimension %d, agent 0 has %d", i, len(x0[i]), n)
		}
		r.x.SetRow(i, x0[i])
		locals[i].Grad(r.x.RawRowView(i), r.g.RawRowView(i))
		r.evals++
	}
	r.y.Copy(r.g)
	return r, nil
}

// Step performs round k.
func (r *Reference) Step(k int) {
	N, _ := r.x.Dims()
	alpha := r.p.Step
	for i := range N {
		v, x, y := r.v.RawRowView(i), r.x.RawRowView(i), r.y.RawRowView(i)
		for l := range v {
			v[l] = x[l]
			if r.p.Form == FormPushPull {
				v[l] -= float64(alpha * y[l])
			}
		}
	}
	graph.MulOrdered(r.nx, graph.RowStochastic(r.d, r.arcs, k, arcDraw), r.v)
	graph.MulOrdered(r.ny, graph.ColumnStochastic(r.d, r.arcs, k, arcDraw), r.y)
	for i := range N {
		x, y, g := r.nx.RawRowView(i), r.ny.RawRowView(i), r.g.RawRowView(i)
		if r.p.Form == FormAB {
			for l, yl := range r.y.RawRowView(i) {
				x[l] -= float64(alpha * yl)
			}
		}
		r.locals[i].Grad(x, r.gnew)
		r.evals++
		for l := range y {
			y[l] = y[l] + r.gnew[l] - g[l]
		}
		copy(g, r.gnew)
	}
	r.x, r.nx = r.nx, r.x
	r.y, r.ny = r.ny, r.y
}

// X returns a copy of x_i.
func (r *Reference) X(i int) []float64 { return mat.Row(nil, i, r.x) }

// Y returns a copy of y_i.
func (r *Reference) Y(i int) []float64 { return mat.Row(nil, i, r.y) }

// GradEvals is the number of gradient calls so far, summed over agents.
func (r *Reference) GradEvals() int64 { return r.evals }
