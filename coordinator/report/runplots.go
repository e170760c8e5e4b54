package report

import (
	"gonum.org/v1/plot/plotter"
)

// PlotRun draws the plots of one run into dir and returns their paths:
//
//	consensus.{png,svg}           consensus error vs round (semilog), with
//	                              the tolerance as a dashed line
//	optgap_feasibility.{png,svg}  optimality gap and feasibility vs round
//	                              (semilog)
//
// The bundle holds traffic totals only, not per-round message counts, so
// both plots are drawn against rounds.
func PlotRun(r *Run, st RunStats, dir string) ([]string, error) {
	var ce, gap, feas plotter.XYs
	for _, row := range r.Rows {
		x := float64(row.Round)
		ce = append(ce, plotter.XY{X: x, Y: row.ConsensusErr})
		gap = append(gap, plotter.XY{X: x, Y: row.OptGap})
		feas = append(feas, plotter.XY{X: x, Y: row.Feasibility})
	}
	ss := []series{{name: "consensus error", xys: ce}}
	if len(r.Rows) > 0 && finite(st.Tolerance) && st.Tolerance > 0 {
		first, last := float64(r.Rows[0].Round), float64(r.Rows[len(r.Rows)-1].Round)
		ss = append(ss, series{name: "tolerance", xys: plotter.XYs{{X: first, Y: st.Tolerance}, {X: last, Y: st.Tolerance}}, dashed: true})
	}
	var paths []string
	p, err := linePlot("consensus error (1/N) sum_i ||x_i - xbar||^2 — "+r.Summary.RunID, "round", "consensus error", true, ss)
	if err != nil {
		return nil, err
	}
	out, err := save(p, dir, "consensus")
	paths = append(paths, out...)
	if err != nil {
		return paths, err
	}
	p, err = linePlot("optimality gap and feasibility — "+r.Summary.RunID, "round", "value", true, []series{
		{name: "optimality gap f(xbar) - f*", xys: gap},
		{name: "feasibility ||E[A] x||", xys: feas},
	})
	if err != nil {
		return paths, err
	}
	out, err = save(p, dir, "optgap_feasibility")
	return append(paths, out...), err
}
