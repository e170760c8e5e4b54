package main

import (
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/consensus/almstorm"
	"github.com/consim/consim/consensus/lockstep"
	"github.com/consim/consim/consensus/registry"
	"github.com/consim/consim/scenarios"
	"github.com/consim/consim/sim"
)

// stormFlags are the flags of `consim reproduce storm`.
type stormFlags struct {
	out         string
	seeds       int
	horizons    string
	fitFrom     int
	agents, dim int
	batch       int
	p           float64
	points      int
	stormCTau   float64
	certBatch   int
}

// reproduceStormCmd is `consim reproduce storm`: ALM-STORM against the ALM
// at equal sample budget, stationarity against samples on log-log axes.
func (a *app) reproduceStormCmd() *cobra.Command {
	var f stormFlags
	cmd := &cobra.Command{
		Use:   "storm",
		Short: "ALM-STORM against the ALM: Moreau stationarity against samples, fitted slopes (Huang, Zhang, Alacaoglu §5)",
		Long: `Storm runs the ALM (Algorithm 2, practical preset) and ALM-STORM
(Algorithm 3, practical preset) on the nonconvex regression over a ring,
for every horizon T of --horizons and every seed, each with the steps its
preset gives for T (tau ~ T^(-1/2) for the ALM, T^(-1/3) for ALM-STORM).
Every T/--points rounds it evaluates the Moreau-envelope stationarity
||grad Psi(z_t)|| of the consensus problem (mu = 2 L_f, a warm-started
inner solve), and takes its mean over the run, the E||grad Psi(z_t*)||
with t* uniform of the paper's theorems. It fits log(stationarity)
against log(samples) over the horizons T >= --fit-from per seed and
reports the mean slope with a 95% t-interval over the seeds, beside the
paper's -1/4 (O(eps^-4)) and -1/3 (O(eps^-3)). It writes storm.csv,
storm_runs.csv, storm.{png,svg} and table.md into a new directory.`,
		Example: `  consim reproduce storm
  consim reproduce storm --seeds 3 --horizons 500,2000,8000`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usagef("reproduce storm: unexpected arguments %q", args)
			}
			return nil
		},
		ValidArgsFunction: cobra.NoFileCompletions,
	}
	fl := cmd.Flags()
	addOutFlag(cmd, &f.out, "output `DIR`, which must not exist (default results/reproduce-storm-<UTC time>-<4 hex>)")
	fl.IntVar(&f.seeds, "seeds", 5, "seeds 1..seeds (instance, edges and samples)")
	fl.StringVar(&f.horizons, "horizons", "1000,2000,4000,8000,16000,32000,64000", "horizons T, comma-separated")
	fl.IntVar(&f.fitFrom, "fit-from", 4000, "fit the slopes over the horizons T >= this (where both presets' steps depend on T: ALM from T > 400, ALM-STORM from T > 3450 on the default ring)")
	fl.IntVar(&f.agents, "agents", 8, "agents N on the ring")
	fl.IntVar(&f.dim, "dim", 5, "dimension n")
	fl.IntVar(&f.batch, "batch", 1, "minibatch b of a stochastic gradient")
	fl.Float64Var(&f.p, "p", 1, "edge presence probability")
	fl.IntVar(&f.points, "points", 50, "stationarity evaluations per run")
	fl.Float64Var(&f.stormCTau, "storm-c-tau", almstorm.PracticalCTau, "ALM-STORM's c_tau")
	fl.IntVar(&f.certBatch, "cert-batch", 1000, "batch B of the certificate (3.2), per agent")
	for _, n := range []string{"seeds", "horizons", "fit-from", "agents", "dim", "batch", "p", "points", "storm-c-tau", "cert-batch"} {
		mustComplete(cmd, n, cobra.NoFileCompletions)
	}
	cmd.RunE = a.runE(func(cmd *cobra.Command, _ []string) error {
		return f.run(a.stdout, a.stderr)
	})
	return cmd
}

// stormMethods are the compared methods: name and algorithm block.
func (f *stormFlags) methods() []stormMethod {
	return []stormMethod{
		{"ALM", "{name: alm}", -0.25},
		{"ALM-STORM", fmt.Sprintf("{name: alm_storm, c_step: %s}", strconv.FormatFloat(f.stormCTau, 'g', -1, 64)), -1.0 / 3},
	}
}

// stormMethod is one compared method and the slope of its paper rate.
type stormMethod struct {
	name, block string
	paper       float64
}

// stormScenario is the scenario of one run.
func (f *stormFlags) scenario(block string, T int, seed uint64) string {
	return fmt.Sprintf(`seed: %d
agents: %d
graph: {topology: ring, p: %s}
problem: {kind: nonconvex_regression, dim: %d, samples_per_agent: 100, batch: %d, noise: 0.5, reg: 0.1, scale: 1, heterogeneity: 1}
algorithm: %s
rounds: %d
`, seed, f.agents, strconv.FormatFloat(f.p, 'g', -1, 64), f.dim, f.batch, block, T)
}

// stormRun is one run's summary.
type stormRun struct {
	method  string
	seed    uint64
	T       int
	samples int64
	// meanZ is the mean of ||grad Psi(z_t)|| over the evaluations,
	// lastZ the last one, lastX the last at x.
	meanZ, lastZ, lastX float64
	// tStar is the round of the certificate, drawn uniformly from 1..T
	// before the run; cert is the certificate (3.2) there.
	tStar int
	cert  almstorm.Certificate
	wall  time.Duration
}

// stormPoint is one evaluation inside a run.
type stormPoint struct {
	method       string
	seed         uint64
	T, round     int
	samples      int64
	statZ, statX float64
}

// zAgent is an agent whose proximal center z_i can be read (the ALM's).
type zAgent interface{ Z() []float64 }

// observer evaluates the stationarity of a run's agents.
type observer struct {
	atX, atZ *almstorm.Stationarity
}

// newObserver builds the Moreau stationarity evaluators (mu = 2 L_f with
// L_f = max_i L_i / N) of a built scenario.
func newObserver(st *scenarios.Setup) (*observer, error) {
	inst, ok := st.Env.Problem.(registry.Locals)
	if !ok {
		return nil, fmt.Errorf("problem %s has no local objectives", st.Scenario.Problem.Kind)
	}
	locals := registry.AllLocals(inst, st.Env.N)
	var lmax float64
	for _, f := range locals {
		lmax = math.Max(lmax, f.Smoothness())
	}
	mu := 2 * lmax / float64(st.Env.N)
	ox, err := almstorm.NewStationarity(locals, inst.Box(), mu)
	if err != nil {
		return nil, err
	}
	oz, err := almstorm.NewStationarity(locals, inst.Box(), mu)
	if err != nil {
		return nil, err
	}
	return &observer{atX: ox, atZ: oz}, nil
}

// measure returns ||grad Psi|| at the agents' x and, for agents with a
// proximal center, at z (NaN otherwise), and the samples drawn so far.
func (o *observer) measure(agents []consensus.Agent) (sx, sz float64, samples int64, err error) {
	xs, zs := make([][]float64, len(agents)), make([][]float64, len(agents))
	hasZ := true
	for i, a := range agents {
		r := a.Report()
		xs[i], samples = r.X, samples+r.GradEvals
		if za, ok := a.(zAgent); ok {
			zs[i] = za.Z()
		} else {
			hasZ = false
		}
	}
	if sx, err = o.atX.At(xs); err != nil {
		return 0, 0, 0, err
	}
	sz = math.NaN()
	if hasZ {
		if sz, err = o.atZ.At(zs); err != nil {
			return 0, 0, 0, err
		}
	}
	return sx, sz, samples, nil
}

// buildLockstep parses and builds a scenario given as text.
func buildLockstep(src, name string) (*scenarios.Setup, []consensus.Agent, *lockstep.Driver, error) {
	s, err := scenarios.Parse([]byte(src), name+".yaml")
	if err != nil {
		return nil, nil, nil, err
	}
	st, err := s.Build()
	if err != nil {
		return nil, nil, nil, err
	}
	agents, err := st.Agents()
	if err != nil {
		return nil, nil, nil, err
	}
	d, err := lockstep.New(agents)
	if err != nil {
		return nil, nil, nil, err
	}
	return st, agents, d, nil
}

// run resolves the flags, runs every method, seed and horizon, and writes
// the results.
func (f *stormFlags) run(stdout, stderr io.Writer) error {
	hs, err := parseInts(f.horizons)
	if err != nil {
		return usagef("reproduce storm: --horizons %w", err)
	}
	sort.Ints(hs)
	switch {
	case f.seeds < 2:
		return usagef("reproduce storm: --seeds %d: want >= 2 (the interval needs two)", f.seeds)
	case f.agents < 2 || f.dim < 1 || f.batch < 1 || f.points < 1 || f.certBatch < 1:
		return usagef("reproduce storm: --agents %d, --dim %d, --batch %d, --points %d, --cert-batch %d: want >= 2, >= 1, >= 1, >= 1, >= 1",
			f.agents, f.dim, f.batch, f.points, f.certBatch)
	case !(f.p > 0 && f.p <= 1):
		return usagef("reproduce storm: --p %v: want in (0, 1]", f.p)
	case !(f.stormCTau > 0):
		return usagef("reproduce storm: --storm-c-tau %v: want > 0", f.stormCTau)
	}
	var fitN int
	for _, T := range hs {
		if T >= f.fitFrom {
			fitN++
		}
	}
	if fitN < 2 {
		return usagef("reproduce storm: --fit-from %d leaves %d horizons: the fit needs two", f.fitFrom, fitN)
	}
	out := f.out
	if out == "" {
		out = filepath.Join("results", sim.NewRunID("reproduce-storm"))
	}
	if err := createNewDir(out); err != nil {
		return fmt.Errorf("reproduce storm: %w", err)
	}
	start := time.Now()
	var runs []stormRun
	var points []stormPoint
	for _, m := range f.methods() {
		for s := 1; s <= f.seeds; s++ {
			for _, T := range hs {
				r, pts, err := f.one(m, uint64(s), T)
				if err != nil {
					return fmt.Errorf("reproduce storm: %s, seed %d, T = %d: %w", m.name, s, T, err)
				}
				runs = append(runs, r)
				points = append(points, pts...)
			}
			fmt.Fprintf(stderr, "%s seed %d done after %.0f s\n", m.name, s, time.Since(start).Seconds())
		}
	}
	if err := writeStormCSV(out, runs, points); err != nil {
		return fmt.Errorf("reproduce storm: %w", err)
	}
	fits := f.fit(runs)
	if err := f.plot(out, runs, fits); err != nil {
		return fmt.Errorf("reproduce storm: %w", err)
	}
	md := f.table(runs, fits) + wallLine(time.Since(start))
	if err := writeNewFile(filepath.Join(out, "table.md"), strings.NewReader(md)); err != nil {
		return fmt.Errorf("reproduce storm: %w", err)
	}
	_, err = io.WriteString(stdout, md)
	return err
}

// one runs method m with seed for T rounds.
func (f *stormFlags) one(m stormMethod, seed uint64, T int) (stormRun, []stormPoint, error) {
	t0 := time.Now()
	st, agents, d, err := buildLockstep(f.scenario(m.block, T, seed), "storm")
	if err != nil {
		return stormRun{}, nil, err
	}
	obs, err := newObserver(st)
	if err != nil {
		return stormRun{}, nil, err
	}
	every := max(1, T/f.points)
	// t* uniform in 1..T, drawn before the run from the seed.
	tStar := 1 + rand.New(rand.NewPCG(seed, uint64(T))).IntN(T)
	var cert almstorm.Certificate
	var pts []stormPoint
	var sum float64
	for t := 0; t < T; t += every {
		k := min(every, T-t)
		if t < tStar && tStar <= t+k {
			// Freeze (x, y, z) after t* rounds for the certificate.
			if err := d.Run(t, tStar-t); err != nil {
				return stormRun{}, nil, err
			}
			if cert, err = certify(st, agents, f.certBatch, seed); err != nil {
				return stormRun{}, nil, fmt.Errorf("certificate at round %d: %w", tStar, err)
			}
			if err := d.Run(tStar, t+k-tStar); err != nil {
				return stormRun{}, nil, err
			}
		} else if err := d.Run(t, k); err != nil {
			return stormRun{}, nil, err
		}
		sx, sz, samples, err := obs.measure(agents)
		if err != nil {
			return stormRun{}, nil, err
		}
		if math.IsNaN(sx) || math.IsInf(sx, 0) {
			return stormRun{}, nil, fmt.Errorf("round %d: stationarity is %v (diverged)", t+k, sx)
		}
		pts = append(pts, stormPoint{m.name, seed, T, t + k, samples, sz, sx})
		sum += sz
	}
	last := pts[len(pts)-1]
	return stormRun{method: m.name, seed: seed, T: T, samples: last.samples, meanZ: sum / float64(len(pts)),
		lastZ: last.statZ, lastX: last.statX, tStar: tStar, cert: cert, wall: time.Since(t0)}, pts, nil
}

// dualAgent is an agent holding replicas of its edges' duals (the ALM's).
type dualAgent interface {
	zAgent
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

// stormFit is one method's fitted slope.
type stormFit struct {
	method     string
	paper      float64
	slopes     []float64
	mean, half float64 // mean slope and the 95% t half-width
	lastMean   float64 // the same for the last evaluation
	lastHalf   float64
	agree      bool
	window     [2]int
}

// slopeCI returns the mean of xs and the half-width of its 95% Student-t
// interval.
func slopeCI(xs []float64) (float64, float64) {
	m, sd := stat.MeanStdDev(xs, nil)
	q := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(len(xs) - 1)}.Quantile(0.975)
	return m, q * sd / math.Sqrt(float64(len(xs)))
}

// fit fits log(stationarity) against log(samples) per method and seed over
// the horizons T >= fitFrom.
func (f *stormFlags) fit(runs []stormRun) []stormFit {
	var fits []stormFit
	for _, m := range f.methods() {
		ft := stormFit{method: m.name, paper: m.paper, window: [2]int{math.MaxInt, 0}}
		var lastSlopes []float64
		for s := 1; s <= f.seeds; s++ {
			var lx, ly, lz []float64
			for _, r := range runs {
				if r.method == m.name && r.seed == uint64(s) && r.T >= f.fitFrom {
					lx = append(lx, math.Log(float64(r.samples)))
					ly = append(ly, math.Log(r.meanZ))
					lz = append(lz, math.Log(r.lastZ))
					ft.window[0], ft.window[1] = min(ft.window[0], r.T), max(ft.window[1], r.T)
				}
			}
			_, b := stat.LinearRegression(lx, ly, nil, false)
			_, bl := stat.LinearRegression(lx, lz, nil, false)
			ft.slopes = append(ft.slopes, b)
			lastSlopes = append(lastSlopes, bl)
		}
		ft.mean, ft.half = slopeCI(ft.slopes)
		ft.lastMean, ft.lastHalf = slopeCI(lastSlopes)
		ft.agree = math.Abs(ft.mean-m.paper) <= ft.half
		fits = append(fits, ft)
	}
	return fits
}

// writeStormCSV writes storm.csv (every evaluation) and storm_runs.csv
// (one row per run).
func writeStormCSV(dir string, runs []stormRun, pts []stormPoint) error {
	var rows [][]string
	for _, p := range pts {
		rows = append(rows, []string{p.method, strconv.FormatUint(p.seed, 10), strconv.Itoa(p.T), strconv.Itoa(p.round),
			strconv.FormatInt(p.samples, 10), fmtG(p.statZ), fmtG(p.statX)})
	}
	if err := writeCSVFile(filepath.Join(dir, "storm.csv"), []string{"method", "seed", "T", "round", "samples", "stationarity_z", "stationarity_x"}, rows); err != nil {
		return err
	}
	rows = rows[:0]
	for _, r := range runs {
		rows = append(rows, []string{r.method, strconv.FormatUint(r.seed, 10), strconv.Itoa(r.T), strconv.FormatInt(r.samples, 10),
			fmtG(r.meanZ), fmtG(r.lastZ), fmtG(r.lastX), strconv.Itoa(r.tStar), fmtG(r.cert.KKT), fmtG(r.cert.Feasibility), fmtG(r.cert.GradMap), fmtG(r.wall.Seconds())})
	}
	return writeCSVFile(filepath.Join(dir, "storm_runs.csv"), []string{"method", "seed", "T", "samples", "mean_stationarity_z", "last_stationarity_z", "last_stationarity_x",
		"t_star", "cert_kkt", "cert_feasibility", "cert_grad_map", "wall_s"}, rows)
}

// plot writes storm.{png,svg}: the geometric mean over seeds of the mean
// stationarity against samples, one line per method, and dashed guides of
// the paper's slopes through each method's first fitted point.
func (f *stormFlags) plot(dir string, runs []stormRun, fits []stormFit) error {
	p := plot.New()
	p.Title.Text = fmt.Sprintf("ALM vs ALM-STORM, nonconvex regression, ring N = %d, p = %s", f.agents, strconv.FormatFloat(f.p, 'g', -1, 64))
	p.X.Label.Text = "stochastic gradient samples (all agents)"
	p.Y.Label.Text = "mean ||grad Psi(z_t)|| over the run"
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.X.Tick.Marker, p.Y.Tick.Marker = logTicks{}, logTicks{}
	p.Legend.Top = true
	for k, ft := range fits {
		byT := map[int][]stormRun{}
		var Ts []int
		for _, r := range runs {
			if r.method == ft.method {
				if _, ok := byT[r.T]; !ok {
					Ts = append(Ts, r.T)
				}
				byT[r.T] = append(byT[r.T], r)
			}
		}
		sort.Ints(Ts)
		xy := make(plotter.XYs, len(Ts))
		for i, T := range Ts {
			var ls, lx float64
			for _, r := range byT[T] {
				ls += math.Log(r.meanZ)
				lx += math.Log(float64(r.samples))
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
		p.Legend.Add(fmt.Sprintf("%s: slope %.3f ± %.3f (paper %.3f)", ft.method, ft.mean, ft.half, ft.paper), line, pts)
		// Guide of the paper's slope through the first fitted point.
		i0 := min(sort.SearchInts(Ts, ft.window[0]), len(xy)-1)
		x0, y0 := xy[i0].X, xy[i0].Y
		x1 := xy[len(xy)-1].X
		guide, err := plotter.NewLine(plotter.XYs{{X: x0, Y: y0}, {X: x1, Y: y0 * math.Pow(x1/x0, ft.paper)}})
		if err != nil {
			return fmt.Errorf("plot: %w", err)
		}
		guide.Color = plotutil.Color(k)
		guide.Dashes = plotutil.Dashes(1)
		p.Add(guide)
		p.Legend.Add(fmt.Sprintf("paper's samples^(%s)", strconv.FormatFloat(ft.paper, 'g', 3, 64)), guide)
	}
	return savePlot(p, filepath.Join(dir, "storm"))
}

// table renders table.md.
func (f *stormFlags) table(runs []stormRun, fits []stormFit) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# ALM-STORM against the ALM at equal sample budget\n\n")
	fmt.Fprintf(&b, "Nonconvex (Cauchy) regression, %d agents on a ring with p = %s, n = %d, batch %d, %d seeds; practical presets, steps set for each horizon T. ",
		f.agents, strconv.FormatFloat(f.p, 'g', -1, 64), f.dim, f.batch, f.seeds)
	fmt.Fprintf(&b, "Stationarity: mean over the run of ||grad Psi(z_t)|| (Moreau envelope of the consensus problem, mu = 2 L_f), %d evaluations per run.\n\n", f.points)
	fmt.Fprintf(&b, "| method | slope of log stationarity vs log samples (95%% CI) | last-iterate slope (95%% CI) | paper | paper's slope inside the CI | fit window |\n|---|---|---|---|---|---|\n")
	for _, ft := range fits {
		fmt.Fprintf(&b, "| %s | %.3f ± %.3f | %.3f ± %.3f | %.3f | %s | T = %d..%d |\n", ft.method, ft.mean, ft.half, ft.lastMean, ft.lastHalf, ft.paper, yesNo(ft.agree), ft.window[0], ft.window[1])
	}
	if len(fits) == 2 {
		diff := make([]float64, len(fits[0].slopes))
		for i := range diff {
			diff[i] = fits[1].slopes[i] - fits[0].slopes[i]
		}
		m, h := slopeCI(diff)
		fmt.Fprintf(&b, "\nSlope difference %s - %s, paired by seed: %.3f ± %.3f (paper: %.3f); the paper's difference is inside the interval: %s; zero is inside it: %s.\n",
			fits[1].method, fits[0].method, m, h, fits[1].paper-fits[0].paper, yesNo(math.Abs(m-(fits[1].paper-fits[0].paper)) <= h), yesNo(math.Abs(m) <= h))
	}
	fmt.Fprintf(&b, "\nCertificate (3.2) at t* uniform in 1..T: xhat = proj_X(x_t* - Ghat/L_K) with E[A] and a fresh batch of %d samples per agent; "+
		"its box-KKT residual for f (full gradient) and ||E[A] xhat||. Geometric means over the seeds.\n\n", f.certBatch)
	fmt.Fprintf(&b, "| method | T | samples (mean) | mean stationarity | certificate KKT | certificate feasibility |\n|---|---|---|---|---|---|\n")
	for _, ft := range fits {
		byT := map[int][]stormRun{}
		var Ts []int
		for _, r := range runs {
			if r.method == ft.method {
				if _, ok := byT[r.T]; !ok {
					Ts = append(Ts, r.T)
				}
				byT[r.T] = append(byT[r.T], r)
			}
		}
		sort.Ints(Ts)
		for _, T := range Ts {
			var ls, sm, lk, lf float64
			for _, r := range byT[T] {
				ls += math.Log(r.meanZ)
				sm += float64(r.samples)
				lk += math.Log(r.cert.KKT)
				lf += math.Log(r.cert.Feasibility)
			}
			n := float64(len(byT[T]))
			fmt.Fprintf(&b, "| %s | %d | %.0f | %.4g | %.3g | %.3g |\n", ft.method, T, sm/n, math.Exp(ls/n), math.Exp(lk/n), math.Exp(lf/n))
		}
	}
	return b.String()
}
