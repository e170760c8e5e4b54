// Package compare is the comparison behind `consim reproduce compare`:
// the ALM (practical), ALM-STORM (practical), DGD (stochastic gradients,
// constant step), gradient tracking (DIGing, stochastic gradients), the
// decentralized quadratic-penalty ASG (growing rho) and the ALM without
// dual steps on the nonconvex regression of scenarios/nonconvex.yaml (16
// agents, geometric graph) with every edge present with probability p.
// Every Every rounds it measures the consensus error
// (1/N) sum ||x_i - xbar||^2 and the Moreau stationarity ||grad Psi(x)||
// of the consensus problem (mu = 2 L_f, warm-started inner solve) and
// records the first round at which each falls below its target, with the
// messages sent and the gradient samples drawn by then; a run stops at
// Rounds or when both targets are met.
//
// Each run is a scenario built through the registry (an algorithm block
// per method) and driven in lockstep. The grid is code, not a sweep file:
// the measures are taken from the agents between rounds (the stationarity
// needs every agent's x, the traffic is the lockstep driver's at the round
// a target is met), a run stops early when both targets are met, and the
// steps of DGD and gradient tracking are set per instance from max_i L_i.
//
// compare imports consensus, consensus/registry, experiments and
// experiments/internal/stationarity; it must not import node, coordinator,
// sim or cmd.
package compare

import (
	"context"
	"fmt"
	"github.com/consim/consim/observe"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/consensus/registry"
	"github.com/consim/consim/experiments"
	"github.com/consim/consim/experiments/internal/stationarity"
)

// Config is the experiment of `consim reproduce compare`.
type Config struct {
	// Seeds are the seeds 1..Seeds of every (method, p) (5; at least 2).
	Seeds int
	// Ps are the edge presence probabilities, in (0, 1] (1, 0.5, 0.2).
	Ps []float64
	// Rounds is the horizon T of every run (20,000), measured every Every
	// rounds (50).
	Rounds, Every int
	// ConsTol is the consensus error target (1e-6), StatTol the
	// stationarity target (1e-3).
	ConsTol, StatTol float64
	// Methods are keys of Methods (all but dgd_sqrt and
	// penalty_asg_constant).
	Methods []string
	// DGDC and TrackingC are c in the steps alpha = c / max_i L_i of DGD
	// (0.5) and gradient tracking (0.2).
	DGDC, TrackingC float64
	// Log, if set, receives a line per (p, method) done.
	Log io.Writer
}

// DefaultConfig is the experiment's default comparison.
func DefaultConfig() Config {
	return Config{Seeds: 5, Ps: []float64{1, 0.5, 0.2}, Rounds: 20000, Every: 50, ConsTol: 1e-6, StatTol: 1e-3,
		Methods: []string{"alm", "alm_storm", "dgd", "tracking", "penalty_asg", "alm_nodual"}, DGDC: 0.5, TrackingC: 0.2}
}

// Validate checks the probabilities, sizes, targets and methods.
func (c Config) Validate() error {
	for _, p := range c.Ps {
		if !(p > 0 && p <= 1) {
			return fmt.Errorf("compare: p %v: want values in (0, 1]", p)
		}
	}
	switch {
	case len(c.Ps) == 0:
		return fmt.Errorf("compare: no edge probability")
	case c.Seeds < 2:
		return fmt.Errorf("compare: seeds %d: want >= 2", c.Seeds)
	case c.Rounds < 1 || c.Every < 1:
		return fmt.Errorf("compare: rounds %d, every %d: want >= 1", c.Rounds, c.Every)
	case !(c.ConsTol > 0) || !(c.StatTol > 0):
		return fmt.Errorf("compare: consensus %v, stationarity %v: want > 0", c.ConsTol, c.StatTol)
	case !(c.DGDC > 0) || !(c.TrackingC > 0):
		return fmt.Errorf("compare: dgd-c %v, tracking-c %v: want > 0", c.DGDC, c.TrackingC)
	}
	all := c.allMethods()
	for _, m := range c.Methods {
		if _, ok := all[m]; !ok {
			return fmt.Errorf("compare: method %q is not one of %s", m, MethodKeys)
		}
	}
	return nil
}

// MethodKeys lists the keys of the methods Config.Methods chooses from.
const MethodKeys = "alm, alm_storm, dgd, dgd_sqrt, tracking, penalty_asg, penalty_asg_constant, alm_nodual"

// Result is the outcome of Run: one run per (p, method, seed), in that
// order.
type Result struct {
	Config Config
	Runs   []RunSummary
}

// Run runs every method at every p with every seed.
func (c Config) Run(ctx context.Context) (*Result, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	all := c.allMethods()
	start := time.Now()
	r := &Result{Config: c}
	for _, p := range c.Ps {
		for _, key := range c.Methods {
			m := all[key]
			for s := 1; s <= c.Seeds; s++ {
				if err := ctx.Err(); err != nil {
					return nil, err
				}
				run, err := c.one(m, p, uint64(s))
				if err != nil {
					return nil, fmt.Errorf("%s, p = %v, seed %d: %w", m.name, p, s, err)
				}
				r.Runs = append(r.Runs, run)
			}
			if c.Log != nil {
				fmt.Fprintf(c.Log, "p = %v, %s done after %.0f s\n", p, m.name, time.Since(start).Seconds())
			}
		}
	}
	return r, nil
}

// Write writes compare.csv.
func (r *Result) Write(dir string) error {
	return writeCompareCSV(filepath.Join(dir, "compare.csv"), r.Runs)
}

// compareMethod is one compared method: its label and algorithm block
// (with %g for a step scaled by 1/max_i L_i where it needs one).
type compareMethod struct {
	name, block string
	// stepC, if positive, is c in the step c / max_i L_i substituted
	// into block.
	stepC float64
}

// allMethods are the methods Config.Methods chooses from, by key.
func (f Config) allMethods() map[string]compareMethod {
	return map[string]compareMethod{
		"alm":                  {"ALM", "{name: alm}", 0},
		"alm_storm":            {"ALM-STORM", "{name: alm_storm}", 0},
		"dgd":                  {"DGD", "{name: dgd, step: %g}", f.DGDC},
		"dgd_sqrt":             {"DGD (alpha/sqrt(t+1))", "{name: dgd, step: %g, schedule: sqrt}", f.DGDC},
		"tracking":             {"gradient tracking", "{name: tracking, step: %g, gradient: stochastic}", f.TrackingC},
		"penalty_asg":          {"penalty ASG (growing rho)", "{name: penalty_asg, preset: growing}", 0},
		"penalty_asg_constant": {"penalty ASG (constant rho = T^(3/2))", "{name: penalty_asg, preset: constant}", 0},
		"alm_nodual":           {"ALM without dual steps", "{name: alm_nodual}", 0},
	}
}

// scenario is the nonconvex problem of scenarios/nonconvex.yaml with edge
// probability p and the algorithm block.
func (f Config) scenario(block string, p float64, seed uint64) string {
	return fmt.Sprintf(`seed: %d
agents: 16
graph: {topology: geometric, radius: 0.5, p: %s}
problem: {kind: nonconvex_regression, dim: 10, samples_per_agent: 100, batch: 10, noise: 0.1, heterogeneity: 0.5, box: [-5, 5]}
algorithm: %s
rounds: %d
`, seed, strconv.FormatFloat(p, 'g', -1, 64), block, f.Rounds)
}

// Hit is when a target was first met: round, messages, samples; Round < 0
// when it was not met within the horizon.
type Hit struct {
	Round             int
	Messages, Samples int64
}

// RunSummary is one run's outcome: when each target was met, and the last
// measured values.
type RunSummary struct {
	Method               string
	P                    float64
	Seed                 uint64
	Cons, Stat           Hit
	FinalCons, FinalStat float64
	Wall                 time.Duration
}

// one runs method m at p with seed until both targets are met or the
// horizon ends.
func (f Config) one(m compareMethod, p float64, seed uint64) (RunSummary, error) {
	t0 := time.Now()
	block := m.block
	if m.stepC > 0 {
		// The step needs max_i L_i: build the instance once with the ALM.
		st, _, _, err := stationarity.Build(f.scenario("{name: alm}", p, seed), "compare")
		if err != nil {
			return RunSummary{}, err
		}
		inst := st.Env.Problem.(registry.Locals)
		var lmax float64
		for i := range st.Env.N {
			lmax = math.Max(lmax, inst.Local(i).Smoothness())
		}
		block = fmt.Sprintf(block, m.stepC/lmax)
	}
	st, agents, d, err := stationarity.Build(f.scenario(block, p, seed), "compare")
	if err != nil {
		return RunSummary{}, err
	}
	obs, err := stationarity.NewObserver(st)
	if err != nil {
		return RunSummary{}, err
	}
	r := RunSummary{Method: m.name, P: p, Seed: seed, Cons: Hit{Round: -1}, Stat: Hit{Round: -1}}
	for t := 0; t < f.Rounds; t += f.Every {
		k := min(f.Every, f.Rounds-t)
		if err := d.Run(t, k); err != nil {
			return RunSummary{}, err
		}
		cons := consensusError(agents)
		sx, _, samples, err := obs.Measure(agents)
		if err != nil {
			return RunSummary{}, err
		}
		r.FinalCons, r.FinalStat = cons, sx
		if math.IsNaN(sx) || math.IsInf(sx, 0) || math.IsNaN(cons) || cons > 1e50 {
			break // diverged: the targets stay unmet
		}
		h := Hit{Round: t + k, Messages: d.Traffic().Sent, Samples: samples}
		if r.Cons.Round < 0 && cons <= f.ConsTol {
			r.Cons = h
		}
		if r.Stat.Round < 0 && sx <= f.StatTol {
			r.Stat = h
		}
		if r.Cons.Round >= 0 && r.Stat.Round >= 0 {
			break
		}
	}
	r.Wall = time.Since(t0)
	return r, nil
}

// consensusError returns (1/N) sum_i ||x_i - xbar||^2 of the agents
// (observe.ConsensusError of their reports).
func consensusError(agents []consensus.Agent) float64 {
	xs := make([][]float64, len(agents))
	for i, a := range agents {
		xs[i] = a.Report().X
	}
	return observe.ConsensusError(xs)
}

// writeCompareCSV writes one row per run.
func writeCompareCSV(path string, runs []RunSummary) error {
	var rows [][]string
	for _, r := range runs {
		rows = append(rows, []string{r.Method, strconv.FormatFloat(r.P, 'g', -1, 64), strconv.FormatUint(r.Seed, 10),
			strconv.Itoa(r.Cons.Round), strconv.FormatInt(r.Cons.Messages, 10), strconv.FormatInt(r.Cons.Samples, 10),
			strconv.Itoa(r.Stat.Round), strconv.FormatInt(r.Stat.Messages, 10), strconv.FormatInt(r.Stat.Samples, 10),
			experiments.G(r.FinalCons), experiments.G(r.FinalStat), experiments.G(r.Wall.Seconds())})
	}
	return experiments.WriteCSV(path, []string{"method", "p", "seed", "consensus_round", "consensus_messages", "consensus_samples",
		"stationarity_round", "stationarity_messages", "stationarity_samples", "final_consensus", "final_stationarity", "wall_s"}, rows)
}

// cell renders the mean and 95% t half-width of the values of the runs
// that met the target, and how many did.
func cell(vals []float64, total int) string {
	switch len(vals) {
	case 0:
		return fmt.Sprintf("— (0/%d)", total)
	case 1:
		return fmt.Sprintf("%.3g (1/%d)", vals[0], total)
	}
	m, h := experiments.MeanCI(vals)
	return fmt.Sprintf("%.3g ± %.2g (%d/%d)", m, h, len(vals), total)
}

// Table renders table.md: per p, a row per method with the means and
// intervals of the rounds, messages and samples to each target.
func (r *Result) Table() string {
	f, ps, runs := r.Config, r.Config.Ps, r.Runs
	all := f.allMethods()
	var b strings.Builder
	fmt.Fprintf(&b, "# Comparison on the nonconvex regression\n\n")
	fmt.Fprintf(&b, "16 agents, geometric graph (radius 0.5), n = 10, batch 10, box [-5, 5]; horizon %d rounds, measured every %d; seeds 1..%d. "+
		"Targets: consensus error (1/N) sum ||x_i - xbar||^2 <= %g and Moreau stationarity ||grad Psi(x)|| <= %g (mu = 2 L_f). "+
		"Each cell: mean ± 95%% t half-width over the seeds that met the target (how many of them did). "+
		"DGD alpha = %g / max_i L_i, gradient tracking alpha = %g / max_i L_i, both with stochastic gradients.\n\n",
		f.Rounds, f.Every, f.Seeds, f.ConsTol, f.StatTol, f.DGDC, f.TrackingC)
	for _, p := range ps {
		fmt.Fprintf(&b, "## p = %s\n\n", strconv.FormatFloat(p, 'g', -1, 64))
		fmt.Fprintf(&b, "| method | rounds to consensus | messages | samples | rounds to stationarity | messages | samples | final consensus error (median) | final stationarity (median) |\n|---|---|---|---|---|---|---|---|---|\n")
		for _, key := range f.Methods {
			m := all[key]
			var cr, cm, cs, sr, sm, ss, fc, fs []float64
			var total int
			for _, r := range runs {
				if r.Method != m.name || r.P != p {
					continue
				}
				total++
				if r.Cons.Round >= 0 {
					cr, cm, cs = append(cr, float64(r.Cons.Round)), append(cm, float64(r.Cons.Messages)), append(cs, float64(r.Cons.Samples))
				}
				if r.Stat.Round >= 0 {
					sr, sm, ss = append(sr, float64(r.Stat.Round)), append(sm, float64(r.Stat.Messages)), append(ss, float64(r.Stat.Samples))
				}
				fc, fs = append(fc, r.FinalCons), append(fs, r.FinalStat)
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %.2g | %.2g |\n", m.name,
				cell(cr, total), cell(cm, total), cell(cs, total), cell(sr, total), cell(sm, total), cell(ss, total), experiments.Median(fc), experiments.Median(fs))
		}
		b.WriteString("\n")
	}
	return b.String()
}
