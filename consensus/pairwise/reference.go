package pairwise

import (
	"fmt"

	"gonum.org/v1/gonum/mat"
)

// Reference is the matrix form X_{k+1} = W(k) X_k of randomized pairwise
// gossip over a given sequence of exchanges, with
// W(k) = I - (1/2)(e_i - e_j)(e_i - e_j)^T for the k-th exchange's pair
// {i, j}. It builds dense matrices: a test oracle for small N.
type Reference struct {
	x *mat.Dense // X_k, N x n
	w *mat.Dense // scratch for W(k)
	k int
}

// NewReference returns the reference started from X_0 with rows x0[i].
func NewReference(x0 [][]float64) (*Reference, error) {
	if len(x0) == 0 || len(x0[0]) == 0 {
		return nil, fmt.Errorf("pairwise: reference: need at least one agent and one dimension")
	}
	N, n := len(x0), len(x0[0])
	x := mat.NewDense(N, n, nil)
	for i, xi := range x0 {
		if len(xi) != n {
			return nil, fmt.Errorf("pairwise: reference: x0[%d] has %d values, x0[0] has %d", i, len(xi), n)
		}
		x.SetRow(i, xi)
	}
	return &Reference{x: x, w: mat.NewDense(N, N, nil)}, nil
}

// Average applies the exchange of agents i and j: X <- W_ij X.
func (r *Reference) Average(i, j int) error {
	N, _ := r.x.Dims()
	if i == j || i < 0 || j < 0 || i >= N || j >= N {
		return fmt.Errorf("pairwise: reference: exchange %d of agents %d and %d: need two agents in [0, %d)", r.k, i, j, N)
	}
	r.w.Zero()
	for l := range N {
		r.w.Set(l, l, 1)
	}
	r.w.Set(i, i, 0.5)
	r.w.Set(j, j, 0.5)
	r.w.Set(i, j, 0.5)
	r.w.Set(j, i, 0.5)
	var next mat.Dense
	next.Mul(r.w, r.x)
	r.x.Copy(&next)
	r.k++
	return nil
}

// Exchanges returns the number of exchanges applied.
func (r *Reference) Exchanges() int { return r.k }

// Matrix returns X_k itself (shared): a method built on gossip (AD-PSGD's
// reference) applies its own steps to it between exchanges.
func (r *Reference) Matrix() *mat.Dense { return r.x }

// X returns a copy of row i of X_k.
func (r *Reference) X(i int) []float64 { return mat.Row(nil, i, r.x) }
