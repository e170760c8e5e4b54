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
	return present(d.out[i], func(j int) bool { return arcs.ArcUp(t, draw, i, j) }, dst)
}

// InUp appends to dst[:0] the in-neighbours j of agent i whose arc
// j -> i of d is present in draw draw of round t, ascending, and returns
// it: its length is d_in_i.
func InUp(d *Digraph, arcs ArcProcess, t, draw, i int, dst []int) []int {
	return present(d.in[i], func(j int) bool { return arcs.ArcUp(t, draw, j, i) }, dst)
}

// present appends to dst[:0] the neighbours j in nb for which up(j).
func present(nb []int, up func(j int) bool, dst []int) []int {
	dst = dst[:0]
	for _, j := range nb {
		if up(j) {
			dst = append(dst, j)
		}
	}
	return dst
}

// ColumnStochastic returns C(zeta) of draw draw of round t, N x N.
func ColumnStochastic(d *Digraph, arcs ArcProcess, t, draw int) *mat.Dense {
	return stochastic(d.N, func(i int, up []int) []int { return OutUp(d, arcs, t, draw, i, up) }, true)
}

// RowStochastic returns R(zeta) of draw draw of round t, N x N.
func RowStochastic(d *Digraph, arcs ArcProcess, t, draw int) *mat.Dense {
	return stochastic(d.N, func(i int, up []int) []int { return InUp(d, arcs, t, draw, i, up) }, false)
}

// stochastic returns the N x N matrix with weight 1/(1 + |up(i)|) at
// (i, i) and, for every j of up(i), at (j, i) (column, C) or (i, j)
// (row, R).
func stochastic(n int, up func(i int, dst []int) []int, column bool) *mat.Dense {
	m := mat.NewDense(n, n, nil)
	var nb []int
	for i := range n {
		nb = up(i, nb)
		w := StochasticWeight(len(nb))
		m.Set(i, i, w)
		for _, j := range nb {
			if column {
				m.Set(j, i, w)
			} else {
				m.Set(i, j, w)
			}
		}
	}
	return m
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

// AgentArcs is agent I's view of the arcs of one draw of a round: the
// out-neighbours it reaches and the in-neighbours it hears, which it
// computes from the common randomness alone, and its weights in C and R.
// A driver of any kind (rounds, ticks) and an agent use it the same way.
type AgentArcs struct {
	D    *Digraph
	Arcs ArcProcess
	I    int
	// Out and In are the out- and in-neighbours whose arc is present in
	// the last Draw, ascending.
	Out, In []int
}

// Draw sets Out and In to agent I's arcs present in draw draw of round t.
func (a *AgentArcs) Draw(t, draw int) {
	a.Out = OutUp(a.D, a.Arcs, t, draw, a.I, a.Out)
	a.In = InUp(a.D, a.Arcs, t, draw, a.I, a.In)
}

// PushWeight returns agent I's weight in its column of C for the last
// draw, 1/(1 + d_out_I): what it keeps and sends of a pushed value.
func (a *AgentArcs) PushWeight() float64 { return StochasticWeight(len(a.Out)) }

// PullWeight returns agent I's weight in its row of R for the last draw,
// 1/(1 + d_in_I): what it takes of each value it pulls and of its own.
func (a *AgentArcs) PullWeight() float64 { return StochasticWeight(len(a.In)) }
