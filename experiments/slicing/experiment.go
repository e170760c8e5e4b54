// Package slicing is the network-slicing experiment of Huang, Zhang and
// Alacaoglu (Section 6.2) behind `consim reproduce slicing`: the per-node
// agents of the smoothed linearized ALM (Algorithm 1) on the regularized
// network-slicing problem (6.5) for random instances, without and with
// emulated message loss, each final point compared with the LP bound and
// with its rounding to a slice (Table).
//
// The runs use consensus/slicing's own lockstep run (slicing.Run): the
// emulated Bernoulli loss, the early stop at a binary feasible point and
// the rounding read the agents' state, and the LP bound and the rounding
// are the problem family's, not measures of a scenario's bundle.
//
// slicing imports consensus/slicing, experiments and gonum; it must not
// import node, coordinator, sim or cmd.
package slicing

import (
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"

	"github.com/consim/consim/experiments"
)

// Validate checks the sizes and the loss rates.
func (c Config) Validate() error {
	switch {
	case len(c.Seeds) == 0:
		return fmt.Errorf("slicing: no instances")
	case c.Rounds < 1:
		return fmt.Errorf("slicing: rounds %d: want >= 1", c.Rounds)
	case c.Every < 0:
		return fmt.Errorf("slicing: every %d: want >= 0", c.Every)
	case c.Gen.Nodes < 2 || c.Gen.Flows < 1:
		return fmt.Errorf("slicing: nodes %d, flows %d: want >= 2 nodes and >= 1 flow", c.Gen.Nodes, c.Gen.Flows)
	case len(c.Losses) == 0:
		return fmt.Errorf("slicing: no loss rates")
	}
	for _, l := range c.Losses {
		if !(l >= 0 && l < 1) {
			return fmt.Errorf("slicing: loss rate %v not in [0, 1)", l)
		}
	}
	return nil
}

// Result is the outcome of Run: a row per (instance, loss rate), a
// summary per loss rate.
type Result struct {
	Config Config
	Rows   []TableRow
	Sums   []TableSummary
}

// Run runs Table.
func (c Config) Run(ctx context.Context) (*Result, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	rows, sums, err := Table(c)
	if err != nil {
		return nil, err
	}
	return &Result{Config: c, Rows: rows, Sums: sums}, ctx.Err()
}

// Write writes runs.csv and the plots.
func (r *Result) Write(dir string) error {
	if err := writeSlicingCSV(filepath.Join(dir, "runs.csv"), r.Rows); err != nil {
		return err
	}
	return plotSlicing(dir, r.Config, r.Rows)
}

// writeSlicingCSV writes one row per run with every field of
// TableRow.
func writeSlicingCSV(path string, rows []TableRow) error {
	out := make([][]string, 0, len(rows))
	for _, r := range rows {
		out = append(out, []string{
			strconv.FormatUint(r.Seed, 10), experiments.G(r.Loss), experiments.G(r.LP), experiments.G(r.Objective), experiments.G(r.Gap),
			experiments.G(r.Violation), experiments.G(r.BinaryFrac), strconv.FormatBool(r.Binary), strconv.FormatBool(r.Feasible),
			strconv.FormatBool(r.RoundFeasible), experiments.G(r.RoundObjective), experiments.G(r.RoundGap),
			strconv.Itoa(r.Rounds), strconv.FormatInt(r.Messages, 10), strconv.FormatInt(r.Bytes, 10), strconv.FormatInt(r.Dropped, 10),
			experiments.G(r.BinaryOpt), strconv.Itoa(r.BBNodes), strconv.FormatBool(r.SliceBinary), strconv.FormatBool(r.SliceFeasible),
			experiments.G(r.SliceCost), experiments.G(r.SliceViolation), experiments.G(r.PlaceCost), experiments.G(r.PlaceAbove),
			experiments.G(r.SliceAbove), experiments.G(r.BinaryBound),
		})
	}
	return experiments.WriteCSV(path, []string{"seed", "loss", "lp", "objective", "gap", "violation", "binary_frac", "binary", "feasible",
		"round_feasible", "round_objective", "round_gap", "rounds", "messages", "bytes", "dropped",
		"binary_opt", "bb_nodes", "slice_binary", "slice_feasible", "slice_cost", "slice_violation", "place_cost", "place_above_opt", "slice_above_opt", "binary_bound"}, out)
}

// plotSlicing writes slicing_gap.{png,svg} (the relative gap of g to the
// LP bound per instance, and of the rounded slice where it is feasible)
// and slicing_violation.{png,svg} (final violation, log scale).
func plotSlicing(dir string, opt Config, rows []TableRow) error {
	gap := plot.New()
	gap.Title.Text = fmt.Sprintf("Network slicing, %d nodes, %d flows: gap to the LP bound", opt.Gen.Nodes, opt.Gen.Flows)
	gap.X.Label.Text = "instance seed"
	gap.Y.Label.Text = "(g - LP) / LP"
	gap.X.Tick.Marker = experiments.IntTicks{}
	gap.Y.Tick.Marker = experiments.PlainTicks{}
	vio := plot.New()
	vio.Title.Text = fmt.Sprintf("Network slicing, %d nodes, %d flows: final violation", opt.Gen.Nodes, opt.Gen.Flows)
	vio.X.Label.Text = "instance seed"
	vio.Y.Label.Text = "max constraint violation"
	vio.X.Tick.Marker = experiments.IntTicks{}
	vio.Y.Scale = plot.LogScale{}
	vio.Y.Tick.Marker = experiments.LogTicks{}
	var gapSeries, vioSeries []any
	for li, loss := range opt.Losses {
		// Each loss rate's points sit a little to the side of the seed so
		// that equal values stay visible.
		shift := 0.3 * (float64(li) - float64(len(opt.Losses)-1)/2) / float64(max(1, len(opt.Losses)-1))
		var g, rg, v plotter.XYs
		for _, r := range rows {
			if r.Loss != loss {
				continue
			}
			x := float64(r.Seed) + shift
			if experiments.Finite(r.Gap) {
				g = append(g, plotter.XY{X: x, Y: r.Gap})
			}
			if r.RoundFeasible && experiments.Finite(r.RoundGap) {
				rg = append(rg, plotter.XY{X: x, Y: r.RoundGap})
			}
			if r.Violation > 0 && experiments.Finite(r.Violation) {
				v = append(v, plotter.XY{X: x, Y: r.Violation})
			}
		}
		gapSeries = append(gapSeries, fmt.Sprintf("ALM point, loss %g", loss), g)
		if len(rg) > 0 {
			gapSeries = append(gapSeries, fmt.Sprintf("rounded slice, loss %g", loss), rg)
		}
		if len(v) > 0 {
			vioSeries = append(vioSeries, fmt.Sprintf("loss %g", loss), v)
		}
	}
	if err := plotutil.AddScatters(gap, gapSeries...); err != nil {
		return fmt.Errorf("plotting: %w", err)
	}
	if err := plotutil.AddScatters(vio, vioSeries...); err != nil {
		return fmt.Errorf("plotting: %w", err)
	}
	// The legends go outside the data: above the points on a padded axis.
	for _, p := range []*plot.Plot{gap, vio} {
		p.X.Min, p.X.Max = float64(opt.Seeds[0])-0.6, float64(opt.Seeds[len(opt.Seeds)-1])+0.6
	}
	gap.Y.Min -= 0.05 * (gap.Y.Max - gap.Y.Min)
	experiments.PadTop(gap)
	gap.Legend.Top = true
	vio.Legend.Top = true
	experiments.PadTopLog(vio)
	if err := experiments.SavePlot(gap, filepath.Join(dir, "slicing_gap")); err != nil {
		return err
	}
	return experiments.SavePlot(vio, filepath.Join(dir, "slicing_violation"))
}

// Table renders table.md: the instance table, one summary row per loss
// rate, and the application's claims read on the numbers.
func (r *Result) Table() string {
	opt, rows, sums := r.Config, r.Rows, r.Sums
	var b strings.Builder
	b.WriteString("# Network slicing with the regularized ALM (Huang, Zhang and Alacaoglu, §6.2)\n\n")
	fmt.Fprintf(&b, "%d random instances (%d nodes, %d flows, chains of %d..%d functions; seeds %d..%d); sigma = %g, p = %g, eps = %g; %d ALM rounds, stop at the first check (every %d rounds) where x is binary and the violation <= %g; loss rates %v (Bernoulli, seed %d).\n\n",
		len(opt.Seeds), opt.Gen.Nodes, opt.Gen.Flows, opt.Gen.MinChain, opt.Gen.MaxChain, opt.Seeds[0], opt.Seeds[len(opt.Seeds)-1],
		opt.RegWeight, opt.P, opt.Eps, opt.Rounds, opt.Every, opt.Tol, opt.Losses, opt.LossSeed)
	b.WriteString("- **LP bound**: the relaxation of (6.4), by column generation on gonum's simplex.\n")
	if len(opt.Optima) > 0 {
		b.WriteString("- **binary optimum**: the exact optimum of (6.4) from the optima file (--optima; docs/reproductions/slicing-optima.csv is scipy's MILP solver, HiGHS, on the arc form, checked by problems/slicing TestMediumOptimaFile)")
		if opt.MaxNodes > 0 {
			fmt.Fprintf(&b, "; seeds not in it by our branch and price (at most %d tree nodes)", opt.MaxNodes)
		}
		b.WriteString(".\n")
	} else {
		fmt.Fprintf(&b, "- **binary optimum**: the exact optimum of (6.4) by our branch and price (problems/slicing BranchAndBound, at most %d tree nodes; checked against scipy's MILP solver in its tests); where the search stops at its node limit, the lower bound it proved (*not proven*), and the instance is left out of the medians.\n", opt.MaxNodes)
	}
	b.WriteString("- **ALM point**: g, its gap (g - LP) / LP and the violation after the ALM rounds; **rounding**: the capacity-aware rounding of that x, routed optimally.\n")
	if opt.Slice {
		fmt.Fprintf(&b, "- **slice**: the agents' final stage (consensus/slicing Stage: a fix-and-continue dive over a max-consensus flood, repair cycles, then move cycles that re-place one flow's chain per cycle on distances priced by the ALM's link duals and keep the placement that measured best), then %d ALM rounds on the fixed placement; *feasible* = binary with violation <= %g; *cost* = g at the final point (the run stops at the first check where the slice is feasible, so its routing need not be optimal); *placement, routed optimally* = the optimal routing cost of the stage's placement (column generation) and its excess over the binary optimum.\n", opt.SliceRounds, opt.Tol)
	}
	b.WriteString("\n| seed | loss | LP bound | binary optimum | ALM g | gap to LP | violation | binary frac | rounding feasible | rounded gap to LP | slice binary | slice violation | slice feasible | slice cost | slice above binary optimum | placement, routed optimally | above binary optimum | rounds | messages | dropped |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range rows {
		rg := "-"
		if r.RoundFeasible {
			rg = fmt.Sprintf("%+.4f", r.RoundGap)
		}
		pc, pa := "none", "-"
		if !math.IsNaN(r.PlaceCost) {
			pc, pa = fmt.Sprintf("%.3f", r.PlaceCost), fmt.Sprintf("%+.2f%%", 100*r.PlaceAbove)
		}
		bo := fmt.Sprintf("%.3f", r.BinaryOpt)
		if math.IsNaN(r.BinaryOpt) {
			bo = fmt.Sprintf("≥ %.3f (not proven)", r.BinaryBound)
		}
		fmt.Fprintf(&b, "| %d | %g | %.3f | %s | %.3f | %+.4f | %.2e | %.2f | %s | %s | %s | %.2e | %s | %.3f | %s | %s | %s | %d | %d | %d |\n",
			r.Seed, r.Loss, r.LP, bo, r.Objective, r.Gap, r.Violation, r.BinaryFrac,
			experiments.YesNo(r.RoundFeasible), rg, experiments.YesNo(r.SliceBinary), r.SliceViolation, experiments.YesNo(r.SliceFeasible),
			r.SliceCost, pct(r.SliceAbove), pc, pa, r.Rounds, r.Messages, r.Dropped)
	}
	b.WriteString("\nSummary per loss rate:\n\n")
	b.WriteString("| loss | instances | binary optimum proven | ALM binary & feasible | rounding feasible | mean gap to LP | mean rounded gap to LP | slice binary | slice feasible | feasible slices: median / worst above binary optimum | placement routable | routed placements: median / worst above binary optimum | mean rounds | mean messages |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, s := range sums {
		rg := "-"
		if !math.IsNaN(s.MeanRoundGap) {
			rg = fmt.Sprintf("%+.4f", s.MeanRoundGap)
		}
		ab := pct(s.MedianPlaceAbove) + " / " + pct(s.WorstPlaceAbove)
		sb := pct(s.MedianSliceAbove) + " / " + pct(s.WorstSliceAbove)
		fmt.Fprintf(&b, "| %g | %d | %d/%d | %d/%d | %d/%d | %+.4f | %s | %d/%d | %d/%d | %s | %d/%d | %s | %.0f | %.0f |\n",
			s.Loss, s.Instances, s.Proven, s.Instances, s.BinaryFeasible, s.Instances, s.RoundFeasible, s.Instances, s.MeanGap, rg,
			s.SliceBinary, s.Instances, s.SliceFeasible, s.Instances, sb, s.Routable, s.Instances, ab, s.MeanRounds, s.MeanMessages)
	}
	b.WriteString("\nThe claims, on our numbers:\n\n")
	b.WriteString("| loss | claim | holds | numbers |\n|---|---|---|---|\n")
	for _, s := range sums {
		fmt.Fprintf(&b, "| %g | the ALM ends at a binary, feasible slice | %s | %d of %d instances |\n",
			s.Loss, experiments.Verdict(s.BinaryFeasible == s.Instances), s.BinaryFeasible, s.Instances)
		if opt.Slice {
			fmt.Fprintf(&b, "| %g | the final stage ends at a feasible binary slice on every instance | %s | %d of %d instances |\n",
				s.Loss, experiments.Verdict(s.SliceFeasible == s.Instances), s.SliceFeasible, s.Instances)
			ok := !math.IsNaN(s.MedianSliceAbove) && s.MedianSliceAbove <= 0.05
			fmt.Fprintf(&b, "| %g | the feasible slices cost at most 5%% above the binary optimum in the median | %s | median %s, worst %s over the %d feasible slices of instances with a proven optimum |\n",
				s.Loss, experiments.Verdict(ok), pct(s.MedianSliceAbove), pct(s.WorstSliceAbove), s.Compared)
		}
	}
	return b.String()
}

// pct formats a fraction as a signed percentage, "-" for NaN.
func pct(v float64) string {
	if math.IsNaN(v) {
		return "-"
	}
	return fmt.Sprintf("%+.2f%%", 100*v)
}

// ReadCSV reads the rows of a runs.csv that Write wrote, so that the
// table can be rendered again from a run's data (with Summarize).
func ReadCSV(r io.Reader) ([]TableRow, error) {
	recs, err := csv.NewReader(r).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("runs.csv: %w", err)
	}
	const cols = 26
	if len(recs) == 0 || len(recs[0]) != cols || recs[0][0] != "seed" {
		return nil, fmt.Errorf("runs.csv: want the %d-column header of Write", cols)
	}
	var rows []TableRow
	for n, rec := range recs[1:] {
		var f [cols]float64
		var b [cols]bool
		var i [cols]int64
		for q, s := range rec {
			var err error
			switch q {
			case 7, 8, 9, 18, 19: // binary, feasible, round_feasible, slice_binary, slice_feasible
				b[q], err = strconv.ParseBool(s)
			case 0, 12, 13, 14, 15, 17: // seed, rounds, messages, bytes, dropped, bb_nodes
				i[q], err = strconv.ParseInt(s, 10, 64)
			default:
				f[q], err = strconv.ParseFloat(s, 64)
			}
			if err != nil {
				return nil, fmt.Errorf("runs.csv: row %d column %s: %w", n+1, recs[0][q], err)
			}
		}
		rows = append(rows, TableRow{Seed: uint64(i[0]), Loss: f[1], LP: f[2], Objective: f[3], Gap: f[4], Violation: f[5],
			BinaryFrac: f[6], Binary: b[7], Feasible: b[8], RoundFeasible: b[9], RoundObjective: f[10], RoundGap: f[11],
			Rounds: int(i[12]), Messages: i[13], Bytes: i[14], Dropped: i[15], BinaryOpt: f[16], BBNodes: int(i[17]),
			SliceBinary: b[18], SliceFeasible: b[19], SliceCost: f[20], SliceViolation: f[21], PlaceCost: f[22], PlaceAbove: f[23], SliceAbove: f[24],
			BinaryBound: f[25]})
	}
	return rows, nil
}
