package main

import (
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"

	"github.com/consim/consim/consensus/slicing"
	"github.com/consim/consim/sim"
)

// slicingFlags are the flags of `consim reproduce slicing`.
type slicingFlags struct {
	out, losses                            string
	seed, lossSeed                         uint64
	instances, rounds, every, nodes, flows int
}

// reproduceSlicingCmd is `consim reproduce slicing`: the regularized ALM
// (Algorithm 1 of Huang, Zhang and Alacaoglu, Section 6.2) on random
// network-slicing instances, without and with message loss.
func (a *app) reproduceSlicingCmd() *cobra.Command {
	var f slicingFlags
	def := slicing.DefaultTable()
	cmd := &cobra.Command{
		Use:   "slicing",
		Short: "the regularized ALM on random network-slicing instances, with and without loss (ALM paper §6.2)",
		Long: `Slicing runs the per-node agents of the smoothed linearized ALM (Algorithm
1) on the regularized network-slicing problem (6.5) of Huang, Zhang and
Alacaoglu (Section 6.2) for --instances random instances (seeds --seed,
--seed+1, ...), once per loss rate of --losses, in lockstep with emulated
Bernoulli message loss, and compares each final point with the LP bound
and with its rounding to a slice. It writes runs.csv, plots (PNG and SVG)
of the gap to the LP bound and of the binary fraction per instance, and
table.md, which it also prints with the wall time, into a new directory:
--out must not exist.`,
		Example: `  consim reproduce slicing
  consim reproduce slicing --instances 3 --rounds 2000 --losses 0`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usagef("reproduce slicing: unexpected arguments %q", args)
			}
			return nil
		},
		ValidArgsFunction: cobra.NoFileCompletions,
	}
	fs := cmd.Flags()
	addOutFlag(cmd, &f.out, "output `DIR`, which must not exist (default results/reproduce-slicing-<UTC time>-<4 hex>)")
	fs.Uint64Var(&f.seed, "seed", 1, "seed of the first instance; instance i has seed --seed + i")
	fs.IntVar(&f.instances, "instances", len(def.Seeds), "number of random instances")
	fs.IntVar(&f.rounds, "rounds", def.Rounds, "round budget of a run")
	fs.IntVar(&f.every, "every", def.Every, "period (rounds) of the stopping test: binary with violation <= 1e-4")
	fs.StringVar(&f.losses, "losses", "0,0.1", "comma-separated message loss rates in [0, 1)")
	fs.Uint64Var(&f.lossSeed, "loss-seed", def.LossSeed, "seed of the emulated loss")
	fs.IntVar(&f.nodes, "nodes", def.Gen.Nodes, "nodes of an instance")
	fs.IntVar(&f.flows, "flows", def.Gen.Flows, "flows of an instance")
	for _, n := range []string{"seed", "instances", "rounds", "every", "losses", "loss-seed", "nodes", "flows"} {
		mustComplete(cmd, n, cobra.NoFileCompletions)
	}
	cmd.RunE = a.runE(func(cmd *cobra.Command, _ []string) error {
		return f.run(a.stdout)
	})
	return cmd
}

// run resolves the flags, runs slicing.Table and writes the results.
func (f *slicingFlags) run(stdout io.Writer) error {
	opt := slicing.DefaultTable()
	switch {
	case f.instances < 1:
		return usagef("reproduce slicing: --instances %d: want >= 1", f.instances)
	case f.rounds < 1:
		return usagef("reproduce slicing: --rounds %d: want >= 1", f.rounds)
	case f.every < 0:
		return usagef("reproduce slicing: --every %d: want >= 0", f.every)
	case f.nodes < 2 || f.flows < 1:
		return usagef("reproduce slicing: --nodes %d, --flows %d: want >= 2 nodes and >= 1 flow", f.nodes, f.flows)
	}
	losses, err := parseFloats(f.losses)
	if err != nil {
		return usagef("reproduce slicing: --losses: %w", err)
	}
	for _, l := range losses {
		if !(l >= 0 && l < 1) {
			return usagef("reproduce slicing: --losses: rate %v not in [0, 1)", l)
		}
	}
	opt.Seeds = make([]uint64, f.instances)
	for i := range opt.Seeds {
		opt.Seeds[i] = f.seed + uint64(i)
	}
	opt.Rounds, opt.Every, opt.Losses, opt.LossSeed = f.rounds, f.every, losses, f.lossSeed
	opt.Gen.Nodes, opt.Gen.Flows = f.nodes, f.flows
	out := f.out
	if out == "" {
		out = filepath.Join("results", sim.NewRunID("reproduce-slicing"))
	}
	if err := createNewDir(out); err != nil {
		return fmt.Errorf("reproduce slicing: %w", err)
	}
	start := time.Now()
	rows, sums, err := slicing.Table(opt)
	if err != nil {
		return fmt.Errorf("reproduce slicing: %w", err)
	}
	if err := writeSlicingCSV(filepath.Join(out, "runs.csv"), rows); err != nil {
		return fmt.Errorf("reproduce slicing: %w", err)
	}
	if err := plotSlicing(out, opt, rows); err != nil {
		return fmt.Errorf("reproduce slicing: %w", err)
	}
	md := slicingTable(opt, rows, sums) + wallLine(time.Since(start))
	if err := writeNewFile(filepath.Join(out, "table.md"), strings.NewReader(md)); err != nil {
		return fmt.Errorf("reproduce slicing: %w", err)
	}
	_, err = io.WriteString(stdout, md)
	return err
}

// writeSlicingCSV writes one row per run with every field of
// slicing.TableRow.
func writeSlicingCSV(path string, rows []slicing.TableRow) error {
	out := make([][]string, 0, len(rows))
	for _, r := range rows {
		out = append(out, []string{
			strconv.FormatUint(r.Seed, 10), fmtG(r.Loss), fmtG(r.LP), fmtG(r.Objective), fmtG(r.Gap),
			fmtG(r.Violation), fmtG(r.BinaryFrac), strconv.FormatBool(r.Binary), strconv.FormatBool(r.Feasible),
			strconv.FormatBool(r.RoundFeasible), fmtG(r.RoundObjective), fmtG(r.RoundGap),
			strconv.Itoa(r.Rounds), strconv.FormatInt(r.Messages, 10), strconv.FormatInt(r.Bytes, 10), strconv.FormatInt(r.Dropped, 10),
		})
	}
	return writeCSVFile(path, []string{"seed", "loss", "lp", "objective", "gap", "violation", "binary_frac", "binary", "feasible",
		"round_feasible", "round_objective", "round_gap", "rounds", "messages", "bytes", "dropped"}, out)
}

// plotSlicing writes slicing_gap.{png,svg} (the relative gap of g to the
// LP bound per instance, and of the rounded slice where it is feasible)
// and slicing_violation.{png,svg} (final violation, log scale).
func plotSlicing(dir string, opt slicing.TableOptions, rows []slicing.TableRow) error {
	gap := plot.New()
	gap.Title.Text = fmt.Sprintf("Network slicing, %d nodes, %d flows: gap to the LP bound", opt.Gen.Nodes, opt.Gen.Flows)
	gap.X.Label.Text = "instance seed"
	gap.Y.Label.Text = "(g - LP) / LP"
	gap.X.Tick.Marker = intTicks{}
	gap.Y.Tick.Marker = plainTicks{}
	vio := plot.New()
	vio.Title.Text = fmt.Sprintf("Network slicing, %d nodes, %d flows: final violation", opt.Gen.Nodes, opt.Gen.Flows)
	vio.X.Label.Text = "instance seed"
	vio.Y.Label.Text = "max constraint violation"
	vio.X.Tick.Marker = intTicks{}
	vio.Y.Scale = plot.LogScale{}
	vio.Y.Tick.Marker = logTicks{}
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
			if finite(r.Gap) {
				g = append(g, plotter.XY{X: x, Y: r.Gap})
			}
			if r.RoundFeasible && finite(r.RoundGap) {
				rg = append(rg, plotter.XY{X: x, Y: r.RoundGap})
			}
			if r.Violation > 0 && finite(r.Violation) {
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
	padTop(gap)
	gap.Legend.Top = true
	vio.Legend.Top = true
	padTopLog(vio)
	if err := savePlot(gap, filepath.Join(dir, "slicing_gap")); err != nil {
		return err
	}
	return savePlot(vio, filepath.Join(dir, "slicing_violation"))
}

// padTop extends a linear y axis by 40% upwards, room for the legend.
func padTop(p *plot.Plot) {
	p.Y.Max += 0.4 * (p.Y.Max - p.Y.Min)
}

// padTopLog extends a log y axis upwards by half its span in decades
// (at least a factor 3), room for the legend.
func padTopLog(p *plot.Plot) {
	if p.Y.Min > 0 && p.Y.Max > 0 {
		p.Y.Max *= math.Max(3, math.Pow(p.Y.Max/p.Y.Min, 0.5))
		p.Y.Min /= 1.5
	}
}

// intTicks labels integers only, at a step of 1, 2 or 5 times a power of
// ten that leaves at most 12 labels.
type intTicks struct{}

// Ticks implements plot.Ticker.
func (intTicks) Ticks(lo, hi float64) []plot.Tick {
	step := 1
	for k := 0; (hi-lo)/float64(step) > 12; k++ {
		step = []int{2, 5, 10}[k%3] * int(math.Pow(10, float64(k/3)))
	}
	var ticks []plot.Tick
	for v := int(math.Ceil(lo)); float64(v) <= hi; v++ {
		if v%step == 0 {
			ticks = append(ticks, plot.Tick{Value: float64(v), Label: strconv.Itoa(v)})
		}
	}
	return ticks
}

// slicingTable renders table.md: the instance table, one summary row per
// loss rate, and the application's claim read on the numbers.
func slicingTable(opt slicing.TableOptions, rows []slicing.TableRow, sums []slicing.TableSummary) string {
	var b strings.Builder
	b.WriteString("# Network slicing with the regularized ALM (Huang, Zhang and Alacaoglu, §6.2)\n\n")
	fmt.Fprintf(&b, "%d random instances (%d nodes, %d flows, chains of %d..%d functions; seeds %d..%d); sigma = %g, p = %g, eps = %g; at most %d rounds, stop at the first check (every %d rounds) where x is binary and the violation <= %g; loss rates %v (Bernoulli, seed %d). LP is the bound of the relaxation (column generation on gonum's simplex); the gap is (g - LP) / LP; rounding is the capacity-aware rounding of the final x to a slice.\n\n",
		len(opt.Seeds), opt.Gen.Nodes, opt.Gen.Flows, opt.Gen.MinChain, opt.Gen.MaxChain, opt.Seeds[0], opt.Seeds[len(opt.Seeds)-1],
		opt.RegWeight, opt.P, opt.Eps, opt.Rounds, opt.Every, opt.Tol, opt.Losses, opt.LossSeed)
	b.WriteString("| seed | loss | LP | g | gap | violation | binary frac | binary & feasible | rounding feasible | rounded gap | rounds | messages | dropped |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range rows {
		rg := "-"
		if r.RoundFeasible {
			rg = fmt.Sprintf("%+.4f", r.RoundGap)
		}
		fmt.Fprintf(&b, "| %d | %g | %.3f | %.3f | %+.4f | %.2e | %.2f | %s | %s | %s | %d | %d | %d |\n",
			r.Seed, r.Loss, r.LP, r.Objective, r.Gap, r.Violation, r.BinaryFrac, yesNo(r.Binary && r.Feasible),
			yesNo(r.RoundFeasible), rg, r.Rounds, r.Messages, r.Dropped)
	}
	b.WriteString("\nSummary per loss rate (means over the instances):\n\n")
	b.WriteString("| loss | instances | binary & feasible | rounding feasible | mean gap | mean rounded gap | mean rounds | mean messages | mean bytes |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|\n")
	for _, s := range sums {
		rg := "-"
		if !math.IsNaN(s.MeanRoundGap) {
			rg = fmt.Sprintf("%+.4f", s.MeanRoundGap)
		}
		fmt.Fprintf(&b, "| %g | %d | %d/%d | %d/%d | %+.4f | %s | %.0f | %.0f | %.0f |\n",
			s.Loss, s.Instances, s.BinaryFeasible, s.Instances, s.RoundFeasible, s.Instances, s.MeanGap, rg,
			s.MeanRounds, s.MeanMessages, s.MeanBytes)
	}
	b.WriteString("\nThe paper's claim (after Zhang et al.: the regularized relaxation's solution approximates the binary problem's), on our numbers:\n\n")
	b.WriteString("| loss | claim | holds | numbers |\n|---|---|---|---|\n")
	for _, s := range sums {
		fmt.Fprintf(&b, "| %g | the ALM ends at a binary, feasible slice | %s | %d of %d instances |\n",
			s.Loss, holdsWord(s.BinaryFeasible == s.Instances), s.BinaryFeasible, s.Instances)
	}
	return b.String()
}

// yesNo renders a boolean table cell.
func yesNo(v bool) string {
	if v {
		return "yes"
	}
	return "no"
}
