package gossip

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/consim/consim/graph"
	"github.com/consim/consim/objective"
)

// Stack is the skeleton of a gossip method's matrix-form reference: the
// graph, the edge process, the mixing rule, every agent's gradient oracle
// (the same samples as the agents) and the iterates X in R^{N x n}, row i
// = x_i.
type Stack struct {
	G        *graph.Graph
	Proc     graph.EdgeProcess
	Mix      graph.Mixing
	Oracles  []*Oracle
	Iterates *mat.Dense
}

// NewStack returns the stack of the run over g and proc whose agent i has
// objective locals[i] (locals nil, or a nil entry, for a zero gradient)
// and initial point x0[i], with gradient oracles of kind gradient and the
// run seed. check validates agent i's arguments as the method's agents do.
func NewStack(m Mixing, gradient string, seed uint64, g *graph.Graph, proc graph.EdgeProcess, locals []objective.Local, x0 [][]float64,
	check func(i int, f objective.Local, x0 []float64) error) (*Stack, error) {
	if g == nil || len(x0) != g.N || (locals != nil && len(locals) != g.N) {
		return nil, fmt.Errorf("need a graph and one initial point (and objective, if any) per agent")
	}
	s := &Stack{G: g, Proc: proc, Mix: m.Graph(), Iterates: mat.NewDense(g.N, len(x0[0]), nil)}
	for i := range g.N {
		var f objective.Local
		if locals != nil {
			f = locals[i]
		}
		if err := check(i, f, x0[i]); err != nil {
			return nil, fmt.Errorf("agent %d: %w", i, err)
		}
		if len(x0[i]) != len(x0[0]) {
			return nil, fmt.Errorf("agent %d: dimension %d, agent 0 has %d", i, len(x0[i]), len(x0[0]))
		}
		s.Oracles = append(s.Oracles, NewOracle(gradient, seed, f))
		s.Iterates.SetRow(i, x0[i])
	}
	return s, nil
}

// W is W(zeta_t), the mixing matrix of the edges of round t's draw.
func (s *Stack) W(t int) *mat.SymDense { return s.Mix.Matrix(s.G, s.Proc, t, EdgeDraw) }

// Gradients writes the rows g_i^t, agent i's gradient of round t at row i
// of X, into dst.
func (s *Stack) Gradients(t int, dst *mat.Dense) {
	for i, o := range s.Oracles {
		o.Grad(t, i, s.Iterates.RawRowView(i), dst.RawRowView(i))
	}
}

// X returns a copy of x_i.
func (s *Stack) X(i int) []float64 { return mat.Row(nil, i, s.Iterates) }

// GradEvals is the number of oracle calls so far, summed over agents.
func (s *Stack) GradEvals() int64 {
	var n int64
	for _, o := range s.Oracles {
		n += o.Evals
	}
	return n
}
