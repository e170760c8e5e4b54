package report

import (
	"gonum.org/v1/plot/plotter"

	"github.com/consim/consim/coordinator"
)

// runAxis is the x axis of a run's plots: its label, the suffix of the
// plot names, and each row's coordinate.
type runAxis struct {
	label, suffix string
	x             func(row *coordinator.Row) float64
}

// PlotRun draws the plots of one run into dir and returns their paths:
//
//	consensus.{png,svg}                    consensus error vs round
//	                                       (semilog), with the tolerance
//	                                       as a dashed line
//	optgap_feasibility.{png,svg}           optimality gap and feasibility
//	                                       vs round (semilog)
//	consensus_vs_msgs.{png,svg}            the same two plots vs the
//	optgap_feasibility_vs_msgs.{png,svg}   messages sent through the round
//	                                       (the msgs column)
//
// The plots against messages are left out for bundles whose rows lack
// the msgs column (written before it existed) or whose agents sent no
// message. Axis units in brackets: [x^2] is the squared unit of the
// iterates x, [f] the unit of the objective. Legends are drawn below the
// axes (see saveAs).
func PlotRun(r *Run, st RunStats, dir string) ([]string, error) {
	axes := []runAxis{{label: "round t", x: func(row *coordinator.Row) float64 { return float64(row.Round) }}}
	if hasMsgsAxis(r) {
		axes = append(axes, runAxis{label: "messages sent by all agents through round t", suffix: "_vs_msgs", x: func(row *coordinator.Row) float64 { return float64(row.Msgs) }})
	}
	var paths []string
	for _, ax := range axes {
		out, err := plotRunAgainst(r, st, dir, ax)
		paths = append(paths, out...)
		if err != nil {
			return paths, err
		}
	}
	return paths, nil
}

// hasMsgsAxis reports whether PlotRun draws r against messages: its rows
// carry the msgs column and the last one counts some message.
func hasMsgsAxis(r *Run) bool {
	return r.HasMsgs && len(r.Rows) > 0 && r.Rows[len(r.Rows)-1].Msgs > 0
}

// plotRunAgainst draws the consensus plot and the optimality gap and
// feasibility plot of r against ax.
func plotRunAgainst(r *Run, st RunStats, dir string, ax runAxis) ([]string, error) {
	var ce, gap, feas plotter.XYs
	for k := range r.Rows {
		row := &r.Rows[k]
		x := ax.x(row)
		ce = append(ce, plotter.XY{X: x, Y: row.ConsensusErr})
		gap = append(gap, plotter.XY{X: x, Y: row.OptGap})
		feas = append(feas, plotter.XY{X: x, Y: row.Feasibility})
	}
	ss := []series{{name: "consensus error", xys: ce}}
	if len(r.Rows) > 0 && finite(st.Tolerance) && st.Tolerance > 0 {
		first, last := ax.x(&r.Rows[0]), ax.x(&r.Rows[len(r.Rows)-1])
		ss = append(ss, series{name: "tolerance " + tickLabel(st.Tolerance), xys: plotter.XYs{{X: first, Y: st.Tolerance}, {X: last, Y: st.Tolerance}}, dashed: true})
	}
	id := r.ID()
	if r.Incomplete {
		id += " (did not finish)"
	}
	// A consensus error of 0 (the first row of a run started at
	// consensus) is marked at the bottom of the axis (see linePlot).
	title := "consensus error (1/N) sum_i ||x_i - xbar||^2 from round 0 — " + id
	var paths []string
	p, err := linePlot(title, ax.label, "consensus error [x^2]", true, ss)
	if err != nil {
		return nil, err
	}
	out, err := save(p, dir, "consensus"+ax.suffix)
	paths = append(paths, out...)
	if err != nil {
		return paths, err
	}
	p, err = linePlot("optimality gap and feasibility — "+id, ax.label, "gap [f], feasibility [x]", true, []series{
		{name: "optimality gap f(xbar) - f*", xys: gap},
		{name: "feasibility ||E[A] x||", xys: feas},
	})
	if err != nil {
		return paths, err
	}
	out, err = save(p, dir, "optgap_feasibility"+ax.suffix)
	return append(paths, out...), err
}
