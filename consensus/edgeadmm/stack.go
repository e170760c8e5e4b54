package edgeadmm

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/consim/consim/graph"
	"github.com/consim/consim/objective"
)

// Stack is the skeleton of a matrix-form reference of a run's N agents on
// graph G with edge process Proc: their common dimension n (Dim), their
// Locals (with the same prox, steps and samples as the agents) and the
// stacked primal x = [x_0; ...; x_{N-1}] in R^{Nn} (Primal).
type Stack struct {
	G      *graph.Graph
	Proc   graph.EdgeProcess
	N, Dim int
	Locals []*Local
	Primal *mat.VecDense
}

// NewStack returns the stack of the agents over g and proc whose
// objectives are fs and initial points x0, under method with step tau
// (0: N/L_i) and the run seed of the samples.
func NewStack(method string, tau float64, seed uint64, g *graph.Graph, proc graph.EdgeProcess, fs []objective.Local, x0 [][]float64) (*Stack, error) {
	if g == nil || proc == nil {
		return nil, fmt.Errorf("graph and edge process are required")
	}
	N := g.N
	if len(fs) != N || len(x0) != N {
		return nil, fmt.Errorf("%d objectives and %d initial points for %d agents", len(fs), len(x0), N)
	}
	s := &Stack{G: g, Proc: proc, N: N}
	for i, f := range fs {
		if f == nil {
			return nil, fmt.Errorf("agent %d has no objective", i)
		}
		if i == 0 {
			s.Dim = f.Dim()
		} else if f.Dim() != s.Dim {
			return nil, fmt.Errorf("agent %d has dimension %d, agent 0 has %d", i, f.Dim(), s.Dim)
		}
		if err := CheckPoint(f, x0[i]); err != nil {
			return nil, fmt.Errorf("agent %d: %w", i, err)
		}
		l, err := NewLocal(method, tau, f, i, N, seed)
		if err != nil {
			return nil, fmt.Errorf("agent %d: %w", i, err)
		}
		s.Locals = append(s.Locals, l)
	}
	s.Primal = mat.NewVecDense(N*s.Dim, nil)
	for i := range x0 {
		copy(s.Block(s.Primal, i), x0[i])
	}
	return s, nil
}

// Block returns block i of v (length Dim), sharing v's storage.
func (s *Stack) Block(v *mat.VecDense, i int) []float64 {
	return v.RawVector().Data[i*s.Dim : (i+1)*s.Dim]
}

// Copy returns a copy of block i of v.
func (s *Stack) Copy(v *mat.VecDense, i int) []float64 {
	return append([]float64(nil), s.Block(v, i)...)
}

// GradEvals is the number of stochastic gradient samples drawn so far,
// summed over the agents.
func (s *Stack) GradEvals() int64 {
	var n int64
	for _, l := range s.Locals {
		n += l.GradEvals
	}
	return n
}
