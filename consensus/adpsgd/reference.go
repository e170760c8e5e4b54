package adpsgd

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/consim/consim/consensus/gossip"
	"github.com/consim/consim/consensus/pairwise"
	"github.com/consim/consim/objective"
)

// Reference is the matrix form of AD-PSGD over a given sequence of
// events (see the package documentation): X in R^{N x n} stacks the x_i
// (a pairwise.Reference, whose exchanges are the averages) and Xhat the
// iterates the agents' computations read, with per-agent step counts
// u_i. It builds dense matrices: a test oracle for small N.
type Reference struct {
	p       Params
	oracles []*gossip.Oracle
	avg     *pairwise.Reference
	xh      *mat.Dense
	steps   []int64
	g       []float64
}

// NewReference returns the reference with parameters p, agent i's
// objective locals[i] and initial point x0[i]; Xhat_0 = X_0.
func NewReference(p Params, locals []objective.Local, x0 [][]float64) (*Reference, error) {
	if err := p.Validate(); err != nil {
		return nil, fmt.Errorf("adpsgd: reference: %w", err)
	}
	N := len(locals)
	if N == 0 || len(x0) != N {
		return nil, fmt.Errorf("adpsgd: reference: %d objectives and %d initial points", N, len(x0))
	}
	for i, f := range locals {
		if f.Dim() != len(x0[i]) {
			return nil, fmt.Errorf("adpsgd: reference: agent %d: x0 has %d values, its objective dimension is %d", i, len(x0[i]), f.Dim())
		}
	}
	avg, err := pairwise.NewReference(x0)
	if err != nil {
		return nil, fmt.Errorf("adpsgd: reference: %w", err)
	}
	r := &Reference{p: p, avg: avg, xh: mat.DenseCopyOf(avg.Matrix()), steps: make([]int64, N), g: make([]float64, len(x0[0]))}
	for _, f := range locals {
		r.oracles = append(r.oracles, gossip.NewOracle(p.Gradient, p.Seed, f))
	}
	return r, nil
}

// Average applies an exchange of agents i and j: X <- W_ij X with
// W_ij = I - (1/2)(e_i - e_j)(e_i - e_j)^T.
func (r *Reference) Average(i, j int) error { return r.avg.Average(i, j) }

// Step applies agent i's gradient step: X <- X - alpha_u e_i g_i^T with
// g_i the gradient of f_i at row i of Xhat on the samples of its u-th
// step, u = u_i, then u_i++.
func (r *Reference) Step(i int) {
	r.oracles[i].Grad(int(r.steps[i]), i, r.xh.RawRowView(i), r.g)
	x := r.avg.Matrix()
	N, n := x.Dims()
	d := mat.NewDense(N, n, nil)
	alpha := r.p.stepAt(r.steps[i])
	for l, v := range r.g {
		d.Set(i, l, float64(alpha*v))
	}
	x.Sub(x, d)
	r.steps[i]++
}

// Read records that agent i starts a computation: Xhat_i <- X_i.
func (r *Reference) Read(i int) { r.xh.SetRow(i, r.avg.Matrix().RawRowView(i)) }

// X returns a copy of row i of X.
func (r *Reference) X(i int) []float64 { return r.avg.X(i) }

// GradEvals returns the samples (or full gradients) drawn.
func (r *Reference) GradEvals() int64 {
	var n int64
	for _, o := range r.oracles {
		n += o.Evals
	}
	return n
}
