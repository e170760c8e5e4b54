// Package rates compares parameter-free rate predictions with the
// contraction observed in runs, behind `consim reproduce rates`, on a ring,
// a torus and an Erdos-Renyi graph whose edges are present with
// probability p in every round and draw.
//
// Gossip: dgd with no objective (x_{t+1} = W_t x_t, Metropolis-Hastings
// weights on the present edges). Predicted: rho2, the exact long-run
// mean-square factor of the disagreement (graph.GossipRates), beside
// lambda_max(E[W^T P W]) (the worst single round) and rho(E[W] - 11^T/N)^2.
// Observed: the per-round factor of the mean over seeds of
// sum_i ||x_i - xbar||^2, fitted on the window before its noise floor
// (observe.FitBeforeFloor), with a 95% confidence interval from batches of
// the seeds.
//
// ALM: Algorithm 2 per agent (the practical preset at its largest step,
// sigma = 1/L_f, no safeguard, three independent draws per round) on an
// interpolating full-batch least-squares problem in R^1 (5 rows per agent,
// b_i = A_i x*), where a round is exactly an affine map w -> M(zeta) w + c
// with fixed point (1 x*, 0, 1 x*). Predicted (alm.RateModel, built from
// the agent's update): rho(E[M])^2 for the mean and rho(T),
// T(S) = E[M S M^T], for the mean square. Observed over runs of the
// agents: the factor of ||mean_s (x_t - x*)||^2 before its sampling floor,
// and of mean_s ||x_t - x*||^2.
//
// The agents are built from consensus/dgd and consensus/alm directly, not
// through the registry: the ALM's rate model is built from its agent's
// update with a configuration (the preset scaled by sigma, no safeguard)
// and local objectives (alm.InterpolatingLS) that no scenario key
// expresses, and the runs must be those agents, on the same draws; the
// gossip runs start every agent at its own random point, which no problem
// kind offers.
//
// rates imports consensus, consensus/alm, consensus/dgd,
// consensus/lockstep, consensus/metrics, graph, objective, experiments and
// gonum; it must not import node, coordinator, sim or cmd.
package rates

import (
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/consensus/alm"
	"github.com/consim/consim/consensus/dgd"
	"github.com/consim/consim/consensus/lockstep"
	"github.com/consim/consim/experiments"
	"github.com/consim/consim/graph"
	"github.com/consim/consim/objective"
	"github.com/consim/consim/observe"
)

// Config is the experiment of `consim reproduce rates`.
type Config struct {
	// Ps are the edge presence probabilities, in (0, 1] (1, 0.7, 0.3,
	// 0.1).
	Ps []float64
	// Methods are gossip and alm, run in that order (both).
	Methods []string
	// N is the number of agents of the ring and the Erdos-Renyi graph; the
	// torus is the nearest grid (4 x 4 at 16) (16).
	N int
	// ERQ is the edge probability of the Erdos-Renyi topology (0.25), Seed
	// the seed of that topology and of the ALM problem (1).
	ERQ  float64
	Seed uint64
	// Budget is the gossip rounds per row, over all seeds, at least 20
	// seeds (300,000).
	Budget int
	// ALMSeeds are the ALM's runs per row (60), ALMRounds the most rounds
	// per run (2000).
	ALMSeeds, ALMRounds int
	// Batches is the number of batches of the seeds for the confidence
	// intervals (10).
	Batches int
	// Log, if set, receives a line per row as it is done.
	Log io.Writer
}

// DefaultConfig is the experiment's default table.
func DefaultConfig() Config {
	return Config{Ps: []float64{1, 0.7, 0.3, 0.1}, Methods: []string{"gossip", "alm"}, N: 16, ERQ: 0.25, Seed: 1,
		Budget: 300000, ALMSeeds: 60, ALMRounds: 2000, Batches: 10}
}

// Validate checks the probabilities and sizes.
func (c Config) Validate() error {
	for _, p := range c.Ps {
		if !(p > 0 && p <= 1) {
			return fmt.Errorf("rates: p %v not in (0, 1]", p)
		}
	}
	for _, m := range c.Methods {
		if m != "gossip" && m != "alm" {
			return fmt.Errorf("rates: method %q: want gossip or alm", m)
		}
	}
	switch {
	case len(c.Ps) == 0 || len(c.Methods) == 0:
		return fmt.Errorf("rates: no probability or no method")
	case c.N < 3:
		return fmt.Errorf("rates: n %d: want >= 3", c.N)
	case !(c.ERQ > 0 && c.ERQ <= 1):
		return fmt.Errorf("rates: er-q %v: want in (0, 1]", c.ERQ)
	case c.Budget < 1000 || c.ALMSeeds < 2 || c.ALMRounds < 100:
		return fmt.Errorf("rates: budget %d, alm-seeds %d, alm-rounds %d: want >= 1000, >= 2, >= 100", c.Budget, c.ALMSeeds, c.ALMRounds)
	case c.Batches < 2:
		return fmt.Errorf("rates: batches %d: want >= 2", c.Batches)
	}
	return nil
}

// Result is the outcome of Run: the graphs and a row per (method, graph,
// p), gossip first.
type Result struct {
	Config Config
	Graphs []Graph
	Rows   []Row
}

// Run predicts and observes every row.
func (c Config) Run(ctx context.Context) (*Result, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	graphs, err := c.graphs()
	if err != nil {
		return nil, err
	}
	res := &Result{Config: c, Graphs: graphs}
	for _, method := range []string{"gossip", "alm"} {
		if !slices.Contains(c.Methods, method) {
			continue
		}
		for _, rg := range graphs {
			for _, p := range c.Ps {
				if err := ctx.Err(); err != nil {
					return nil, err
				}
				g, err := rg.G.WithUniformP(p)
				if err != nil {
					return nil, err
				}
				t0 := time.Now()
				var row Row
				if method == "gossip" {
					row, err = c.gossipRow(rg.Name, g, p)
				} else {
					row, err = c.almRow(rg.Name, g, p)
				}
				if err != nil {
					return nil, fmt.Errorf("%s on %s at p = %g: %w", method, rg.Name, p, err)
				}
				if c.Log != nil {
					fmt.Fprintf(c.Log, "%-6s %-12s p=%-4g predicted %.5f observed %s (%.1fs)\n", method, rg.Name, p, row.Pred1, obsString(row.Obs, row.ObsErr), time.Since(t0).Seconds())
				}
				res.Rows = append(res.Rows, row)
			}
		}
	}
	return res, nil
}

// Write writes rates.csv.
func (r *Result) Write(dir string) error {
	return writeRatesCSV(filepath.Join(dir, "rates.csv"), r.Rows)
}

// Graph is a topology of the table.
type Graph struct {
	Name string
	G    *graph.Graph
}

// Row is one (method, graph, p) line of rates.csv.
type Row struct {
	Method, Graph string
	P             float64
	// Gossip: rho2, worst step, first moment squared; ALM: rho(E[M])^2,
	// rho(T) and NaN.
	Pred1, Pred2, Pred3 float64
	// Exact reports that Pred1 is exact, not a Monte Carlo estimate with
	// standard error PredSE.
	Exact  bool
	PredSE float64
	// Obs is the observed factor of the mean square (gossip) or of the
	// mean (ALM); Obs2 that of the ALM's mean square. ObsErr and Obs2Err
	// say why there is none.
	Obs, Obs2       observe.FloorFit
	ObsErr, Obs2Err string
	// Obs2Start is m2[0], the ALM's mean square at the start.
	Obs2Start float64
	// WinMean and WinMS are, for the ALM, the exact predicted curves
	// fitted on the observed windows (NaN without a window).
	WinMean, WinMS float64
	// Seeds and Rounds are the runs and their length.
	Seeds, Rounds int
}

// graphs builds the ring, the torus and the Erdos-Renyi graph.
func (f Config) graphs() ([]Graph, error) {
	ring, err := graph.Ring(f.N)
	if err != nil {
		return nil, err
	}
	side := int(math.Round(math.Sqrt(float64(f.N))))
	torus, err := graph.Grid(side, max(3, f.N/side), true)
	if err != nil {
		return nil, err
	}
	er, err := graph.ErdosRenyi(f.N, f.ERQ, f.Seed)
	if err != nil {
		return nil, err
	}
	return []Graph{
		{fmt.Sprintf("ring %d", f.N), ring},
		{fmt.Sprintf("torus %dx%d", side, max(3, f.N/side)), torus},
		{fmt.Sprintf("ER %d (q=%g, %d edges)", f.N, f.ERQ, len(er.Edges)), er},
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
func (f Config) gossipRow(name string, g *graph.Graph, p float64) (Row, error) {
	r, err := g.GossipRates(graph.Mixing{}, graph.GossipOptions{})
	if err != nil {
		return Row{}, err
	}
	row := Row{Method: "gossip", Graph: name, P: p, Pred1: r.MeanSquare, Pred2: r.WorstStep,
		Pred3: r.FirstMoment * r.FirstMoment, Exact: r.Exact, PredSE: r.MeanSquareSE}
	// Enough rounds to reach the float floor (about 1e-32 of the start)
	// and stay on it for the tail that measures it.
	rounds := 100
	if r.MeanSquare > 0 {
		rounds = int(math.Ceil(math.Log(1e-40)/math.Log(r.MeanSquare))) + 20
	}
	seeds := min(max(f.Budget/rounds, 20), 4000)
	seeds -= seeds % f.Batches
	seeds = max(seeds, f.Batches)
	row.Seeds, row.Rounds = seeds, rounds
	sums, err := seedBatches(seeds, f.Batches, rounds+1, func(s int, acc []float64) error {
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
	pooled, batches := experiments.BatchMeans(sums, seeds)
	row.Obs, err = observe.FitBeforeFloor(pooled, batches, observe.FloorOptions{Start: gossipStart})
	if err != nil {
		row.ObsErr = err.Error()
	}
	return row, nil
}

// gossipStart opens the gossip fit window once the mean square has
// fallen 1e8-fold: on the Erdos-Renyi graph the second mode of the
// mean-square map is close to the first, and at 1e-3 its share still bends
// the fit.
const gossipStart = 1e-8

// almProblem is the ALM's problem of the table: N interpolating full-batch
// least-squares objectives in R^1 with 5 rows each.
const almDim, almRowsPerAgent = 1, 5

// almRow predicts and observes the ALM on g.
func (f Config) almRow(name string, g *graph.Graph, p float64) (Row, error) {
	locals, xstar, err := alm.InterpolatingLS(g.N, almDim, almRowsPerAgent, f.Seed)
	if err != nil {
		return Row{}, err
	}
	cfg, err := almRateConfig(g, locals)
	if err != nil {
		return Row{}, err
	}
	model, err := alm.NewRateModel(cfg, g, locals)
	if err != nil {
		return Row{}, err
	}
	mean, err := model.MeanRadius()
	if err != nil {
		return Row{}, err
	}
	ms, err := model.MeanSquare(alm.MeanSquareOptions{})
	if err != nil {
		return Row{}, err
	}
	row := Row{Method: "alm", Graph: name, P: p, Pred1: mean * mean, Pred2: ms.Rate, Pred3: math.NaN(), Exact: true}
	rounds := min(f.ALMRounds, int(math.Ceil(math.Log(1e-10)/math.Log(mean*mean))))
	seeds := f.ALMSeeds - f.ALMSeeds%f.Batches
	seeds = max(seeds, f.Batches)
	row.Seeds, row.Rounds = seeds, rounds
	nx := g.N * almDim
	// Per round: the sum of x_t - x* over the batch's seeds (nx values),
	// then the sum of ||x_t - x*||^2.
	stride := nx + 1
	box := objective.Box{Lo: math.Inf(-1), Hi: math.Inf(1)}
	sums, err := seedBatches(seeds, f.Batches, (rounds+1)*stride, func(s int, acc []float64) error {
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
	row.Obs2Start = m2[0]
	row.Obs, err = observe.FitBeforeFloor(m1, b1, observe.FloorOptions{Start: almStart, Margin: 10, Ceiling: ceil})
	if err != nil {
		row.ObsErr = err.Error()
	}
	row.Obs2, err = observe.FitBeforeFloor(m2, b2, observe.FloorOptions{Start: almStart})
	if err != nil {
		row.Obs2Err = err.Error()
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
	row.WinMean, row.WinMS = math.NaN(), math.NaN()
	if row.ObsErr == "" {
		row.WinMean, _ = observe.WindowRate(pm, row.Obs.From, row.Obs.To)
	}
	if row.Obs2Err == "" {
		row.WinMS, _ = observe.WindowRate(pms, row.Obs2.From, row.Obs2.To)
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
func writeRatesCSV(path string, rows []Row) error {
	var out [][]string
	for _, r := range rows {
		out = append(out, []string{r.Method, r.Graph, experiments.G(r.P), experiments.G(r.Pred1), experiments.G(r.Pred2), experiments.G(r.Pred3),
			strconv.FormatBool(r.Exact), experiments.G(r.PredSE),
			experiments.G(r.Obs.Rate), experiments.G(r.Obs.Lo), experiments.G(r.Obs.Hi), strconv.Itoa(r.Obs.From), strconv.Itoa(r.Obs.To),
			strconv.FormatBool(r.Obs.Floor), strconv.Itoa(r.Obs.FloorStart), experiments.G(r.Obs.FloorLevel),
			experiments.G(r.Obs2.Rate), experiments.G(r.Obs2.Lo), experiments.G(r.Obs2.Hi), experiments.G(r.Obs2.TailRate), experiments.G(r.Obs2.FloorLevel),
			experiments.G(r.WinMean), experiments.G(r.WinMS),
			strconv.Itoa(r.Seeds), strconv.Itoa(r.Rounds), r.ObsErr, r.Obs2Err})
	}
	return experiments.WriteCSV(path, []string{"method", "graph", "p",
		"predicted_main", "predicted_2", "predicted_3", "exact", "predicted_se",
		"observed", "observed_lo", "observed_hi", "window_from", "window_to", "floor", "floor_start", "floor_level",
		"observed_ms", "observed_ms_lo", "observed_ms_hi", "ms_tail_rate", "ms_floor_level",
		"predicted_on_window", "predicted_ms_on_window",
		"seeds", "rounds", "observed_error", "observed_ms_error"}, out)
}

// Table renders table.md.
func (r *Result) Table() string {
	f, graphs, rows := r.Config, r.Graphs, r.Rows
	var b strings.Builder
	b.WriteString("# Predicted against observed per-round contraction\n\n")
	var names []string
	for _, g := range graphs {
		names = append(names, g.Name)
	}
	fmt.Fprintf(&b, "Graphs: %s; every edge present with probability p in every round and draw.\n", strings.Join(names, ", "))
	fmt.Fprintf(&b, "Observed factors: least-squares slope of the log of the curve over the window before its detected floor; "+
		"95%% intervals from %d batches of the seeds.\n\n", f.Batches)
	var gossip, almRows []Row
	for _, r := range rows {
		if r.Method == "gossip" {
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
			pred := fmt.Sprintf("%.5f", r.Pred1)
			if !r.Exact {
				pred += fmt.Sprintf(" ± %.1g (MC)", r.PredSE)
			}
			obs, diff, win := "-", "-", "-"
			if r.ObsErr == "" {
				obs = fmt.Sprintf("%.5f [%.5f, %.5f]", r.Obs.Rate, r.Obs.Lo, r.Obs.Hi)
				diff = fmt.Sprintf("%+.5f", r.Obs.Rate-r.Pred1)
				win = fmt.Sprintf("%d..%d", r.Obs.From, r.Obs.To)
				worst = math.Max(worst, math.Abs(r.Obs.Rate-r.Pred1))
			} else {
				worst = math.Inf(1)
			}
			fmt.Fprintf(&b, "| %s | %g | %s | %s | %s | %s | %s | %.5f | %.5f | %d x %d |\n",
				r.Graph, r.P, pred, obs, diff, win, floorString(r.Obs), r.Pred2, r.Pred3, r.Seeds, r.Rounds)
		}
		fmt.Fprintf(&b, "\nLargest |observed - rho2|: %.5f; the claim |observed - rho2| <= 0.003 %s.\n\n", worst, experiments.Verdict(worst <= 0.003))
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
			pw, obs, win := "-", "- ("+shortErr(r.ObsErr)+")", "-"
			if r.ObsErr == "" {
				pw = fmt.Sprintf("%.5f", r.WinMean)
				obs = fmt.Sprintf("%.5f [%.5f, %.5f]", r.Obs.Rate, r.Obs.Lo, r.Obs.Hi)
				win = fmt.Sprintf("%d..%d", r.Obs.From, r.Obs.To)
			}
			pw2, ms, win2 := "-", "", "-"
			if r.Obs2Err == "" {
				pw2 = fmt.Sprintf("%.5f", r.WinMS)
				ms = fmt.Sprintf("%.5f [%.5f, %.5f]", r.Obs2.Rate, r.Obs2.Lo, r.Obs2.Hi)
				win2 = fmt.Sprintf("%d..%d", r.Obs2.From, r.Obs2.To)
				if r.Obs2.Floor {
					win2 += fmt.Sprintf("; floor from %d, tail factor %.5f", r.Obs2.FloorStart, r.Obs2.TailRate)
				}
			} else {
				ms = fmt.Sprintf("no contraction: levels at %.1e of the start, tail factor %.5f", r.Obs2.FloorLevel/firstPositive(r), r.Obs2.TailRate)
			}
			fmt.Fprintf(&b, "| %s | %g | %.5f | %s | %s | %s | %.6f | %s | %s | %s | %d x %d |\n",
				r.Graph, r.P, r.Pred1, pw, obs, win, r.Pred2, pw2, ms, win2, r.Seeds, r.Rounds)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// firstPositive is the start of the ALM's mean-square curve, kept for the
// relative floor level; 1 when unknown.
func firstPositive(r Row) float64 {
	if r.Obs2.FloorLevel > 0 && r.Obs2Start > 0 {
		return r.Obs2Start
	}
	return 1
}

func shortErr(s string) string {
	if i := strings.LastIndex(s, ": "); i >= 0 && i+2 < len(s) {
		return s[i+2:]
	}
	return s
}
