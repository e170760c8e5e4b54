package slicing

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/consim/consim/problems/datafile"
)

// ExportPlacements is the largest number of binary placements for which
// an export computes the binary optimum (BinaryOptimum, by enumeration);
// a larger instance's binary optimum is left to the outside solver.
const ExportPlacements = 4096

// Export writes the instance as instance.json (DecodeInstance's form, so
// that problem.file reproduces it) and the mixed-integer program (6.4) as
// slicing.mps, and states the LP bound the runs measure against (PathLP)
// and, for instances of at most ExportPlacements placements, the binary
// optimum.
func (s instance) Export(e *datafile.Export) error {
	md := s.md
	js, err := md.Inst.EncodeJSON()
	if err != nil {
		return err
	}
	if err := e.WriteFile("instance.json", func(w io.Writer) error {
		_, err := w.Write(append(js, '\n'))
		return err
	}); err != nil {
		return err
	}
	if err := e.WriteFile("slicing.mps", md.WriteMPS); err != nil {
		return err
	}
	lp, err := PathLP(md)
	if err != nil {
		return fmt.Errorf("LP bound: %w", err)
	}
	m := &e.Manifest
	m.Objective = "min g(u) = sum_k lambda(k) sum_(i,j) sum_s u_ij(k,s) over u >= 0 and binary x, s.t. flow conservation, one host per chain position, " +
		"link capacities sum_k lambda(k) sum_s u_ij(k,s) <= C_ij and node capacities sum_k lambda(k) sum_m x_i(k,m) <= mu_i " +
		"(problem (6.4), written out in slicing.mps); f_star is the optimum of its LP relaxation, x in [0, 1]"
	m.FStar, m.FStarIs, m.Convex = datafile.Value(lp), s.FStarName(), false
	bin := math.NaN()
	placements := 1.0
	for _, hs := range md.GroupHosts {
		placements *= float64(len(hs))
	}
	if placements <= ExportPlacements {
		b, err := BinaryOptimum(md, ExportPlacements)
		switch {
		case err == nil:
			bin = b.Objective
		case errors.Is(err, ErrInfeasible):
			m.Notes = append(m.Notes, "binary_optimum: no binary placement has a feasible routing")
		default:
			return fmt.Errorf("binary optimum: %w", err)
		}
	} else {
		m.Notes = append(m.Notes, fmt.Sprintf("binary_optimum: not computed: the instance has %.3g placements, more than the %d that the export enumerates; solve slicing.mps as a MILP for it",
			placements, ExportPlacements))
	}
	m.References = map[string]datafile.Value{"lp_bound": datafile.Value(lp), "binary_optimum": datafile.Value(bin)}
	m.Notes = append(m.Notes,
		"slicing.mps: free MPS; columns u_i_j_k_s (flow k's segment s on link i->j, continuous >= 0) and x_i_k_m (node i runs the m-th function of flow k, binary: between the INTORG and INTEND markers and bounded BV); rows cons_i_k_s, assign_k_m, link_i_j, node_i",
		"lp_bound: the LP relaxation by column generation (PathLP); binary_optimum: every placement enumerated, each routed by its LP (BinaryOptimum)")
	return nil
}

// FStarName says what f* of the runs on a slicing instance is: the LP
// bound of the relaxation, below the binary optimum.
func (s instance) FStarName() string { return "LP bound" }

// WriteMPS writes problem (6.4) in free MPS, in rate units: minimize
// g(u) over u >= 0 and x binary subject to the conservation rows of the
// Model (cons_i_k_s, = b), the assignment rows sum_{i in V_f} x_i(k,m) = 1
// (assign_k_m), the link rows sum_k lambda(k) sum_s u_ij(k,s) <= C_ij
// (link_i_j) and the node rows sum_k lambda(k) sum_m x_i(k,m) <= mu_i
// (node_i, hosts only). The x columns stand between the INTORG and
// INTEND markers and have BV bounds.
func (md *Model) WriteMPS(w io.Writer) error {
	in := md.Inst
	name := make([]string, md.N)
	for i := range in.Nodes {
		for a, j := range md.Out[i] {
			for k, fl := range in.Flows {
				for s := 0; s <= len(fl.Chain); s++ {
					name[md.U(i, a, k, s)] = fmt.Sprintf("u_%d_%d_%d_%d", i, j, k, s)
				}
			}
		}
	}
	for k, fl := range in.Flows {
		for m := 1; m <= len(fl.Chain); m++ {
			for _, i := range md.GroupHosts[md.Group(k, m)] {
				name[md.X(i, k, m)] = fmt.Sprintf("x_%d_%d_%d", i, k, m)
			}
		}
	}
	type entry struct {
		row string
		v   float64
	}
	col := make([][]entry, md.N)
	var rows []string
	rhs := map[string]float64{}
	sense := map[string]string{}
	add := func(row, sn string, b float64) {
		rows = append(rows, row)
		sense[row] = sn
		if b != 0 {
			rhs[row] = b
		}
	}
	for i := range in.Nodes {
		r := md.RowOff[i]
		for k, fl := range in.Flows {
			for s := 0; s <= len(fl.Chain); s++ {
				row := fmt.Sprintf("cons_%d_%d_%d", i, k, s)
				add(row, "E", md.B[r])
				for q, c := range md.Rows[r].Cols {
					col[c] = append(col[c], entry{row, md.Rows[r].Vals[q]})
				}
				r++
			}
		}
	}
	for k, fl := range in.Flows {
		for m := 1; m <= len(fl.Chain); m++ {
			row := fmt.Sprintf("assign_%d_%d", k, m)
			add(row, "E", 1)
			for _, i := range md.GroupHosts[md.Group(k, m)] {
				c := md.X(i, k, m)
				col[c] = append(col[c], entry{row, 1})
			}
		}
	}
	for i := range in.Nodes {
		for a, j := range md.Out[i] {
			row := fmt.Sprintf("link_%d_%d", i, j)
			add(row, "L", in.Links[md.OutLink[i][a]].Cap)
			for k, fl := range in.Flows {
				for s := 0; s <= len(fl.Chain); s++ {
					c := md.U(i, a, k, s)
					col[c] = append(col[c], entry{row, fl.Rate})
				}
			}
		}
	}
	for i := range in.Nodes {
		if md.NodeSlack(i) < 0 {
			continue
		}
		row := fmt.Sprintf("node_%d", i)
		add(row, "L", in.NodeCap[i])
		for k, fl := range in.Flows {
			for m := 1; m <= len(fl.Chain); m++ {
				if c := md.X(i, k, m); c >= 0 {
					col[c] = append(col[c], entry{row, fl.Rate})
				}
			}
		}
	}
	num := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	var err error
	p := func(format string, args ...any) {
		if err == nil {
			_, err = fmt.Fprintf(w, format, args...)
		}
	}
	p("NAME slicing\nROWS\n N cost\n")
	for _, r := range rows {
		p(" %s %s\n", sense[r], r)
	}
	p("COLUMNS\n")
	isX := make([]bool, md.N)
	for _, grp := range md.Groups {
		for _, c := range grp {
			isX[c] = true
		}
	}
	var binaries []string
	writeCols := func(binary bool) {
		for c, nm := range name {
			if nm == "" || isX[c] != binary {
				continue
			}
			if binary {
				binaries = append(binaries, nm)
			} else {
				p(" %s cost %s\n", nm, num(md.Cost[c]))
			}
			for _, en := range col[c] {
				p(" %s %s %s\n", nm, en.row, num(en.v))
			}
		}
	}
	writeCols(false)
	p(" MARKER 'MARKER' 'INTORG'\n")
	writeCols(true)
	p(" MARKER 'MARKER' 'INTEND'\nRHS\n")
	for _, r := range rows {
		if b, ok := rhs[r]; ok {
			p(" RHS %s %s\n", r, num(b))
		}
	}
	p("BOUNDS\n")
	for _, nm := range binaries {
		p(" BV BND %s\n", nm)
	}
	p("ENDATA\n")
	return err
}
