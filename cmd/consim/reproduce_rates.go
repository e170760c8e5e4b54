package main

import (
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"
	"gonum.org/v1/gonum/mat"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/consensus/alm"
	"github.com/consim/consim/consensus/dgd"
	"github.com/consim/consim/consensus/lockstep"
	"github.com/consim/consim/graph"
	"github.com/consim/consim/objective"
	"github.com/consim/consim/observe"
	"github.com/consim/consim/sim"
)

// ratesFlags are the flags of `consim reproduce rates`.
type ratesFlags struct {
	out, ps, methods   string
	n                  int
	erQ                float64
	seed               uint64
	budget, almSeeds   int
	almRounds, batches int
}

// reproduceRatesCmd is `consim reproduce rates`: parameter-free rate
// predictions against observed contraction, for gossip and the ALM.
func (a *app) reproduceRatesCmd() *cobra.Command {
	var f ratesFlags
	cmd := &cobra.Command{
		Use:   "rates",
		Short: "predicted against observed per-round contraction of gossip and the ALM, no fitted constant",
		Long: `Rates compares parameter-free rate predictions with observed contraction on
a ring, a torus and an Erdos-Renyi graph of --n agents (ER: edge
probability --er-q, seed --seed, conditioned on being connected), each
edge present with probability p in every round and draw, for p in --p.

Gossip: dgd with no objective (x_{t+1} = W_t x_t, Metropolis-Hastings
weights on the present edges). Predicted: rho2, the exact long-run
mean-square factor of the disagreement (graph.GossipRates), beside
lambda_max(E[W^T P W]) (the worst single round) and rho(E[W] - 11^T/N)^2.
Observed: the per-round factor of the mean over seeds of
sum_i ||x_i - xbar||^2, fitted on the window before its noise floor
(detected: observe.FitBeforeFloor), with a 95% confidence interval from
--batches batches of the seeds; about --budget rounds per row.

ALM: Algorithm 2 per agent (the practical preset at its largest step,
sigma = 1/L_f, no safeguard, three independent draws per round) on an
interpolating full-batch least-squares problem in R^1 (5 rows per agent,
b_i = A_i x*), where a round is exactly an affine map w -> M(zeta) w + c
with fixed point (1 x*, 0, 1 x*). Predicted (alm.RateModel, built from the
agent's update): rho(E[M])^2 for the mean and rho(T), T(S) = E[M S M^T],
for the mean square. Observed over --alm-seeds runs of the agents: the
factor of ||mean_s (x_t - x*)||^2 before its sampling floor, and of
mean_s ||x_t - x*||^2.

It writes rates.csv and table.md, which it also prints with the wall
time, into a new directory: --out must not exist.`,
		Example: `  consim reproduce rates
  consim reproduce rates --p 1,0.3 --methods gossip --budget 100000`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usagef("reproduce rates: unexpected arguments %q", args)
			}
			return nil
		},
		ValidArgsFunction: cobra.NoFileCompletions,
	}
	fs := cmd.Flags()
	addOutFlag(cmd, &f.out, "output `DIR`, which must not exist (default results/reproduce-rates-<UTC time>-<4 hex>)")
	fs.StringVar(&f.ps, "p", "1,0.7,0.3,0.1", "comma-separated edge presence probabilities in (0, 1]")
	fs.StringVar(&f.methods, "methods", "gossip,alm", "comma-separated: gossip, alm")
	fs.IntVar(&f.n, "n", 16, "agents of the ring and the Erdos-Renyi graph (the torus is 4x4 at 16)")
	fs.Float64Var(&f.erQ, "er-q", 0.25, "edge probability of the Erdos-Renyi topology")
	fs.Uint64Var(&f.seed, "seed", 1, "seed of the Erdos-Renyi topology and of the ALM problem")
	fs.IntVar(&f.budget, "budget", 300000, "gossip: rounds per row, over all seeds (at least 20 seeds)")
	fs.IntVar(&f.almSeeds, "alm-seeds", 60, "ALM: runs per row")
	fs.IntVar(&f.almRounds, "alm-rounds", 2000, "ALM: most rounds per run")
	fs.IntVar(&f.batches, "batches", 10, "batches of the seeds for the confidence intervals")
	for _, n := range []string{"p", "methods", "n", "er-q", "seed", "budget", "alm-seeds", "alm-rounds", "batches"} {
		mustComplete(cmd, n, cobra.NoFileCompletions)
	}
	cmd.RunE = a.runE(func(cmd *cobra.Command, _ []string) error {
		return f.run(a.stdout)
	})
	return cmd
}

// rateGraph is a topology of the table.
type rateGraph struct {
	name string
	g    *graph.Graph
}

// rateRow is one (method, graph, p) line of rates.csv.
type rateRow struct {
	method, graph string
	p             float64
	// Gossip: rho2, worst step, first moment squared; ALM: rho(E[M])^2,
	// rho(T) and NaN.
	pred1, pred2, pred3 float64
	exact               bool
	predSE              float64
	// obs is the observed factor of the mean square (gossip) or of the
	// mean (ALM); obs2 that of the ALM's mean square.
	obs, obs2 observe.FloorFit
	obsErr    string
	obs2Err   string
	obs2Start float64 // m2[0], the ALM's mean square at the start
	// ALM: the exact predicted curves fitted on the observed windows
	// (NaN without a window).
	winMean, winMS float64
	seeds          int
	rounds         int
}

// run resolves the flags, runs the table and writes it.
func (f *ratesFlags) run(stdout io.Writer) error {
	ps, err := parseFloats(f.ps)
	if err != nil {
		return usagef("reproduce rates: --p: %w", err)
	}
	for _, p := range ps {
		if !(p > 0 && p <= 1) {
			return usagef("reproduce rates: --p: %v not in (0, 1]", p)
		}
	}
	var doGossip, doALM bool
	for _, m := range strings.Split(f.methods, ",") {
		switch strings.TrimSpace(m) {
		case "gossip":
			doGossip = true
		case "alm":
			doALM = true
		default:
			return usagef("reproduce rates: --methods: %q: want gossip or alm", m)
		}
	}
	switch {
	case f.n < 3:
		return usagef("reproduce rates: --n %d: want >= 3", f.n)
	case !(f.erQ > 0 && f.erQ <= 1):
		return usagef("reproduce rates: --er-q %v: want in (0, 1]", f.erQ)
	case f.budget < 1000 || f.almSeeds < 2 || f.almRounds < 100:
		return usagef("reproduce rates: --budget %d, --alm-seeds %d, --alm-rounds %d: want >= 1000, >= 2, >= 100", f.budget, f.almSeeds, f.almRounds)
	case f.batches < 2:
		return usagef("reproduce rates: --batches %d: want >= 2", f.batches)
	}
	graphs, err := f.graphs()
	if err != nil {
		return fmt.Errorf("reproduce rates: %w", err)
	}
	out := f.out
	if out == "" {
		out = filepath.Join("results", sim.NewRunID("reproduce-rates"))
	}
	if err := createNewDir(out); err != nil {
		return fmt.Errorf("reproduce rates: %w", err)
	}
	start := time.Now()
	var rows []rateRow
	for _, method := range []string{"gossip", "alm"} {
		if (method == "gossip" && !doGossip) || (method == "alm" && !doALM) {
			continue
		}
		for _, rg := range graphs {
			for _, p := range ps {
				g, err := rg.g.WithUniformP(p)
				if err != nil {
					return fmt.Errorf("reproduce rates: %w", err)
				}
				t0 := time.Now()
				var row rateRow
				if method == "gossip" {
					row, err = f.gossipRow(rg.name, g, p)
				} else {
					row, err = f.almRow(rg.name, g, p)
				}
				if err != nil {
					return fmt.Errorf("reproduce rates: %s on %s at p = %g: %w", method, rg.name, p, err)
				}
				fmt.Fprintf(stdout, "%-6s %-12s p=%-4g predicted %.5f observed %s (%.1fs)\n", method, rg.name, p, row.pred1, obsString(row.obs, row.obsErr), time.Since(t0).Seconds())
				rows = append(rows, row)
			}
		}
	}
	if err := writeRatesCSV(filepath.Join(out, "rates.csv"), rows); err != nil {
		return fmt.Errorf("reproduce rates: %w", err)
	}
	md := ratesTable(f, graphs, rows) + wallLine(time.Since(start))
	if err := writeNewFile(filepath.Join(out, "table.md"), strings.NewReader(md)); err != nil {
		return fmt.Errorf("reproduce rates: %w", err)
	}
	_, err = io.WriteString(stdout, "\n"+md)
	return err
}

// graphs builds the ring, the torus and the Erdos-Renyi graph.
func (f *ratesFlags) graphs() ([]rateGraph, error) {
	ring, err := graph.Ring(f.n)
	if err != nil {
		return nil, err
	}
	side := int(math.Round(math.Sqrt(float64(f.n))))
	torus, err := graph.Grid(side, max(3, f.n/side), true)
	if err != nil {
		return nil, err
	}
	er, err := graph.ErdosRenyi(f.n, f.erQ, f.seed)
	if err != nil {
		return nil, err
	}
	return []rateGraph{
		{fmt.Sprintf("ring %d", f.n), ring},
		{fmt.Sprintf("torus %dx%d", side, max(3, f.n/side)), torus},
		{fmt.Sprintf("ER %d (q=%g, %d edges)", f.n, f.erQ, len(er.Edges)), er},
	}, nil
}

// seedBatches runs seeds 0..seeds-1 in batches b = s mod batches, whole
// batches per worker, each calling run(s, acc) to add its curve to the
// batch's accumulator acc (len dim); it returns the batch sums.
func seedBatches(seeds, batches, dim int, run func(s int, acc []float64) error) ([][]float64, error) {
	sums := make([][]float64, batches)
	errs := make([]error, batches)
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.NumCPU())
	for b := range batches {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			acc := make([]float64, dim)
			for s := b; s < seeds; s += batches {
				if err := run(s, acc); err != nil {
					errs[b] = err
					return
				}
			}
			sums[b] = acc
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return sums, nil
}

// gossipRow predicts and observes gossip on g.
func (f *ratesFlags) gossipRow(name string, g *graph.Graph, p float64) (rateRow, error) {
	r, err := g.GossipRates(graph.Mixing{}, graph.GossipOptions{})
	if err != nil {
		return rateRow{}, err
	}
	row := rateRow{method: "gossip", graph: name, p: p, pred1: r.MeanSquare, pred2: r.WorstStep,
		pred3: r.FirstMoment * r.FirstMoment, exact: r.Exact, predSE: r.MeanSquareSE}
	// Enough rounds to reach the float floor (about 1e-32 of the start)
	// and stay on it for the tail that measures it.
	rounds := 100
	if r.MeanSquare > 0 {
		rounds = int(math.Ceil(math.Log(1e-40)/math.Log(r.MeanSquare))) + 20
	}
	seeds := min(max(f.budget/rounds, 20), 4000)
	seeds -= seeds % f.batches
	seeds = max(seeds, f.batches)
	row.seeds, row.rounds = seeds, rounds
	sums, err := seedBatches(seeds, f.batches, rounds+1, func(s int, acc []float64) error {
		rng := rand.New(rand.NewPCG(uint64(s), 0x6055))
		agents := make([]consensus.Agent, g.N)
		ds := make([]*dgd.Agent, g.N)
		xs := make([][]float64, g.N)
		proc := graph.Bernoulli{G: g, Seed: uint64(s)}
		for i := range agents {
			x0 := []float64{rng.NormFloat64(), rng.NormFloat64()}
			a, err := dgd.NewAgent(dgd.DefaultParams(), i, g, proc, nil, x0)
			if err != nil {
				return err
			}
			agents[i], ds[i], xs[i] = a, a, x0
		}
		drv, err := lockstep.New(agents)
		if err != nil {
			return err
		}
		acc[0] += observe.Disagreement(xs)
		for t := range rounds {
			if err := drv.Round(t); err != nil {
				return err
			}
			for i, a := range ds {
				xs[i] = a.Report().X
			}
			acc[t+1] += observe.Disagreement(xs)
		}
		return nil
	})
	if err != nil {
		return row, err
	}
	pooled, batches := poolBatches(sums, seeds)
	row.obs, err = observe.FitBeforeFloor(pooled, batches, observe.FloorOptions{Start: gossipStart})
	if err != nil {
		row.obsErr = err.Error()
	}
	return row, nil
}

// gossipStart opens the gossip fit window once the mean square has
// fallen 1e8-fold: on the Erdos-Renyi graph the second mode of the
// mean-square map is close to the first, and at 1e-3 its share still bends
// the fit.
const gossipStart = 1e-8

// poolBatches turns batch sums into the pooled mean and the batch means.
func poolBatches(sums [][]float64, seeds int) ([]float64, [][]float64) {
	B := len(sums)
	pooled := make([]float64, len(sums[0]))
	batches := make([][]float64, B)
	for b, s := range sums {
		nb := float64((seeds - b + B - 1) / B)
		batches[b] = make([]float64, len(s))
		for t, v := range s {
			pooled[t] += v / float64(seeds)
			batches[b][t] = v / nb
		}
	}
	return pooled, batches
}

// almProblem is the ALM's problem of the table: N interpolating full-batch
// least-squares objectives in R^1 with 5 rows each.
const almDim, almRowsPerAgent = 1, 5

// almRow predicts and observes the ALM on g.
func (f *ratesFlags) almRow(name string, g *graph.Graph, p float64) (rateRow, error) {
	locals, xstar, err := alm.InterpolatingLS(g.N, almDim, almRowsPerAgent, f.seed)
	if err != nil {
		return rateRow{}, err
	}
	cfg, err := almRateConfig(g, locals)
	if err != nil {
		return rateRow{}, err
	}
	model, err := alm.NewRateModel(cfg, g, locals)
	if err != nil {
		return rateRow{}, err
	}
	mean, err := model.MeanRadius()
	if err != nil {
		return rateRow{}, err
	}
	ms, err := model.MeanSquare(alm.MeanSquareOptions{})
	if err != nil {
		return rateRow{}, err
	}
	row := rateRow{method: "alm", graph: name, p: p, pred1: mean * mean, pred2: ms.Rate, pred3: math.NaN(), exact: true}
	rounds := min(f.almRounds, int(math.Ceil(math.Log(1e-10)/math.Log(mean*mean))))
	seeds := f.almSeeds - f.almSeeds%f.batches
	seeds = max(seeds, f.batches)
	row.seeds, row.rounds = seeds, rounds
	nx := g.N * almDim
	// Per round: the sum of x_t - x* over the batch's seeds (nx values),
	// then the sum of ||x_t - x*||^2.
	stride := nx + 1
	box := objective.Box{Lo: math.Inf(-1), Hi: math.Inf(1)}
	sums, err := seedBatches(seeds, f.batches, (rounds+1)*stride, func(s int, acc []float64) error {
		rng := rand.New(rand.NewPCG(uint64(s), 0xa1a))
		proc := graph.Bernoulli{G: g, Seed: uint64(s)}
		agents := make([]consensus.Agent, g.N)
		as := make([]*alm.Agent, g.N)
		for i := range agents {
			x0 := make([]float64, almDim)
			for k := range x0 {
				x0[k] = rng.NormFloat64()
			}
			a, err := alm.NewAgent(cfg, i, g, proc, locals[i], box, x0)
			if err != nil {
				return err
			}
			agents[i], as[i] = a, a
		}
		drv, err := lockstep.New(agents)
		if err != nil {
			return err
		}
		record := func(t int) {
			line := acc[t*stride : (t+1)*stride]
			for i, a := range as {
				for k, v := range a.X() {
					d := v - xstar[k]
					line[i*almDim+k] += d
					line[nx] += d * d
				}
			}
		}
		record(0)
		for t := range rounds {
			if err := drv.Round(t); err != nil {
				return err
			}
			record(t + 1)
		}
		return nil
	})
	if err != nil {
		return row, err
	}
	// The pooled and batch curves of the mean (squared norm of the mean
	// deviation) and of the mean square.
	B := len(sums)
	m1, m2 := make([]float64, rounds+1), make([]float64, rounds+1)
	b1, b2 := make([][]float64, B), make([][]float64, B)
	ceil := make([]float64, rounds+1)
	for b := range B {
		b1[b], b2[b] = make([]float64, rounds+1), make([]float64, rounds+1)
	}
	for t := range rounds + 1 {
		mean := make([]float64, nx)
		for b, s := range sums {
			nb := float64((seeds - b + B - 1) / B)
			line := s[t*stride : (t+1)*stride]
			var sq float64
			for k := range nx {
				mean[k] += line[k] / float64(seeds)
				sq += (line[k] / nb) * (line[k] / nb)
			}
			b1[b][t], b2[b][t] = sq, line[nx]/nb
			m2[t] += line[nx] / float64(seeds)
		}
		for _, v := range mean {
			m1[t] += v * v
		}
		// The squared norm of a mean of seeds independent deviations
		// carries about E||d - E d||^2 / seeds of sampling noise.
		ceil[t] = m2[t] / float64(seeds)
	}
	row.obs2Start = m2[0]
	row.obs, err = observe.FitBeforeFloor(m1, b1, observe.FloorOptions{Start: almStart, Margin: 10, Ceiling: ceil})
	if err != nil {
		row.obsErr = err.Error()
	}
	row.obs2, err = observe.FitBeforeFloor(m2, b2, observe.FloorOptions{Start: almStart})
	if err != nil {
		row.obs2Err = err.Error()
	}
	// The exact predicted curves from the start's law: x_0 = z_0 with
	// independent standard normal entries, y_0 = 0, so E[d_0] =
	// (-1 x*, 0, -1 x*) and E[d_0 d_0^T] = E[d_0] E[d_0]^T + the identity
	// on the x- and z-blocks and between them.
	D := model.D()
	d0 := make([]float64, D)
	s0 := mat.NewDense(D, D, nil)
	for i := range g.N {
		for k := range almDim {
			d0[model.XAt(i)+k], d0[model.ZAt(i)+k] = -xstar[k], -xstar[k]
			for _, a := range [2]int{model.XAt(i) + k, model.ZAt(i) + k} {
				for _, b := range [2]int{model.XAt(i) + k, model.ZAt(i) + k} {
					s0.Set(a, b, 1)
				}
			}
		}
	}
	for a := range D {
		for b := range D {
			s0.Set(a, b, s0.At(a, b)+d0[a]*d0[b])
		}
	}
	pm, pms := model.Curves(d0, s0, rounds)
	row.winMean, row.winMS = math.NaN(), math.NaN()
	if row.obsErr == "" {
		row.winMean, _ = observe.WindowRate(pm, row.obs.From, row.obs.To)
	}
	if row.obs2Err == "" {
		row.winMS, _ = observe.WindowRate(pms, row.obs2.From, row.obs2.To)
	}
	return row, nil
}

// almStart opens the ALM's fit windows once the curve has fallen 100-fold.
const almStart = 1e-2

// almRateConfig is the ALM configuration of the table: the practical
// preset on sigma f, sigma = 1/L_f, for a horizon of one round (its
// largest step, tau = 1/(2 L_K)), without safeguard, three independent
// draws per round.
func almRateConfig(g *graph.Graph, locals []objective.Local) (alm.Config, error) {
	c, err := alm.ConstantsFor(g, locals)
	if err != nil {
		return alm.Config{}, err
	}
	sc := 1 / c.Lf
	return alm.Config{Steps: alm.Practical(c.Scaled(sc), 1), Scale: sc, Safeguard: alm.SafeguardNone}, nil
}

// obsString renders an observed factor with its interval, or why there
// is none.
func obsString(f observe.FloorFit, errText string) string {
	if errText != "" {
		return "none: " + errText
	}
	return fmt.Sprintf("%.5f [%.5f, %.5f] on rounds %d..%d", f.Rate, f.Lo, f.Hi, f.From, f.To)
}

// floorString says where the floor starts.
func floorString(f observe.FloorFit) string {
	if !f.Floor {
		return "none by the end"
	}
	return fmt.Sprintf("round %d (level %.1e)", f.FloorStart, f.FloorLevel)
}

// writeRatesCSV writes one line per row.
func writeRatesCSV(path string, rows []rateRow) error {
	var out [][]string
	for _, r := range rows {
		out = append(out, []string{r.method, r.graph, fmtG(r.p), fmtG(r.pred1), fmtG(r.pred2), fmtG(r.pred3),
			strconv.FormatBool(r.exact), fmtG(r.predSE),
			fmtG(r.obs.Rate), fmtG(r.obs.Lo), fmtG(r.obs.Hi), strconv.Itoa(r.obs.From), strconv.Itoa(r.obs.To),
			strconv.FormatBool(r.obs.Floor), strconv.Itoa(r.obs.FloorStart), fmtG(r.obs.FloorLevel),
			fmtG(r.obs2.Rate), fmtG(r.obs2.Lo), fmtG(r.obs2.Hi), fmtG(r.obs2.TailRate), fmtG(r.obs2.FloorLevel),
			fmtG(r.winMean), fmtG(r.winMS),
			strconv.Itoa(r.seeds), strconv.Itoa(r.rounds), r.obsErr, r.obs2Err})
	}
	return writeCSVFile(path, []string{"method", "graph", "p",
		"predicted_main", "predicted_2", "predicted_3", "exact", "predicted_se",
		"observed", "observed_lo", "observed_hi", "window_from", "window_to", "floor", "floor_start", "floor_level",
		"observed_ms", "observed_ms_lo", "observed_ms_hi", "ms_tail_rate", "ms_floor_level",
		"predicted_on_window", "predicted_ms_on_window",
		"seeds", "rounds", "observed_error", "observed_ms_error"}, out)
}

// ratesTable renders table.md.
func ratesTable(f *ratesFlags, graphs []rateGraph, rows []rateRow) string {
	var b strings.Builder
	b.WriteString("# Predicted against observed per-round contraction\n\n")
	var names []string
	for _, g := range graphs {
		names = append(names, g.name)
	}
	fmt.Fprintf(&b, "Graphs: %s; every edge present with probability p in every round and draw.\n", strings.Join(names, ", "))
	fmt.Fprintf(&b, "Observed factors: least-squares slope of the log of the curve over the window before its detected floor; "+
		"95%% intervals from %d batches of the seeds.\n\n", f.batches)
	var gossip, almRows []rateRow
	for _, r := range rows {
		if r.method == "gossip" {
			gossip = append(gossip, r)
		} else {
			almRows = append(almRows, r)
		}
	}
	if len(gossip) > 0 {
		b.WriteString("## Gossip: dgd with no objective, Metropolis-Hastings weights\n\n")
		b.WriteString("| graph | p | predicted rho2 | observed (95% CI) | observed - rho2 | window | floor from | lambda_max(E[W^T P W]) | rho(E[W]-J)^2 | seeds x rounds |\n")
		b.WriteString("|---|---|---|---|---|---|---|---|---|---|\n")
		worst := 0.0
		for _, r := range gossip {
			pred := fmt.Sprintf("%.5f", r.pred1)
			if !r.exact {
				pred += fmt.Sprintf(" ± %.1g (MC)", r.predSE)
			}
			obs, diff, win := "-", "-", "-"
			if r.obsErr == "" {
				obs = fmt.Sprintf("%.5f [%.5f, %.5f]", r.obs.Rate, r.obs.Lo, r.obs.Hi)
				diff = fmt.Sprintf("%+.5f", r.obs.Rate-r.pred1)
				win = fmt.Sprintf("%d..%d", r.obs.From, r.obs.To)
				worst = math.Max(worst, math.Abs(r.obs.Rate-r.pred1))
			} else {
				worst = math.Inf(1)
			}
			fmt.Fprintf(&b, "| %s | %g | %s | %s | %s | %s | %s | %.5f | %.5f | %d x %d |\n",
				r.graph, r.p, pred, obs, diff, win, floorString(r.obs), r.pred2, r.pred3, r.seeds, r.rounds)
		}
		fmt.Fprintf(&b, "\nLargest |observed - rho2|: %.5f; the claim |observed - rho2| <= 0.003 %s.\n\n", worst, holdsWord(worst <= 0.003))
	}
	if len(almRows) > 0 {
		b.WriteString("## ALM: Algorithm 2 per agent, interpolating least squares in R^1\n\n")
		b.WriteString("Predicted: rho(E[M])^2, the long-run factor of ||E[x_t] - x*||^2, and rho(T), T(S) = E[M S M^T], that of E||w_t - w*||^2; " +
			"\"on window\": the same fit on the exact predicted curve (E[d_t] = E[M]^t E[d_0], E[d_t d_t^T] = T^t(E[d_0 d_0^T])) over the observed window. " +
			"Observed: mean = ||mean over seeds of (x_t - x*)||^2, before its sampling floor (10 mean_s ||x_t - x*||^2 / seeds); " +
			"mean square = mean_s ||x_t - x*||^2.\n\n")
		b.WriteString("| graph | p | rho(E[M])^2 | mean: predicted on window | mean: observed (95% CI) | window | rho(T) | mean square: predicted on window | mean square: observed (95% CI) | window | seeds x rounds |\n")
		b.WriteString("|---|---|---|---|---|---|---|---|---|---|---|\n")
		for _, r := range almRows {
			pw, obs, win := "-", "- ("+shortErr(r.obsErr)+")", "-"
			if r.obsErr == "" {
				pw = fmt.Sprintf("%.5f", r.winMean)
				obs = fmt.Sprintf("%.5f [%.5f, %.5f]", r.obs.Rate, r.obs.Lo, r.obs.Hi)
				win = fmt.Sprintf("%d..%d", r.obs.From, r.obs.To)
			}
			pw2, ms, win2 := "-", "", "-"
			if r.obs2Err == "" {
				pw2 = fmt.Sprintf("%.5f", r.winMS)
				ms = fmt.Sprintf("%.5f [%.5f, %.5f]", r.obs2.Rate, r.obs2.Lo, r.obs2.Hi)
				win2 = fmt.Sprintf("%d..%d", r.obs2.From, r.obs2.To)
				if r.obs2.Floor {
					win2 += fmt.Sprintf("; floor from %d, tail factor %.5f", r.obs2.FloorStart, r.obs2.TailRate)
				}
			} else {
				ms = fmt.Sprintf("no contraction: levels at %.1e of the start, tail factor %.5f", r.obs2.FloorLevel/firstPositive(r), r.obs2.TailRate)
			}
			fmt.Fprintf(&b, "| %s | %g | %.5f | %s | %s | %s | %.6f | %s | %s | %s | %d x %d |\n",
				r.graph, r.p, r.pred1, pw, obs, win, r.pred2, pw2, ms, win2, r.seeds, r.rounds)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// firstPositive is the start of the ALM's mean-square curve, kept for the
// relative floor level; 1 when unknown.
func firstPositive(r rateRow) float64 {
	if r.obs2.FloorLevel > 0 && r.obs2Start > 0 {
		return r.obs2Start
	}
	return 1
}

func shortErr(s string) string {
	if i := strings.LastIndex(s, ": "); i >= 0 && i+2 < len(s) {
		return s[i+2:]
	}
	return s
}
