package choco

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/consim/consim/consensus/gossip"
	"github.com/consim/consim/graph"
	"github.com/consim/consim/objective"
)

// Reference is CHOCO in matrix form on X, Xhat in R^{N x n} (row i = x_i,
// xhat_i):
//
//	Xhat_{t+1} = Xhat_t + Q(X_t - eta_t G_t - Xhat_t)
//	X_{t+1}    = X_t - eta_t G_t + gamma (W(zeta_t) - I) Xhat_{t+1},
//
// with Q applied row by row (row i with agent i's generator of round t),
// G_t the agents' gradients of round t (zero for CHOCO-gossip) and
// W(zeta_t) = Mixing.Matrix of the round's edge draw. The product
// (W - I) Xhat is formed row by row as sum_{j != i} W_ij (xhat_j -
// xhat_i) over the columns j in ascending order, which is row i of (W -
// I) Xhat since the rows of W sum to 1; a dense gonum product would sum
// in another order and differ in the last bits. It is a test oracle: it
// forms W densely and models no message loss.
type Reference struct {
	p       GossipParams
	step    func(t int) float64 // nil for CHOCO-gossip
	g       *graph.Graph
	proc    graph.EdgeProcess
	oracles []*gossip.Oracle
	comps   []*compressor
	x, xhat *mat.Dense
	half, d []float64
	diff, q []float64
	acc     []float64
}

// NewGossipReference returns the matrix form of the CHOCO-gossip run whose
// agent i starts at x0[i].
func NewGossipReference(p GossipParams, g *graph.Graph, proc graph.EdgeProcess, x0 [][]float64) (*Reference, error) {
	return newReference(p, nil, g, proc, nil, x0)
}

// NewReference returns the matrix form of the CHOCO-SGD run whose agent i
// has objective locals[i] (locals nil, or a nil entry, for zero
// gradients) and initial point x0[i].
func NewReference(p Params, g *graph.Graph, proc graph.EdgeProcess, locals []objective.Local, x0 [][]float64) (*Reference, error) {
	if err := p.Validate(); err != nil {
		return nil, fmt.Errorf("choco: reference: %w", err)
	}
	if locals == nil {
		locals = make([]objective.Local, len(x0))
	}
	return newReference(p.GossipParams, &p, g, proc, locals, x0)
}

func newReference(p GossipParams, sgd *Params, g *graph.Graph, proc graph.EdgeProcess, locals []objective.Local, x0 [][]float64) (*Reference, error) {
	if g == nil || len(x0) != g.N || len(x0) == 0 || (locals != nil && len(locals) != g.N) {
		return nil, fmt.Errorf("choco: reference: need a graph and one initial point (and objective, if any) per agent")
	}
	n := len(x0[0])
	r := &Reference{p: p, g: g, proc: proc, x: mat.NewDense(g.N, n, nil), xhat: mat.NewDense(g.N, n, nil),
		half: make([]float64, n), d: make([]float64, n), diff: make([]float64, n), q: make([]float64, n), acc: make([]float64, n)}
	if sgd != nil {
		r.step = sgd.StepAt
	}
	for i := range g.N {
		var f objective.Local
		if locals != nil {
			f = locals[i]
		}
		if err := p.check(i, g, proc, f, x0[i]); err != nil {
			return nil, fmt.Errorf("choco: reference: agent %d: %w", i, err)
		}
		if len(x0[i]) != n {
			return nil, fmt.Errorf("choco: reference: agent %d: dimension %d, agent 0 has %d", i, len(x0[i]), n)
		}
		c, err := newCompressor(p)
		if err != nil {
			return nil, fmt.Errorf("choco: reference: %w", err)
		}
		r.comps = append(r.comps, c)
		if sgd != nil {
			r.oracles = append(r.oracles, gossip.NewOracle(sgd.Gradient, sgd.Seed, f))
		}
		r.x.SetRow(i, x0[i])
	}
	return r, nil
}

// Step performs round t.
func (r *Reference) Step(t int) {
	N, n := r.x.Dims()
	w := r.p.Mixing.Graph().Matrix(r.g, r.proc, t, gossip.EdgeDraw)
	half := mat.NewDense(N, n, nil)
	for i := range N {
		xi, hi := r.x.RawRowView(i), half.RawRowView(i)
		if r.step != nil {
			r.oracles[i].Grad(t, i, xi, r.d)
			halfStep(xi, r.d, r.step(t), hi)
		} else {
			copy(hi, xi)
		}
		publish(r.comps[i], t, i, hi, r.xhat.RawRowView(i), r.diff, r.q)
	}
	for i := range N {
		clear(r.acc)
		hatI := r.xhat.RawRowView(i)
		for j := range N {
			if wij := w.At(i, j); j != i && wij != 0 {
				addEdge(r.acc, wij, r.xhat.RawRowView(j), hatI)
			}
		}
		gossipStep(r.x.RawRowView(i), half.RawRowView(i), r.acc, r.p.Gamma)
	}
}

// X returns a copy of x_i.
func (r *Reference) X(i int) []float64 { return mat.Row(nil, i, r.x) }

// Xhat returns a copy of xhat_i.
func (r *Reference) Xhat(i int) []float64 { return mat.Row(nil, i, r.xhat) }

// GradEvals is the number of oracle calls so far, summed over agents.
func (r *Reference) GradEvals() int64 {
	var s int64
	for _, o := range r.oracles {
		s += o.Evals
	}
	return s
}
