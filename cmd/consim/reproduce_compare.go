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

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/consensus/registry"
	"github.com/consim/consim/sim"
)

// compareFlags are the flags of `consim reproduce compare`.
type compareFlags struct {
	out       string
	seeds     int
	ps        string
	rounds    int
	every     int
	consTol   float64
	statTol   float64
	methods   string
	dgdC, gtC float64
}

// compareMethod is one compared method: its label and algorithm block
// (with %g for a step scaled by 1/max_i L_i where it needs one).
type compareMethod struct {
	name, block string
	// stepC, if positive, is c in the step c / max_i L_i substituted
	// into block.
	stepC float64
}

// reproduceCompareCmd is `consim reproduce compare`: the comparison sweep
// of the ALM family against the baselines on the nonconvex problem.
func (a *app) reproduceCompareCmd() *cobra.Command {
	var f compareFlags
	cmd := &cobra.Command{
		Use:   "compare",
		Short: "ALM, ALM-STORM, DGD, gradient tracking and the penalty methods: rounds, messages and samples to consensus and stationarity targets",
		Long: `Compare runs the ALM (practical), ALM-STORM (practical), DGD (stochastic
gradients, constant step), gradient tracking (DIGing, stochastic
gradients), the decentralized quadratic-penalty ASG (growing rho) and the
ALM without dual steps on the nonconvex regression of
scenarios/nonconvex.yaml (16 agents, geometric graph) with every edge
present with probability p, for every p of --p and seeds 1..--seeds. Every
--every rounds it measures the consensus error (1/N) sum ||x_i - xbar||^2
and the Moreau stationarity ||grad Psi(x)|| of the consensus problem
(mu = 2 L_f, warm-started inner solve) and records the first round at
which each falls below its target, with the messages sent and the
gradient samples drawn by then. Runs stop at --rounds or when both
targets are met. It writes compare.csv and table.md (means with 95%
t-intervals over the seeds that reached a target, and how many did) into
a new directory.`,
		Example: `  consim reproduce compare
  consim reproduce compare --p 1,0.2 --seeds 3 --rounds 5000`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usagef("reproduce compare: unexpected arguments %q", args)
			}
			return nil
		},
		ValidArgsFunction: cobra.NoFileCompletions,
	}
	fl := cmd.Flags()
	addOutFlag(cmd, &f.out, "output `DIR`, which must not exist (default results/reproduce-compare-<UTC time>-<4 hex>)")
	fl.IntVar(&f.seeds, "seeds", 5, "seeds 1..seeds")
	fl.StringVar(&f.ps, "p", "1,0.5,0.2", "edge presence probabilities, comma-separated")
	fl.IntVar(&f.rounds, "rounds", 20000, "horizon T of every run")
	fl.IntVar(&f.every, "every", 50, "rounds between measurements")
	fl.Float64Var(&f.consTol, "consensus", 1e-6, "consensus error target")
	fl.Float64Var(&f.statTol, "stationarity", 1e-3, "stationarity target")
	fl.StringVar(&f.methods, "methods", "alm,alm_storm,dgd,tracking,penalty_asg,alm_nodual", "methods, comma-separated, of alm, alm_storm, dgd, dgd_sqrt, tracking, penalty_asg, penalty_asg_constant, alm_nodual")
	fl.Float64Var(&f.dgdC, "dgd-c", 0.5, "DGD step alpha = c / max_i L_i")
	fl.Float64Var(&f.gtC, "tracking-c", 0.2, "gradient tracking step alpha = c / max_i L_i")
	for _, n := range []string{"seeds", "p", "rounds", "every", "consensus", "stationarity", "methods", "dgd-c", "tracking-c"} {
		mustComplete(cmd, n, cobra.NoFileCompletions)
	}
	cmd.RunE = a.runE(func(cmd *cobra.Command, _ []string) error {
		return f.run(a.stdout, a.stderr)
	})
	return cmd
}

// allCompareMethods are the methods --methods chooses from.
func (f *compareFlags) allCompareMethods() map[string]compareMethod {
	return map[string]compareMethod{
		"alm":                  {"ALM", "{name: alm}", 0},
		"alm_storm":            {"ALM-STORM", "{name: alm_storm}", 0},
		"dgd":                  {"DGD", "{name: dgd, step: %g}", f.dgdC},
		"dgd_sqrt":             {"DGD (alpha/sqrt(t+1))", "{name: dgd, step: %g, schedule: sqrt}", f.dgdC},
		"tracking":             {"gradient tracking", "{name: tracking, step: %g, gradient: stochastic}", f.gtC},
		"penalty_asg":          {"penalty ASG (growing rho)", "{name: penalty_asg, preset: growing}", 0},
		"penalty_asg_constant": {"penalty ASG (constant rho = T^(3/2))", "{name: penalty_asg, preset: constant}", 0},
		"alm_nodual":           {"ALM without dual steps", "{name: alm_nodual}", 0},
	}
}

// compareScenario is the nonconvex problem of scenarios/nonconvex.yaml
// with edge probability p and the algorithm block.
func (f *compareFlags) scenario(block string, p float64, seed uint64) string {
	return fmt.Sprintf(`seed: %d
agents: 16
graph: {topology: geometric, radius: 0.5, p: %s}
problem: {kind: nonconvex_regression, dim: 10, samples_per_agent: 100, batch: 10, noise: 0.1, heterogeneity: 0.5, box: [-5, 5]}
algorithm: %s
rounds: %d
`, seed, strconv.FormatFloat(p, 'g', -1, 64), block, f.rounds)
}

// hit is when a target was first met: round, messages, samples; round < 0
// when it was not met within the horizon.
type hit struct {
	round             int
	messages, samples int64
}

// compareRun is one run's outcome.
type compareRun struct {
	method string
	p      float64
	seed   uint64
	cons   hit
	stat   hit
	// finalCons and finalStat are the last measured values.
	finalCons, finalStat float64
	wall                 time.Duration
}

func (f *compareFlags) run(stdout, stderr io.Writer) error {
	ps, err := parseFloats(f.ps)
	if err != nil {
		return usagef("reproduce compare: --p %w", err)
	}
	for _, p := range ps {
		if !(p > 0 && p <= 1) {
			return usagef("reproduce compare: --p %v: want values in (0, 1]", p)
		}
	}
	switch {
	case f.seeds < 2:
		return usagef("reproduce compare: --seeds %d: want >= 2", f.seeds)
	case f.rounds < 1 || f.every < 1:
		return usagef("reproduce compare: --rounds %d, --every %d: want >= 1", f.rounds, f.every)
	case !(f.consTol > 0) || !(f.statTol > 0):
		return usagef("reproduce compare: --consensus %v, --stationarity %v: want > 0", f.consTol, f.statTol)
	case !(f.dgdC > 0) || !(f.gtC > 0):
		return usagef("reproduce compare: --dgd-c %v, --tracking-c %v: want > 0", f.dgdC, f.gtC)
	}
	all := f.allCompareMethods()
	var methods []compareMethod
	for _, m := range strings.Split(f.methods, ",") {
		cm, ok := all[strings.TrimSpace(m)]
		if !ok {
			return usagef("reproduce compare: --methods: %q is not one of alm, alm_storm, dgd, dgd_sqrt, tracking, penalty_asg, penalty_asg_constant, alm_nodual", m)
		}
		methods = append(methods, cm)
	}
	out := f.out
	if out == "" {
		out = filepath.Join("results", sim.NewRunID("reproduce-compare"))
	}
	if err := createNewDir(out); err != nil {
		return fmt.Errorf("reproduce compare: %w", err)
	}
	start := time.Now()
	var runs []compareRun
	for _, p := range ps {
		for _, m := range methods {
			for s := 1; s <= f.seeds; s++ {
				r, err := f.one(m, p, uint64(s))
				if err != nil {
					return fmt.Errorf("reproduce compare: %s, p = %v, seed %d: %w", m.name, p, s, err)
				}
				runs = append(runs, r)
			}
			fmt.Fprintf(stderr, "p = %v, %s done after %.0f s\n", p, m.name, time.Since(start).Seconds())
		}
	}
	if err := writeCompareCSV(filepath.Join(out, "compare.csv"), runs); err != nil {
		return fmt.Errorf("reproduce compare: %w", err)
	}
	md := f.table(ps, methods, runs) + wallLine(time.Since(start))
	if err := writeNewFile(filepath.Join(out, "table.md"), strings.NewReader(md)); err != nil {
		return fmt.Errorf("reproduce compare: %w", err)
	}
	_, err = io.WriteString(stdout, md)
	return err
}

// one runs method m at p with seed until both targets are met or the
// horizon ends.
func (f *compareFlags) one(m compareMethod, p float64, seed uint64) (compareRun, error) {
	t0 := time.Now()
	block := m.block
	if m.stepC > 0 {
		// The step needs max_i L_i: build the instance once with the ALM.
		st, _, _, err := buildLockstep(f.scenario("{name: alm}", p, seed), "compare")
		if err != nil {
			return compareRun{}, err
		}
		inst := st.Env.Problem.(registry.Locals)
		var lmax float64
		for i := range st.Env.N {
			lmax = math.Max(lmax, inst.Local(i).Smoothness())
		}
		block = fmt.Sprintf(block, m.stepC/lmax)
	}
	st, agents, d, err := buildLockstep(f.scenario(block, p, seed), "compare")
	if err != nil {
		return compareRun{}, err
	}
	obs, err := newObserver(st)
	if err != nil {
		return compareRun{}, err
	}
	r := compareRun{method: m.name, p: p, seed: seed, cons: hit{round: -1}, stat: hit{round: -1}}
	for t := 0; t < f.rounds; t += f.every {
		k := min(f.every, f.rounds-t)
		if err := d.Run(t, k); err != nil {
			return compareRun{}, err
		}
		cons := consensusError(agents)
		sx, _, samples, err := obs.measure(agents)
		if err != nil {
			return compareRun{}, err
		}
		r.finalCons, r.finalStat = cons, sx
		if math.IsNaN(sx) || math.IsInf(sx, 0) || math.IsNaN(cons) || cons > 1e50 {
			break // diverged: the targets stay unmet
		}
		h := hit{round: t + k, messages: d.Traffic().Sent, samples: samples}
		if r.cons.round < 0 && cons <= f.consTol {
			r.cons = h
		}
		if r.stat.round < 0 && sx <= f.statTol {
			r.stat = h
		}
		if r.cons.round >= 0 && r.stat.round >= 0 {
			break
		}
	}
	r.wall = time.Since(t0)
	return r, nil
}

// consensusError returns (1/N) sum_i ||x_i - xbar||^2 of the agents.
func consensusError(agents []consensus.Agent) float64 {
	xs := make([][]float64, len(agents))
	for i, a := range agents {
		xs[i] = a.Report().X
	}
	n := len(xs[0])
	xbar := make([]float64, n)
	for _, x := range xs {
		for l, v := range x {
			xbar[l] += v / float64(len(xs))
		}
	}
	var s float64
	for _, x := range xs {
		for l, v := range x {
			s += (v - xbar[l]) * (v - xbar[l])
		}
	}
	return s / float64(len(xs))
}

func writeCompareCSV(path string, runs []compareRun) error {
	var rows [][]string
	for _, r := range runs {
		rows = append(rows, []string{r.method, strconv.FormatFloat(r.p, 'g', -1, 64), strconv.FormatUint(r.seed, 10),
			strconv.Itoa(r.cons.round), strconv.FormatInt(r.cons.messages, 10), strconv.FormatInt(r.cons.samples, 10),
			strconv.Itoa(r.stat.round), strconv.FormatInt(r.stat.messages, 10), strconv.FormatInt(r.stat.samples, 10),
			fmtG(r.finalCons), fmtG(r.finalStat), fmtG(r.wall.Seconds())})
	}
	return writeCSVFile(path, []string{"method", "p", "seed", "consensus_round", "consensus_messages", "consensus_samples",
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
	m, h := slopeCI(vals)
	return fmt.Sprintf("%.3g ± %.2g (%d/%d)", m, h, len(vals), total)
}

func (f *compareFlags) table(ps []float64, methods []compareMethod, runs []compareRun) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Comparison on the nonconvex regression\n\n")
	fmt.Fprintf(&b, "16 agents, geometric graph (radius 0.5), n = 10, batch 10, box [-5, 5]; horizon %d rounds, measured every %d; seeds 1..%d. "+
		"Targets: consensus error (1/N) sum ||x_i - xbar||^2 <= %g and Moreau stationarity ||grad Psi(x)|| <= %g (mu = 2 L_f). "+
		"Each cell: mean ± 95%% t half-width over the seeds that met the target (how many of them did). "+
		"DGD alpha = %g / max_i L_i, gradient tracking alpha = %g / max_i L_i, both with stochastic gradients.\n\n",
		f.rounds, f.every, f.seeds, f.consTol, f.statTol, f.dgdC, f.gtC)
	for _, p := range ps {
		fmt.Fprintf(&b, "## p = %s\n\n", strconv.FormatFloat(p, 'g', -1, 64))
		fmt.Fprintf(&b, "| method | rounds to consensus | messages | samples | rounds to stationarity | messages | samples | final consensus error (median) | final stationarity (median) |\n|---|---|---|---|---|---|---|---|---|\n")
		for _, m := range methods {
			var cr, cm, cs, sr, sm, ss, fc, fs []float64
			var total int
			for _, r := range runs {
				if r.method != m.name || r.p != p {
					continue
				}
				total++
				if r.cons.round >= 0 {
					cr, cm, cs = append(cr, float64(r.cons.round)), append(cm, float64(r.cons.messages)), append(cs, float64(r.cons.samples))
				}
				if r.stat.round >= 0 {
					sr, sm, ss = append(sr, float64(r.stat.round)), append(sm, float64(r.stat.messages)), append(ss, float64(r.stat.samples))
				}
				fc, fs = append(fc, r.finalCons), append(fs, r.finalStat)
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %.2g | %.2g |\n", m.name,
				cell(cr, total), cell(cm, total), cell(cs, total), cell(sr, total), cell(sm, total), cell(ss, total), median(fc), median(fs))
		}
		b.WriteString("\n")
	}
	return b.String()
}

// median returns the median of xs (NaN for none).
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := append([]float64(nil), xs...)
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
