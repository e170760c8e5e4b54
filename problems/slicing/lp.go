package slicing

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize/convex/lp"
)

// ErrInfeasible reports an instance or placement without a feasible
// routing.
var ErrInfeasible = errors.New("slicing: infeasible")

// LPTol is the reduced-cost tolerance passed to gonum's simplex.
const LPTol = 1e-10

// Solution is a point of the relaxation with its objective.
type Solution struct {
	// Objective is g = sum_k lambda(k) sum_(i,j) sum_s u_ij(k,s), in rate
	// units.
	Objective float64
	// W is the point in Model coordinates (u, x, slacks; slacks as
	// fractions of capacity).
	W []float64
}

// SolveLP solves the LP relaxation of (6.4) (x in [0,1], no regularizer)
// exactly with gonum's simplex (optimize/convex/lp) in standard form: the
// variables u, x (hosts only) and unscaled capacity slacks, all >= 0; the
// conservation rows of the Model without the row of node 0 of every
// segment (those are implied by the others and the assignment rows, and
// the simplex needs full row rank); the assignment rows
// sum_{i in V_{f_m}} x_i(k,m) = 1; and the capacity rows with their
// slacks, in rate units. The result wraps ErrInfeasible when the LP has no
// feasible point.
func SolveLP(md *Model) (Solution, error) {
	return md.solve(nil)
}

// SolveFixed solves the LP over the rates for a fixed binary placement:
// place[k][m-1] is the node that runs the m-th function of flow k. It
// returns the optimal routing (with x set to the placement) or an error
// wrapping ErrInfeasible if the placement breaks a node capacity or no
// routing fits the link capacities.
func SolveFixed(md *Model, place [][]int) (Solution, error) {
	in := md.Inst
	if len(place) != len(in.Flows) {
		return Solution{}, fmt.Errorf("slicing: placement has %d flows, instance has %d", len(place), len(in.Flows))
	}
	load := make([]float64, in.Nodes)
	for k, fl := range in.Flows {
		if len(place[k]) != len(fl.Chain) {
			return Solution{}, fmt.Errorf("slicing: placement of flow %d has %d functions, its chain %d", k, len(place[k]), len(fl.Chain))
		}
		for m, i := range place[k] {
			if i < 0 || i >= in.Nodes || md.X(i, k, m+1) < 0 {
				return Solution{}, fmt.Errorf("slicing: placement of flow %d: node %d cannot run chain position %d", k, i, m+1)
			}
			load[i] += fl.Rate
		}
	}
	for i, l := range load {
		if l > in.NodeCap[i]*(1+1e-12) {
			return Solution{}, fmt.Errorf("%w: placement loads node %d with %v > node_cap %v", ErrInfeasible, i, l, in.NodeCap[i])
		}
	}
	return md.solve(place)
}

// solve builds and solves the standard-form LP; place == nil leaves x
// free in the assignment simplex, otherwise x is fixed to the placement.
func (md *Model) solve(place [][]int) (Solution, error) {
	in := md.Inst
	fixed := make([]float64, md.N) // x values when place != nil
	for k := range place {
		for m, i := range place[k] {
			fixed[md.X(i, k, m+1)] = 1
		}
	}
	isX := make([]bool, md.N)
	for _, grp := range md.Groups {
		for _, c := range grp {
			isX[c] = true
		}
	}
	isSlack := make([]bool, md.N)
	for i := 0; i < in.Nodes; i++ {
		for _, e := range md.OutLink[i] {
			isSlack[md.linkVar[e]] = true
		}
		if c := md.nodeVar[i]; c >= 0 {
			isSlack[c] = true
		}
	}
	// Columns of the LP: every model variable except x under a fixed
	// placement, and except node slacks under a fixed placement (node rows
	// were checked directly).
	col := make([]int, md.N)
	var cols []int
	for c := 0; c < md.N; c++ {
		col[c] = -1
		if place != nil && (isX[c] || (isSlack[c] && md.isNodeSlack(c))) {
			continue
		}
		col[c] = len(cols)
		cols = append(cols, c)
	}
	var rows [][]float64
	var b []float64
	addRow := func(r Row, scale []float64, rhs float64) {
		row := make([]float64, len(cols))
		for q, c := range r.Cols {
			v := r.Vals[q]
			if scale != nil {
				v *= scale[q]
			}
			if col[c] < 0 {
				rhs -= v * fixed[c]
				continue
			}
			row[col[c]] = v
		}
		rows = append(rows, row)
		b = append(b, rhs)
	}
	for i := 0; i < in.Nodes; i++ {
		r := md.RowOff[i]
		for _, fl := range in.Flows {
			for s := 0; s <= len(fl.Chain); s++ {
				if i != 0 {
					addRow(md.Rows[r], nil, md.B[r])
				}
				r++
			}
		}
		for _, e := range md.OutLink[i] {
			// In rate units: sum_k lambda(k) sum_s u + C t = C.
			// (The model row is divided by its norm 1/B[r].)
			c := in.Links[e].Cap
			row := md.Rows[r]
			scale := make([]float64, len(row.Cols))
			for q := range scale {
				scale[q] = c / md.B[r]
			}
			addRow(row, scale, c)
			r++
		}
		if md.nodeVar[i] >= 0 {
			if place == nil {
				c := in.NodeCap[i]
				row := md.Rows[r]
				scale := make([]float64, len(row.Cols))
				for q := range scale {
					scale[q] = c / md.B[r]
				}
				addRow(row, scale, c)
			}
		}
	}
	if place == nil {
		for _, grp := range md.Groups {
			row := make([]float64, len(cols))
			for _, c := range grp {
				row[col[c]] = 1
			}
			rows = append(rows, row)
			b = append(b, 1)
		}
	}
	a := mat.NewDense(len(rows), len(cols), nil)
	for r, row := range rows {
		a.SetRow(r, row)
	}
	cost := make([]float64, len(cols))
	for q, c := range cols {
		cost[q] = md.Cost[c]
	}
	opt, x, err := lp.Simplex(cost, a, b, LPTol, nil)
	if err != nil {
		if errors.Is(err, lp.ErrInfeasible) {
			return Solution{}, fmt.Errorf("%w: the LP has no feasible routing (link or node capacities too small for the flows): %v", ErrInfeasible, err)
		}
		return Solution{}, fmt.Errorf("slicing: simplex: %w", err)
	}
	w := make([]float64, md.N)
	copy(w, fixed)
	for q, c := range cols {
		w[c] = x[q]
	}
	// The slack columns carry C t, so the LP's slacks are the fractions t;
	// under a fixed placement the node slacks follow from the loads.
	for i, c := range md.nodeVar {
		if c >= 0 && place != nil {
			w[c] = 1 - md.nodeLoad(w, i)/in.NodeCap[i]
		}
	}
	return Solution{Objective: opt, W: w}, nil
}

// isNodeSlack reports whether variable c is some node's slack.
func (md *Model) isNodeSlack(c int) bool {
	for _, v := range md.nodeVar {
		if v == c {
			return true
		}
	}
	return false
}

// nodeLoad returns sum_k lambda(k) sum_m x_i(k,m) at w.
func (md *Model) nodeLoad(w []float64, i int) float64 {
	var s float64
	for k, fl := range md.Inst.Flows {
		for m := 1; m <= len(fl.Chain); m++ {
			if c := md.X(i, k, m); c >= 0 {
				s += fl.Rate * w[c]
			}
		}
	}
	return s
}

// Binary is the binary optimum of (6.4) found by enumeration.
type Binary struct {
	Solution
	// Place is the optimal placement, Place[k][m-1] the host of the m-th
	// function of flow k.
	Place [][]int
	// Placements is the number of placements enumerated, Feasible the
	// number with a feasible routing.
	Placements, Feasible int
}

// BinaryOptimum enumerates every placement (one host per chain position,
// prod_{k,m} |V_{f_m}| of them), prices each with the routing LP by
// column generation (PathFixed), and returns the best, with its routing
// solved again in arc form (SolveFixed) for the point W. It refuses
// instances with more than maxPlacements placements.
func BinaryOptimum(md *Model, maxPlacements int) (Binary, error) {
	total := 1
	for _, hs := range md.GroupHosts {
		total *= len(hs)
		if total > maxPlacements {
			return Binary{}, fmt.Errorf("slicing: binary enumeration: more than %d placements", maxPlacements)
		}
	}
	in := md.Inst
	digits := make([]int, len(md.GroupHosts))
	best := Binary{Placements: total}
	bestObj := math.Inf(1)
	for n := 0; n < total; n++ {
		place := make([][]int, len(in.Flows))
		for k, fl := range in.Flows {
			place[k] = make([]int, len(fl.Chain))
			for m := range fl.Chain {
				g := md.Group(k, m+1)
				place[k][m] = md.GroupHosts[g][digits[g]]
			}
		}
		obj, err := PathFixed(md, place)
		switch {
		case err == nil:
			best.Feasible++
			if obj < bestObj {
				bestObj, best.Place = obj, place
			}
		case !errors.Is(err, ErrInfeasible):
			return Binary{}, fmt.Errorf("slicing: binary enumeration: %w", err)
		}
		for g := range digits {
			digits[g]++
			if digits[g] < len(md.GroupHosts[g]) {
				break
			}
			digits[g] = 0
		}
	}
	if best.Place == nil {
		return Binary{}, fmt.Errorf("%w: no binary placement has a feasible routing", ErrInfeasible)
	}
	sol, err := SolveFixed(md, best.Place)
	if err != nil {
		return Binary{}, fmt.Errorf("slicing: binary enumeration: arc form of the best placement: %w", err)
	}
	if math.Abs(sol.Objective-bestObj) > 1e-7*math.Max(1, bestObj) {
		return Binary{}, fmt.Errorf("slicing: binary enumeration: path form %v and arc form %v of the best placement disagree", bestObj, sol.Objective)
	}
	best.Solution = sol
	return best, nil
}
