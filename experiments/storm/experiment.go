// Package storm compares ALM-STORM with the ALM at equal sample budget
// (Huang, Zhang and Alacaoglu, Section 5), behind `consim reproduce
// storm`: the ALM (Algorithm 2, practical preset) and ALM-STORM
// (Algorithm 3, practical preset) on the nonconvex regression over a
// ring, for every horizon T and seed, each with the steps its preset gives
// for T (tau ~ T^(-1/2) for the ALM, T^(-1/3) for ALM-STORM). Every
// T/Points rounds it evaluates the Moreau-envelope stationarity
// ||grad Psi(z_t)|| of the consensus problem and takes its mean over the
// run, the E||grad Psi(z_t*)|| with t* uniform of the paper's theorems;
// it fits log(stationarity) against log(samples) over the horizons
// T >= FitFrom per seed and reports the mean slope with a 95% t-interval
// over the seeds, beside the paper's -1/4 (O(eps^-4)) and -1/3 (O(eps^-3)),
// and the output certificate (3.2) at t*.
//
// Each run is a scenario (scenario) built through the registry and driven
// in lockstep; its measures are not a bundle's: the stationarity needs the
// agents' proximal centers z_i and the certificate their edge duals
// (certify reads them through the agents' Z and Dual methods, which
// almstorm's certificate needs), between rounds chosen per horizon.
//
// storm imports scenarios, consensus, consensus/almstorm,
// consensus/registry, experiments, experiments/internal/stationarity and
// gonum; it must not import node, coordinator, sim or cmd.
package storm

import (
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/consensus/almstorm"
	"github.com/consim/consim/consensus/registry"
	"github.com/consim/consim/experiments"
	"github.com/consim/consim/experiments/internal/stationarity"
	"github.com/consim/consim/scenarios"
)

// Config is the experiment of `consim reproduce storm`.
type Config struct {
	// Seeds are the seeds 1..Seeds of the instance, edges and samples (5;
	// at least 2, the interval needs two).
	Seeds int
	// Horizons are the horizons T (1000, 2000, ..., 64000); the slopes are
	// fitted over those T >= FitFrom (4000: where both presets' steps
	// depend on T, the ALM from T > 400, ALM-STORM from T > 3450 on the
	// default ring).
	Horizons []int
	FitFrom  int
	// Agents N on the ring (8), dimension n (5), mini-batch b of a
	// stochastic gradient (1), edge presence probability P (1).
	Agents, Dim, Batch int
	P                  float64
	// Points is the number of stationarity evaluations per run (50).
	Points int
	// StormCTau is ALM-STORM's c_tau (almstorm.PracticalCTau).
	StormCTau float64
	// CertBatch is the batch B of the certificate (3.2), per agent (1000).
	CertBatch int
	// Log, if set, receives a line per method and seed done.
	Log io.Writer
}

// DefaultConfig is the experiment's default grid.
func DefaultConfig() Config {
	return Config{Seeds: 5, Horizons: []int{1000, 2000, 4000, 8000, 16000, 32000, 64000}, FitFrom: 4000,
		Agents: 8, Dim: 5, Batch: 1, P: 1, Points: 50, StormCTau: almstorm.PracticalCTau, CertBatch: 1000}
}

// Validate checks the sizes and that at least two horizons are fitted.
func (c Config) Validate() error {
	switch {
	case c.Seeds < 2:
		return fmt.Errorf("storm: seeds %d: want >= 2 (the interval needs two)", c.Seeds)
	case c.Agents < 2 || c.Dim < 1 || c.Batch < 1 || c.Points < 1 || c.CertBatch < 1:
		return fmt.Errorf("storm: agents %d, dim %d, batch %d, points %d, cert-batch %d: want >= 2, >= 1, >= 1, >= 1, >= 1",
			c.Agents, c.Dim, c.Batch, c.Points, c.CertBatch)
	case !(c.P > 0 && c.P <= 1):
		return fmt.Errorf("storm: p %v: want in (0, 1]", c.P)
	case !(c.StormCTau > 0):
		return fmt.Errorf("storm: storm-c-tau %v: want > 0", c.StormCTau)
	}
	var fitN int
	for _, T := range c.Horizons {
		if T < 1 {
			return fmt.Errorf("storm: horizon %d: want >= 1", T)
		}
		if T >= c.FitFrom {
			fitN++
		}
	}
	if fitN < 2 {
		return fmt.Errorf("storm: fit-from %d leaves %d horizons: the fit needs two", c.FitFrom, fitN)
	}
	return nil
}

// Result is the outcome of Run: every run, every evaluation, and the
// fitted slopes.
type Result struct {
	Config Config
	Runs   []RunSummary
	Points []Point
	Fits   []Fit
}

// Run runs every method, seed and horizon and fits the slopes.
func (c Config) Run(ctx context.Context) (*Result, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	hs := slices.Sorted(slices.Values(c.Horizons))
	start := time.Now()
	r := &Result{Config: c}
	for _, m := range c.methods() {
		for s := 1; s <= c.Seeds; s++ {
			for _, T := range hs {
				if err := ctx.Err(); err != nil {
					return nil, err
				}
				run, pts, err := c.one(m, uint64(s), T)
				if err != nil {
					return nil, fmt.Errorf("%s, seed %d, T = %d: %w", m.name, s, T, err)
				}
				r.Runs = append(r.Runs, run)
				r.Points = append(r.Points, pts...)
			}
			if c.Log != nil {
				fmt.Fprintf(c.Log, "%s seed %d done after %.0f s\n", m.name, s, time.Since(start).Seconds())
			}
		}
	}
	r.Fits = c.fit(r.Runs)
	return r, nil
}

// Write writes storm.csv, storm_runs.csv and the plot.
func (r *Result) Write(dir string) error {
	if err := writeStormCSV(dir, r.Runs, r.Points); err != nil {
		return err
	}
	return r.Config.plot(dir, r.Runs, r.Fits)
}

// methods are the compared methods: name and algorithm block.
func (f Config) methods() []stormMethod {
	return []stormMethod{
		{"ALM", "{name: alm}", -0.25},
		{"ALM-STORM", fmt.Sprintf("{name: alm_storm, c_step: %s}", strconv.FormatFloat(f.StormCTau, 'g', -1, 64)), -1.0 / 3},
	}
}

// stormMethod is one compared method and the slope of its paper rate.
type stormMethod struct {
	name, block string
	paper       float64
}

// scenario is the scenario of one run: the nonconvex regression on a
// ring with the algorithm block, T rounds.
func (f Config) scenario(block string, T int, seed uint64) string {
	return fmt.Sprintf(`seed: %d
agents: %d
graph: {topology: ring, p: %s}
problem: {kind: nonconvex_regression, dim: %d, samples_per_agent: 100, batch: %d, noise: 0.5, reg: 0.1, scale: 1, heterogeneity: 1}
algorithm: %s
rounds: %d
`, seed, f.Agents, strconv.FormatFloat(f.P, 'g', -1, 64), f.Dim, f.Batch, block, T)
}

// RunSummary is one run's summary.
type RunSummary struct {
	Method  string
	Seed    uint64
	T       int
	Samples int64
	// MeanZ is the mean of ||grad Psi(z_t)|| over the evaluations, LastZ
	// the last one, LastX the last at x.
	MeanZ, LastZ, LastX float64
	// TStar is the round of the certificate, drawn uniformly from 1..T
	// before the run; Cert is the certificate (3.2) there.
	TStar int
	Cert  almstorm.Certificate
	Wall  time.Duration
}

// Point is one evaluation inside a run.
type Point struct {
	Method       string
	Seed         uint64
	T, Round     int
	Samples      int64
	StatZ, StatX float64
}

// one runs method m with seed for T rounds.
func (f Config) one(m stormMethod, seed uint64, T int) (RunSummary, []Point, error) {
	t0 := time.Now()
	st, agents, d, err := stationarity.Build(f.scenario(m.block, T, seed), "storm")
	if err != nil {
		return RunSummary{}, nil, err
	}
	obs, err := stationarity.NewObserver(st)
	if err != nil {
		return RunSummary{}, nil, err
	}
	every := max(1, T/f.Points)
	// t* uniform in 1..T, drawn before the run from the seed.
	tStar := 1 + rand.New(rand.NewPCG(seed, uint64(T))).IntN(T)
	var cert almstorm.Certificate
	var pts []Point
	var sum float64
	for t := 0; t < T; t += every {
		k := min(every, T-t)
		if t < tStar && tStar <= t+k {
			// Freeze (x, y, z) after t* rounds for the certificate.
			if err := d.Run(t, tStar-t); err != nil {
				return RunSummary{}, nil, err
			}
			if cert, err = certify(st, agents, f.CertBatch, seed); err != nil {
				return RunSummary{}, nil, fmt.Errorf("certificate at round %d: %w", tStar, err)
			}
			if err := d.Run(tStar, t+k-tStar); err != nil {
				return RunSummary{}, nil, err
			}
		} else if err := d.Run(t, k); err != nil {
			return RunSummary{}, nil, err
		}
		sx, sz, samples, err := obs.Measure(agents)
		if err != nil {
			return RunSummary{}, nil, err
		}
		if math.IsNaN(sx) || math.IsInf(sx, 0) {
			return RunSummary{}, nil, fmt.Errorf("round %d: stationarity is %v (diverged)", t+k, sx)
		}
		pts = append(pts, Point{m.name, seed, T, t + k, samples, sz, sx})
		sum += sz
	}
	last := pts[len(pts)-1]
	return RunSummary{Method: m.name, Seed: seed, T: T, Samples: last.Samples, MeanZ: sum / float64(len(pts)),
		LastZ: last.StatZ, LastX: last.StatX, TStar: tStar, Cert: cert, Wall: time.Since(t0)}, pts, nil
}

// dualAgent is an agent holding replicas of its edges' duals (the ALM's).
type dualAgent interface {
	stationarity.ZAgent
	Dual(j int) ([]float64, bool)
}

// certify computes the output certificate of eq. (3.2) from the agents'
// frozen state, with E[A], tau' = 1/L_K and a fresh batch of B samples per
// agent; the parameters are the run's resolved eta, rho, mu, sigma and L_K.
func certify(st *scenarios.Setup, agents []consensus.Agent, B int, seed uint64) (almstorm.Certificate, error) {
	inst := st.Env.Problem.(registry.Locals)
	vals := map[string]float64{}
	for _, v := range st.Resolved() {
		vals[v.Name] = v.Value
	}
	for _, k := range []string{"eta", "rho", "mu", "sigma", "L_K"} {
		if _, ok := vals[k]; !ok {
			return almstorm.Certificate{}, fmt.Errorf("the algorithm resolves no %s", k)
		}
	}
	in := almstorm.CertifyInput{Graph: st.Graph, Locals: registry.AllLocals(inst, st.Env.N), Box: inst.Box(),
		Scale: vals["sigma"], Eta: vals["eta"], Rho: vals["rho"], Mu: vals["mu"], TauOut: 1 / vals["L_K"], B: B, Seed: seed}
	for _, a := range agents {
		da, ok := a.(dualAgent)
		if !ok {
			return almstorm.Certificate{}, fmt.Errorf("agent %d holds no duals", a.ID())
		}
		in.X, in.Z = append(in.X, a.Report().X), append(in.Z, da.Z())
	}
	for _, e := range st.Graph.Edges {
		y, ok := agents[e.I].(dualAgent).Dual(e.J)
		if !ok {
			return almstorm.Certificate{}, fmt.Errorf("agent %d has no dual of edge {%d, %d}", e.I, e.I, e.J)
		}
		in.Y = append(in.Y, y)
	}
	return almstorm.Certify(in)
}

// Fit is one method's fitted slope.
type Fit struct {
	Method string
	// Paper is the slope of the paper's rate.
	Paper float64
	// Slopes are the per-seed slopes; Mean and Half their mean and the
	// half-width of its 95% t interval; LastMean and LastHalf the same for
	// the last evaluation of each run.
	Slopes             []float64
	Mean, Half         float64
	LastMean, LastHalf float64
	// Agree reports |Mean - Paper| <= Half.
	Agree bool
	// Window is the range of the fitted horizons.
	Window [2]int
}

// fit fits log(stationarity) against log(samples) per method and seed over
// the horizons T >= fitFrom.
func (f Config) fit(runs []RunSummary) []Fit {
	var fits []Fit
	for _, m := range f.methods() {
		ft := Fit{Method: m.name, Paper: m.paper, Window: [2]int{math.MaxInt, 0}}
		var lastSlopes []float64
		for s := 1; s <= f.Seeds; s++ {
			var lx, ly, lz []float64
			for _, r := range runs {
				if r.Method == m.name && r.Seed == uint64(s) && r.T >= f.FitFrom {
					lx = append(lx, math.Log(float64(r.Samples)))
					ly = append(ly, math.Log(r.MeanZ))
					lz = append(lz, math.Log(r.LastZ))
					ft.Window[0], ft.Window[1] = min(ft.Window[0], r.T), max(ft.Window[1], r.T)
				}
			}
			_, b := stat.LinearRegression(lx, ly, nil, false)
			_, bl := stat.LinearRegression(lx, lz, nil, false)
			ft.Slopes = append(ft.Slopes, b)
			lastSlopes = append(lastSlopes, bl)
		}
		ft.Mean, ft.Half = experiments.MeanCI(ft.Slopes)
		ft.LastMean, ft.LastHalf = experiments.MeanCI(lastSlopes)
		ft.Agree = math.Abs(ft.Mean-m.paper) <= ft.Half
		fits = append(fits, ft)
	}
	return fits
}

// writeStormCSV writes storm.csv (every evaluation) and storm_runs.csv
// (one row per run).
func writeStormCSV(dir string, runs []RunSummary, pts []Point) error {
	var rows [][]string
	for _, p := range pts {
		rows = append(rows, []string{p.Method, strconv.FormatUint(p.Seed, 10), strconv.Itoa(p.T), strconv.Itoa(p.Round),
			strconv.FormatInt(p.Samples, 10), experiments.G(p.StatZ), experiments.G(p.StatX)})
	}
	if err := experiments.WriteCSV(filepath.Join(dir, "storm.csv"), []string{"method", "seed", "T", "round", "samples", "stationarity_z", "stationarity_x"}, rows); err != nil {
		return err
	}
	rows = rows[:0]
	for _, r := range runs {
		rows = append(rows, []string{r.Method, strconv.FormatUint(r.Seed, 10), strconv.Itoa(r.T), strconv.FormatInt(r.Samples, 10),
			experiments.G(r.MeanZ), experiments.G(r.LastZ), experiments.G(r.LastX), strconv.Itoa(r.TStar), experiments.G(r.Cert.KKT), experiments.G(r.Cert.Feasibility), experiments.G(r.Cert.GradMap), experiments.G(r.Wall.Seconds())})
	}
	return experiments.WriteCSV(filepath.Join(dir, "storm_runs.csv"), []string{"method", "seed", "T", "samples", "mean_stationarity_z", "last_stationarity_z", "last_stationarity_x",
		"t_star", "cert_kkt", "cert_feasibility", "cert_grad_map", "wall_s"}, rows)
}

// byHorizon groups the runs of method by horizon: the horizons in
// increasing order and the runs of each, in run order.
func byHorizon(runs []RunSummary, method string) ([]int, map[int][]RunSummary) {
	byT := map[int][]RunSummary{}
	var Ts []int
	for _, r := range runs {
		if r.Method == method {
			if _, ok := byT[r.T]; !ok {
				Ts = append(Ts, r.T)
			}
			byT[r.T] = append(byT[r.T], r)
		}
	}
	sort.Ints(Ts)
	return Ts, byT
}

// plot writes storm.{png,svg}: the geometric mean over seeds of the mean
// stationarity against samples, one line per method, and dashed guides of
// the paper's slopes through each method's first fitted point.
func (f Config) plot(dir string, runs []RunSummary, fits []Fit) error {
	p := plot.New()
	p.Title.Text = fmt.Sprintf("ALM vs ALM-STORM, nonconvex regression, ring N = %d, p = %s", f.Agents, strconv.FormatFloat(f.P, 'g', -1, 64))
	p.X.Label.Text = "stochastic gradient samples (all agents)"
	p.Y.Label.Text = "mean ||grad Psi(z_t)|| over the run"
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.X.Tick.Marker, p.Y.Tick.Marker = experiments.LogTicks{}, experiments.LogTicks{}
	p.Legend.Top = true
	for k, ft := range fits {
		Ts, byT := byHorizon(runs, ft.Method)
		xy := make(plotter.XYs, len(Ts))
		for i, T := range Ts {
			var ls, lx float64
			for _, r := range byT[T] {
				ls += math.Log(r.MeanZ)
				lx += math.Log(float64(r.Samples))
			}
			n := float64(len(byT[T]))
			xy[i].X, xy[i].Y = math.Exp(lx/n), math.Exp(ls/n)
		}
		line, pts, err := plotter.NewLinePoints(xy)
		if err != nil {
			return fmt.Errorf("plot: %w", err)
		}
		line.Color, pts.Color = plotutil.Color(k), plotutil.Color(k)
		pts.Shape = plotutil.Shape(k)
		p.Add(line, pts)
		p.Legend.Add(fmt.Sprintf("%s: slope %.3f ± %.3f (paper %.3f)", ft.Method, ft.Mean, ft.Half, ft.Paper), line, pts)
		// Guide of the paper's slope through the first fitted point.
		i0 := min(sort.SearchInts(Ts, ft.Window[0]), len(xy)-1)
		x0, y0 := xy[i0].X, xy[i0].Y
		x1 := xy[len(xy)-1].X
		guide, err := plotter.NewLine(plotter.XYs{{X: x0, Y: y0}, {X: x1, Y: y0 * math.Pow(x1/x0, ft.Paper)}})
		if err != nil {
			return fmt.Errorf("plot: %w", err)
		}
		guide.Color = plotutil.Color(k)
		guide.Dashes = plotutil.Dashes(1)
		p.Add(guide)
		p.Legend.Add(fmt.Sprintf("paper's samples^(%s)", strconv.FormatFloat(ft.Paper, 'g', 3, 64)), guide)
	}
	return experiments.SavePlot(p, filepath.Join(dir, "storm"))
}

// Table renders table.md.
func (r *Result) Table() string {
	f, runs, fits := r.Config, r.Runs, r.Fits
	var b strings.Builder
	fmt.Fprintf(&b, "# ALM-STORM against the ALM at equal sample budget\n\n")
	fmt.Fprintf(&b, "Nonconvex (Cauchy) regression, %d agents on a ring with p = %s, n = %d, batch %d, %d seeds; practical presets, steps set for each horizon T. ",
		f.Agents, strconv.FormatFloat(f.P, 'g', -1, 64), f.Dim, f.Batch, f.Seeds)
	fmt.Fprintf(&b, "Stationarity: mean over the run of ||grad Psi(z_t)|| (Moreau envelope of the consensus problem, mu = 2 L_f), %d evaluations per run.\n\n", f.Points)
	fmt.Fprintf(&b, "| method | slope of log stationarity vs log samples (95%% CI) | last-iterate slope (95%% CI) | paper | paper's slope inside the CI | fit window |\n|---|---|---|---|---|---|\n")
	for _, ft := range fits {
		fmt.Fprintf(&b, "| %s | %.3f ± %.3f | %.3f ± %.3f | %.3f | %s | T = %d..%d |\n", ft.Method, ft.Mean, ft.Half, ft.LastMean, ft.LastHalf, ft.Paper, experiments.YesNo(ft.Agree), ft.Window[0], ft.Window[1])
	}
	if len(fits) == 2 {
		diff := make([]float64, len(fits[0].Slopes))
		for i := range diff {
			diff[i] = fits[1].Slopes[i] - fits[0].Slopes[i]
		}
		m, h := experiments.MeanCI(diff)
		fmt.Fprintf(&b, "\nSlope difference %s - %s, paired by seed: %.3f ± %.3f (paper: %.3f); the paper's difference is inside the interval: %s; zero is inside it: %s.\n",
			fits[1].Method, fits[0].Method, m, h, fits[1].Paper-fits[0].Paper, experiments.YesNo(math.Abs(m-(fits[1].Paper-fits[0].Paper)) <= h), experiments.YesNo(math.Abs(m) <= h))
	}
	fmt.Fprintf(&b, "\nCertificate (3.2) at t* uniform in 1..T: xhat = proj_X(x_t* - Ghat/L_K) with E[A] and a fresh batch of %d samples per agent; "+
		"its box-KKT residual for f (full gradient) and ||E[A] xhat||. Geometric means over the seeds.\n\n", f.CertBatch)
	fmt.Fprintf(&b, "| method | T | samples (mean) | mean stationarity | certificate KKT | certificate feasibility |\n|---|---|---|---|---|---|\n")
	for _, ft := range fits {
		Ts, byT := byHorizon(runs, ft.Method)
		for _, T := range Ts {
			var ls, sm, lk, lf float64
			for _, r := range byT[T] {
				ls += math.Log(r.MeanZ)
				sm += float64(r.Samples)
				lk += math.Log(r.Cert.KKT)
				lf += math.Log(r.Cert.Feasibility)
			}
			n := float64(len(byT[T]))
			fmt.Fprintf(&b, "| %s | %d | %.0f | %.4g | %.3g | %.3g |\n", ft.Method, T, sm/n, math.Exp(ls/n), math.Exp(lk/n), math.Exp(lf/n))
		}
	}
	return b.String()
}
