package graph

import (
	"fmt"

	"gonum.org/v1/gonum/mat"
)

// Stochastic weights over the arcs present in a draw.
//
// Let A(zeta) be the arcs of a digraph present in a draw zeta of an
// ArcProcess, with d_out_i(zeta) = |{j : i -> j in A(zeta)}| and
// d_in_i(zeta) = |{j : j -> i in A(zeta)}| the realized degrees. Every
// agent keeps a self loop. The two matrices of the directed algorithms
// are
//
//	C(zeta)_ji = 1/(1 + d_out_i(zeta))   for i -> j in A(zeta) and for j = i,
//	R(zeta)_ij = 1/(1 + d_in_i(zeta))    for j -> i in A(zeta) and for j = i,
//
// and 0 elsewhere. C is column-stochastic (1^T C = 1^T: agent i splits
// what it holds equally among itself and the out-neighbours it reaches,
// the push-sum weights of Kempe, Dobra and Gehrke and of Nedic and
// Olshevsky's subgradient-push), so C keeps sums; R is row-stochastic
// (R 1 = 1: agent i averages itself and the in-neighbours it hears), so R
// keeps consensus. Agent i's column of C needs only its own d_out_i and
// its row of R only its own d_in_i, both of which it knows from the common
// randomness: a sender scales what it pushes by its own PushWeight, a
// receiver what it pulls by its own.
//
// ColumnStochastic, RowStochastic and MulOrdered compute the numbers the
// agents compute, in the order they compute them, so that an algorithm's
// matrix-form reference is bit-identical to its agents.

// StochasticWeight returns 1/(1 + deg): the weight of each present arc
// and of the self loop in the column of C (deg = d_out) or the row of R
// (deg = d_in).
func StochasticWeight(deg int) float64 { return 1 / float64(1+deg) }

// OutUp appends to dst[:0] the out-neighbours j of agent i whose arc
// i -> j of d is present in draw draw of round t, ascending, and returns
// it: its length is d_out_i.
func OutUp(d *Digraph, arcs ArcProcess, t, draw, i int, dst []int) []int {
	dst = dst[:0]
	for _, j := range d.out[i] {
		if arcs.ArcUp(t, draw, i, j) {
			dst = append(dst, j)
		}
	}
	return dst
}

// InUp appends to dst[:0] the in-neighbours j of agent i whose arc
// j -> i of d is present in draw draw of round t, ascending, and returns
// it: its length is d_in_i.
func InUp(d *Digraph, arcs ArcProcess, t, draw, i int, dst []int) []int {
	dst = dst[:0]
	for _, j := range d.in[i] {
		if arcs.ArcUp(t, draw, j, i) {
			dst = append(dst, j)
		}
	}
	return dst
}

// ColumnStochastic returns C(zeta) of draw draw of round t, N x N.
func ColumnStochastic(d *Digraph, arcs ArcProcess, t, draw int) *mat.Dense {
	c := mat.NewDense(d.N, d.N, nil)
	var up []int
	for i := range d.N {
		up = OutUp(d, arcs, t, draw, i, up)
		w := StochasticWeight(len(up))
		c.Set(i, i, w)
		for _, j := range up {
			c.Set(j, i, w)
		}
	}
	return c
}

// RowStochastic returns R(zeta) of draw draw of round t, N x N.
func RowStochastic(d *Digraph, arcs ArcProcess, t, draw int) *mat.Dense {
	r := mat.NewDense(d.N, d.N, nil)
	var up []int
	for i := range d.N {
		up = InUp(d, arcs, t, draw, i, up)
		w := StochasticWeight(len(up))
		r.Set(i, i, w)
		for _, j := range up {
			r.Set(i, j, w)
		}
	}
	return r
}

// MulOrdered sets dst = M X, computing every entry as an agent does:
//
//	dst_il = sum_{j : m_ij != 0} m_ij x_jl
//
// summed from 0 in ascending j, each product rounded before it is added
// (so that no platform fuses it), the zero entries skipped. dst must not
// share storage with m or x. It panics if the shapes do not match, a
// programming error.
func MulOrdered(dst, m, x *mat.Dense) {
	r, c := m.Dims()
	xr, n := x.Dims()
	dr, dc := dst.Dims()
	if c != xr || dr != r || dc != n {
		panic(fmt.Sprintf("graph: MulOrdered: %dx%d times %dx%d into %dx%d", r, c, xr, n, dr, dc))
	}
	for i := range r {
		row := dst.RawRowView(i)
		clear(row)
		for j, mij := range m.RawRowView(i) {
			if mij == 0 {
				continue
			}
			for l, v := range x.RawRowView(j) {
				row[l] += float64(mij * v)
			}
		}
	}
}
