package slicing

import (
	"container/heap"
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize/convex/lp"
)

// Branch and price: the exact binary optimum of (6.4) for instances whose
// placements are too many to enumerate.
//
// A tree node restricts every chain position (k,m) to a set of allowed
// hosts A(k,m) subset V_{f_m}. Its bound is the LP relaxation over those
// hosts, solved by column generation (pathLP) from the parent's paths,
// and its point x_i(k,m) = sum of z_p over the paths p of flow k that run
// f_m on node i (restrictedPrimal). If every x is binary the node's
// placement is feasible with cost equal to the bound, so it is the node's
// optimum; otherwise the node branches on the position (k,m) of largest
// lambda(k) (1 - max_i x_i(k,m)) into "A(k,m) = {i*}" and
// "A(k,m) minus i*", i* = argmax_i x_i(k,m). The search takes the open
// node of least bound and dives from it along the "= {i*}" children,
// leaving the siblings open; it stops when no open node has a bound below
// the incumbent (relative tolerance BBTol), which proves the incumbent
// optimal.

// BBTol is the relative tolerance of the pruning test: a node whose bound
// is at least (1 - BBTol) times the incumbent is discarded.
const BBTol = 1e-9

// Exact is the binary optimum of (6.4) proved by BranchAndBound.
type Exact struct {
	// Objective is the binary optimum g* (rate units); Place its
	// placement, Place[k][m-1] the host of the m-th function of flow k.
	Objective float64
	Place     [][]int
	// LPBound is the value of the LP relaxation (the root's bound).
	LPBound float64
	// Bound is the lower bound on the binary optimum that the search
	// proved: Objective when it ends, the least bound of an open node (or
	// Objective, if less) when it stops at its node limit.
	Bound float64
	// Nodes is the number of tree nodes solved.
	Nodes int
}

// ErrNodeLimit reports a branch and bound that reached its node limit
// before proving an incumbent optimal.
var ErrNodeLimit = errors.New("slicing: branch and bound: node limit reached")

// bbNode is an open node of the tree: its allowed hosts, the bound it
// inherits from its parent, and the parent's paths to start from.
type bbNode struct {
	allowed [][][]int
	bound   float64
	paths   []path
}

type bbQueue []*bbNode

func (q bbQueue) Len() int           { return len(q) }
func (q bbQueue) Less(a, b int) bool { return q[a].bound < q[b].bound }
func (q bbQueue) Swap(a, b int)      { q[a], q[b] = q[b], q[a] }
func (q *bbQueue) Push(x any)        { *q = append(*q, x.(*bbNode)) }
func (q *bbQueue) Pop() any {
	old := *q
	x := old[len(old)-1]
	*q = old[:len(old)-1]
	return x
}

// BranchAndBound returns the binary optimum of (6.4) by branch and price
// (see above), solving at most maxNodes tree nodes. It wraps
// ErrInfeasible when no placement has a feasible routing and ErrNodeLimit
// when the limit is reached first (the result then holds the best
// placement found, if any, and LPBound).
func BranchAndBound(md *Model, maxNodes int) (Exact, error) {
	in := md.Inst
	root := &bbNode{allowed: make([][][]int, len(in.Flows)), bound: math.Inf(-1)}
	for k, fl := range in.Flows {
		for _, f := range fl.Chain {
			root.allowed[k] = append(root.allowed[k], in.Functions[f].Hosts)
		}
	}
	ex := Exact{Objective: math.Inf(1), LPBound: math.NaN()}
	prune := func(bound float64) bool { return bound >= ex.Objective*(1-BBTol) }
	q := &bbQueue{root}
	for q.Len() > 0 {
		cur := heap.Pop(q).(*bbNode)
		if prune(cur.bound) {
			break // every open node is at least as bad
		}
		for cur != nil {
			if ex.Nodes == maxNodes {
				heap.Push(q, cur)
				ex.Bound = math.Min((*q)[0].bound, ex.Objective)
				return ex, fmt.Errorf("%w (%d nodes; best %v, lower bound %v)", ErrNodeLimit, maxNodes, ex.Objective, ex.Bound)
			}
			ex.Nodes++
			bound, paths, err := pathLP(md, cur.allowed, cur.paths)
			if errors.Is(err, ErrInfeasible) {
				break
			}
			if err != nil {
				return ex, fmt.Errorf("slicing: branch and bound: %w", err)
			}
			if ex.Nodes == 1 {
				ex.LPBound = bound
			}
			if prune(bound) {
				break
			}
			x, err := restrictedPrimal(md, paths)
			if err != nil {
				return ex, fmt.Errorf("slicing: branch and bound: %w", err)
			}
			g, host := branchPosition(md, x)
			if g < 0 {
				place := argmaxPlacement(md, x)
				obj, err := PathFixed(md, place)
				if err != nil {
					return ex, fmt.Errorf("slicing: branch and bound: the binary point of a node: %w", err)
				}
				if obj < ex.Objective {
					ex.Objective, ex.Place = obj, place
				}
				break
			}
			k, m := md.groupPos(g)
			fix := &bbNode{allowed: restrict(cur.allowed, k, m, func(i int) bool { return i == host }), bound: bound, paths: paths}
			excl := &bbNode{allowed: restrict(cur.allowed, k, m, func(i int) bool { return i != host }), bound: bound, paths: paths}
			if len(excl.allowed[k][m-1]) > 0 {
				heap.Push(q, excl)
			}
			cur = fix
		}
	}
	if ex.Place == nil {
		return ex, fmt.Errorf("%w: no binary placement has a feasible routing", ErrInfeasible)
	}
	ex.Bound = ex.Objective
	return ex, nil
}

// restrict returns a copy of allowed (sharing the unchanged rows) with
// A(k,m) reduced to the hosts for which keep holds.
func restrict(allowed [][][]int, k, m int, keep func(int) bool) [][][]int {
	out := append([][][]int(nil), allowed...)
	out[k] = append([][]int(nil), allowed[k]...)
	var hs []int
	for _, i := range allowed[k][m-1] {
		if keep(i) {
			hs = append(hs, i)
		}
	}
	out[k][m-1] = hs
	return out
}

// groupPos returns the chain position (k, m) of group g.
func (md *Model) groupPos(g int) (int, int) {
	for k, gs := range md.groupOf {
		for m1, h := range gs {
			if h == g {
				return k, m1 + 1
			}
		}
	}
	panic(fmt.Sprintf("slicing: no group %d", g))
}

// binaryEps is the distance to 1 within which the largest x_i(k,m) of a
// tree node's point counts as 1.
const binaryEps = 1e-6

// branchPosition returns the group g (in Groups order) of largest
// lambda(k) (1 - max_i x_i(k,m)) and its argmax host, or g = -1 if every
// group has a host with x >= 1 - binaryEps. x is indexed like Groups.
func branchPosition(md *Model, x [][]float64) (int, int) {
	best, bg, bh := 0.0, -1, -1
	for g, xs := range x {
		h := argmax(xs)
		if xs[h] >= 1-binaryEps {
			continue
		}
		k, _ := md.groupPos(g)
		if s := md.Inst.Flows[k].Rate * (1 - xs[h]); s > best {
			best, bg, bh = s, g, md.GroupHosts[g][h]
		}
	}
	return bg, bh
}

// argmaxPlacement returns the placement of the largest x of every group.
func argmaxPlacement(md *Model, x [][]float64) [][]int {
	place := make([][]int, len(md.Inst.Flows))
	for k, fl := range md.Inst.Flows {
		place[k] = make([]int, len(fl.Chain))
		for m := 1; m <= len(fl.Chain); m++ {
			g := md.Group(k, m)
			place[k][m-1] = md.GroupHosts[g][argmax(x[g])]
		}
	}
	return place
}

// argmax returns the index of the largest value (the first of ties).
func argmax(xs []float64) int {
	h := 0
	for q, v := range xs {
		if v > xs[h] {
			h = q
		}
	}
	return h
}

// restrictedPrimal solves the path LP over the given paths (the
// restricted master problem of column generation, in the primal)
//
//	min sum_p c_p z_p  s.t.  sum_{p of k} z_p = 1,
//	    sum_p lambda(k) a_ep z_p + s_e = C_e,  sum_p lambda(k) n_ip z_p + s_i = mu_i,  z, s >= 0,
//
// with the rows of the links and hosts some path uses, and returns the
// placement point x[g][h] = the sum of z_p over the paths of flow k that
// run position (k,m) = group g on host GroupHosts[g][h].
func restrictedPrimal(md *Model, paths []path) ([][]float64, error) {
	in := md.Inst
	K := len(in.Flows)
	bigM := artificialCost(md)
	linkRow := make(map[int]int)
	hostRow := make(map[int]int)
	rows := K
	for _, p := range paths {
		for _, e := range p.links {
			if _, ok := linkRow[e]; !ok {
				linkRow[e] = rows
				rows++
			}
		}
		for _, i := range p.hosts {
			if _, ok := hostRow[i]; !ok {
				hostRow[i] = rows
				rows++
			}
		}
	}
	cols := len(paths) + rows - K
	a := mat.NewDense(rows, cols, nil)
	b := make([]float64, rows)
	c := make([]float64, cols)
	for q, p := range paths {
		a.Set(p.k, q, 1)
		lam := in.Flows[p.k].Rate
		for _, e := range p.links {
			a.Set(linkRow[e], q, a.At(linkRow[e], q)+lam)
		}
		for _, i := range p.hosts {
			a.Set(hostRow[i], q, a.At(hostRow[i], q)+lam)
		}
		c[q] = p.cost
		if p.artificial {
			c[q] = bigM
		}
	}
	for k := 0; k < K; k++ {
		b[k] = 1
	}
	// The capacities are perturbed by distinct relative amounts below
	// 1e-10 (the perturbation method against cycling: gonum's simplex
	// can cycle on the degenerate master problem); x moves by as little.
	for e, r := range linkRow {
		b[r] = in.Links[e].Cap * (1 + 1e-11*float64(1+r%7))
	}
	for i, r := range hostRow {
		b[r] = in.NodeCap[i] * (1 + 1e-11*float64(1+r%7))
	}
	for r := K; r < rows; r++ {
		a.Set(r, len(paths)+r-K, 1)
	}
	_, z, err := lp.Simplex(c, a, b, LPTol, nil)
	if err != nil {
		return nil, fmt.Errorf("restricted master: %w", err)
	}
	x := make([][]float64, len(md.Groups))
	for g := range x {
		x[g] = make([]float64, len(md.GroupHosts[g]))
	}
	for q, p := range paths {
		if p.artificial || z[q] <= 0 {
			continue
		}
		l := len(p.hosts)
		for r, i := range p.hosts {
			g := md.Group(p.k, l-r)
			for h, hi := range md.GroupHosts[g] {
				if hi == i {
					x[g][h] += z[q]
				}
			}
		}
	}
	return x, nil
}
