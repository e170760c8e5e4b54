package slicing

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
)

// BinaryTol is the distance to {0, 1} within which a placement variable
// counts as binary.
const BinaryTol = 1e-3

// Measures describe a point w of the relaxation.
type Measures struct {
	// Objective is g(u) = sum_k lambda(k) sum_(i,j) sum_s u_ij(k,s).
	Objective float64
	// Violation is the largest violation of the constraints of (6.4)
	// relaxed to x in [0,1]: |conservation residual| (in fractions of the
	// flow's rate), |sum_{i in V_f} x_i(k,m) - 1|, and the relative excess
	// max(0, load/C_ij - 1), max(0, load_i/mu_i - 1) of the capacities
	// (slacks are not used: the loads are computed from u and x).
	Violation float64
	// BinaryFrac is the fraction of the x_i(k,m) within BinaryTol of 0 or 1;
	// Binary is BinaryFrac == 1.
	BinaryFrac float64
	Binary     bool
}

// Evaluate returns the measures of w (Model order).
func Evaluate(md *Model, w []float64) (Measures, error) {
	if len(w) != md.N {
		return Measures{}, fmt.Errorf("slicing: evaluate: point has %d values, model %d", len(w), md.N)
	}
	in := md.Inst
	var ms Measures
	ms.Objective = dot(md.Cost, w)
	for i := 0; i < in.Nodes; i++ {
		r := md.RowOff[i]
		for _, fl := range in.Flows {
			for s := 0; s <= len(fl.Chain); s++ {
				row := md.Rows[r]
				v := -md.B[r]
				for q, c := range row.Cols {
					v += row.Vals[q] * w[c]
				}
				ms.Violation = math.Max(ms.Violation, math.Abs(v))
				r++
			}
		}
		for a, e := range md.OutLink[i] {
			var load float64
			for k, fl := range in.Flows {
				for s := 0; s <= len(fl.Chain); s++ {
					load += fl.Rate * w[md.U(i, a, k, s)]
				}
			}
			ms.Violation = math.Max(ms.Violation, load/in.Links[e].Cap-1)
		}
		if md.nodeVar[i] >= 0 {
			ms.Violation = math.Max(ms.Violation, md.nodeLoad(w, i)/in.NodeCap[i]-1)
		}
	}
	var nx, nb int
	for _, grp := range md.Groups {
		var s float64
		for _, c := range grp {
			s += w[c]
			nx++
			if w[c] <= BinaryTol || w[c] >= 1-BinaryTol {
				nb++
			}
		}
		ms.Violation = math.Max(ms.Violation, math.Abs(s-1))
	}
	ms.BinaryFrac = float64(nb) / float64(nx)
	ms.Binary = nb == nx
	return ms, nil
}

// Rounded is the slice obtained by rounding a relaxed placement.
type Rounded struct {
	// Place[k][m-1] is the host chosen for the m-th function of flow k.
	Place [][]int
	// Feasible reports whether the placement has a routing within all
	// capacities; Objective is then its optimal routing cost g.
	Feasible  bool
	Objective float64
}

// Round rounds w to a binary placement that respects the node
// capacities where it can, and solves the routing LP of that placement by
// column generation (PathFixed). Chain positions (k,m) are taken in
// decreasing order of their largest x_i(k,m) (ties by k, m); each goes to
// the host of largest x_i(k,m) (ties to the lowest node) whose remaining
// node capacity still fits lambda(k), or to the host of largest x if none
// fits (the slice is then infeasible).
func Round(md *Model, w []float64) (Rounded, error) {
	in := md.Inst
	rd := Rounded{Place: make([][]int, len(in.Flows))}
	type pos struct {
		k, m int
		top  float64
	}
	var order []pos
	for k, fl := range in.Flows {
		rd.Place[k] = make([]int, len(fl.Chain))
		for m := 1; m <= len(fl.Chain); m++ {
			top := 0.0
			for _, c := range md.Groups[md.Group(k, m)] {
				top = math.Max(top, w[c])
			}
			order = append(order, pos{k, m, top})
		}
	}
	slices.SortStableFunc(order, func(a, b pos) int {
		switch {
		case a.top > b.top:
			return -1
		case a.top < b.top:
			return 1
		}
		return 0
	})
	left := append([]float64(nil), in.NodeCap...)
	for _, p := range order {
		g := md.Group(p.k, p.m)
		hosts := make([]int, len(md.GroupHosts[g]))
		for h := range hosts {
			hosts[h] = h
		}
		slices.SortStableFunc(hosts, func(a, b int) int {
			xa, xb := w[md.Groups[g][a]], w[md.Groups[g][b]]
			switch {
			case xa > xb:
				return -1
			case xa < xb:
				return 1
			}
			return 0
		})
		rate := in.Flows[p.k].Rate
		pick := md.GroupHosts[g][hosts[0]]
		for _, h := range hosts {
			if i := md.GroupHosts[g][h]; left[i] >= rate*(1-1e-12) {
				pick = i
				break
			}
		}
		left[pick] -= rate
		rd.Place[p.k][p.m-1] = pick
	}
	for i, l := range left {
		if l < -1e-12*in.NodeCap[i] {
			return rd, nil // a node is overloaded: infeasible without routing
		}
	}
	obj, err := PathFixed(md, rd.Place)
	switch {
	case err == nil:
		rd.Feasible, rd.Objective = true, obj
	case errors.Is(err, ErrInfeasible):
	default:
		return Rounded{}, fmt.Errorf("slicing: round: %w", err)
	}
	return rd, nil
}

// Regularizer returns P_eps(x) at w:
// sum_{k,m} (sum_{i in V_{f_m}} (x_i(k,m) + eps)^p - (1+eps)^p - (|V_{f_m}|-1) eps^p).
func Regularizer(md *Model, w []float64, p, eps float64) float64 {
	var s float64
	for _, grp := range md.Groups {
		for _, v := range grp {
			s += math.Pow(w[v]+eps, p)
		}
		s -= math.Pow(1+eps, p) + float64(len(grp)-1)*math.Pow(eps, p)
	}
	return s
}

// Placement returns the placement of a binary point: Place[k][m-1] is
// the one host i with x_i(k,m) >= 1 - BinaryTol. ok is false when some
// position has no such host or more than one.
func Placement(md *Model, w []float64) (place [][]int, ok bool) {
	place = make([][]int, len(md.Inst.Flows))
	for k, fl := range md.Inst.Flows {
		place[k] = make([]int, len(fl.Chain))
		for m := 1; m <= len(fl.Chain); m++ {
			n := 0
			for _, i := range md.GroupHosts[md.Group(k, m)] {
				if w[md.X(i, k, m)] >= 1-BinaryTol {
					place[k][m-1] = i
					n++
				}
			}
			if n != 1 {
				return nil, false
			}
		}
	}
	return place, true
}

// ReadOptima reads binary optima by instance seed from a CSV file with
// the header "seed,binary_opt" (as `consim reproduce slicing --optima`
// takes them).
func ReadOptima(r io.Reader) (map[uint64]float64, error) {
	recs, err := csv.NewReader(r).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("slicing: optima: %w", err)
	}
	if len(recs) == 0 || len(recs[0]) != 2 || recs[0][0] != "seed" || recs[0][1] != "binary_opt" {
		return nil, fmt.Errorf("slicing: optima: want the header seed,binary_opt")
	}
	opt := make(map[uint64]float64, len(recs)-1)
	for n, rec := range recs[1:] {
		seed, err := strconv.ParseUint(rec[0], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("slicing: optima: row %d: seed: %w", n+1, err)
		}
		v, err := strconv.ParseFloat(rec[1], 64)
		if err != nil || !(v > 0) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("slicing: optima: row %d: binary_opt %q: want a finite number > 0", n+1, rec[1])
		}
		if _, dup := opt[seed]; dup {
			return nil, fmt.Errorf("slicing: optima: row %d: seed %d repeated", n+1, seed)
		}
		opt[seed] = v
	}
	return opt, nil
}
