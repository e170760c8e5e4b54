package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/consim/consim/experiments"
	"github.com/consim/consim/experiments/admm"
	"github.com/consim/consim/experiments/compare"
	"github.com/consim/consim/experiments/fairness"
	"github.com/consim/consim/experiments/penalty"
	"github.com/consim/consim/experiments/rates"
	"github.com/consim/consim/experiments/slicing"
	"github.com/consim/consim/experiments/storm"
	"github.com/consim/consim/experiments/tsp"
	"github.com/consim/consim/experiments/zosplm"
	"github.com/consim/consim/sim"
)

// The shared data directory beside the repository, where the reproduce
// commands look for their data sets by default.
const (
	defaultA9A   = "../shared/data/a9a/a9a.gz"
	defaultMNIST = "../shared/data/mnist"
	defaultAdult = "../shared/data/adult"
)

// reproduceCmd groups the paper reproductions, one subcommand each: the
// flags of an experiments/<name> package's Config, run into a new
// directory, its table printed.
func (a *app) reproduceCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "reproduce EXPERIMENT",
		Short: "reproduce a paper's experiment (admm, zo-splm, penalty, tsp, slicing, rates, storm, compare, fairness)",
		Long: `Reproduce runs one of a paper's experiments, as a subcommand, in this
process and writes its data, plots and table to a new directory.`,
		Example: `  consim reproduce admm --quick
  consim reproduce admm --cov 2 --out results/admm
  consim reproduce zo-splm --n 50 --trials 5
  consim reproduce penalty --a9a ../shared/data/a9a/a9a.gz
  consim reproduce tsp --seeds 2
  consim reproduce slicing --instances 5
  consim reproduce rates`,
		RunE: groupRunE("experiment"),
	}
	cmd.AddCommand(a.reproduceADMMCmd(), a.reproduceZOSPLMCmd(), a.reproducePenaltyCmd(), a.reproduceTSPCmd(), a.reproduceSlicingCmd(), a.reproduceRatesCmd(), a.reproduceStormCmd(), a.reproduceCompareCmd(), a.reproduceFairnessCmd())
	return cmd
}

// experimentCmd is a reproduce subcommand: no arguments, --out DIR bound
// to out, and the flags names completed with nothing.
func experimentCmd(name string, out *string, short, long, example string) *cobra.Command {
	cmd := &cobra.Command{
		Use:     name,
		Short:   short,
		Long:    long,
		Example: example,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usagef("reproduce %s: unexpected arguments %q", name, args)
			}
			return nil
		},
		ValidArgsFunction: cobra.NoFileCompletions,
	}
	addOutFlag(cmd, out, "output `DIR`, which must not exist (default results/reproduce-"+name+"-<UTC time>-<4 hex>)")
	return cmd
}

// noFileCompletion completes the flags names with nothing.
func noFileCompletion(cmd *cobra.Command, names ...string) {
	for _, n := range names {
		mustComplete(cmd, n, cobra.NoFileCompletions)
	}
}

// reproduce checks an experiment's configuration (validate: a usage
// error), runs it (run) into the new directory out (empty:
// results/reproduce-<name>-<UTC time>-<4 hex>), which must not exist, and
// prints its table, after prefix; with wall, the table ends with the
// command's wall time from the directory's creation.
func reproduce[R experiments.Report](a *app, cmd *cobra.Command, name, out string, wall bool, prefix string, validate func() error, run func(context.Context) (R, error)) error {
	if err := validate(); err != nil {
		return usagef("reproduce %s: %w", name, err)
	}
	if out == "" {
		out = filepath.Join("results", sim.NewRunID("reproduce-"+name))
	}
	if err := experiments.NewDir(out); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return usagef("reproduce %s: %s exists: a run never rewrites earlier output; choose another --out", name, out)
		}
		return fmt.Errorf("reproduce %s: %w", name, err)
	}
	start := time.Now()
	r, err := run(cmd.Context())
	if err != nil {
		return fmt.Errorf("reproduce %s: %w", name, err)
	}
	if !wall {
		start = time.Time{}
	}
	md, err := experiments.Publish(out, r, start)
	if err != nil {
		return fmt.Errorf("reproduce %s: %w", name, err)
	}
	_, err = io.WriteString(a.stdout, prefix+md)
	return err
}

// loadData loads an experiment's data set with load, named by its flag;
// a missing file is a usage error with hint.
func loadData(name, flag, hint string, load func() error) error {
	err := load()
	if errors.Is(err, fs.ErrNotExist) {
		return usagef("reproduce %s: %s: %w%s", name, flag, err, hint)
	}
	if err != nil {
		return fmt.Errorf("reproduce %s: %w", name, err)
	}
	return nil
}

// listValue is a comma-separated list flag bound to a slice. Its type is
// "string", so that help shows it as one, with its default in quotes.
type listValue[T any] struct {
	p      *[]T
	parse  func(string) (T, error)
	format func(T) string
}

func (v listValue[T]) Type() string { return "string" }

func (v listValue[T]) String() string {
	parts := make([]string, len(*v.p))
	for i, x := range *v.p {
		parts[i] = v.format(x)
	}
	return strings.Join(parts, ",")
}

func (v listValue[T]) Set(s string) error {
	var out []T
	for _, f := range strings.Split(s, ",") {
		x, err := v.parse(strings.TrimSpace(f))
		if err != nil {
			return err
		}
		out = append(out, x)
	}
	*v.p = out
	return nil
}

// intList binds a list of positive integers.
func intList(p *[]int) listValue[int] {
	return listValue[int]{p, func(s string) (int, error) {
		v, err := strconv.Atoi(s)
		if err != nil || v < 1 {
			return 0, fmt.Errorf("%q: want positive integers separated by commas", s)
		}
		return v, nil
	}, strconv.Itoa}
}

// floatList binds a list of finite numbers, and inf with withInf.
func floatList(p *[]float64, withInf bool) listValue[float64] {
	return listValue[float64]{p, func(s string) (float64, error) {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) && !(withInf && v > 0) {
			return 0, fmt.Errorf("%q: want numbers separated by commas", s)
		}
		return v, nil
	}, func(v float64) string {
		if math.IsInf(v, 1) {
			return "inf"
		}
		return strconv.FormatFloat(v, 'g', -1, 64)
	}}
}

// stringList binds a list of words.
func stringList(p *[]string) listValue[string] {
	return listValue[string]{p, func(s string) (string, error) { return s, nil }, func(s string) string { return s }}
}

// reproduceADMMCmd is `consim reproduce admm`: com-SVR-ADMM, com-SVRG-1,
// com-SVRG-2 and SGD on the portfolio problem for cov = 2 and cov = 10.
func (a *app) reproduceADMMCmd() *cobra.Command {
	var out, cov string
	var quick bool
	c := admm.DefaultConfig()
	cmd := experimentCmd("admm", &out,
		"com-SVR-ADMM and baselines on the portfolio mean-variance problem (Yu & Huang)",
		`Admm runs com-SVR-ADMM, com-SVRG-1, com-SVRG-2 and SGD on the portfolio
mean-variance problem of Yu and Huang (Section 4.1, Figures 1 and 2) for
covariance condition numbers 2 and 10, and writes admm.csv, semilog plots
(PNG and SVG) of the optimality gap against oracle calls and against CPU
time, and table.md, which it also prints, into a new directory: --out
must not exist. --alg2 adds com-SVR-ADMM Algorithm 2 (general convex);
--quick runs a small instance.`,
		`  consim reproduce admm --quick
  consim reproduce admm --cov 2 --alg2 --out results/admm-cov2`)
	fs, e := cmd.Flags(), &c.Experiment
	fs.StringVar(&cov, "cov", "both", "covariance condition number: 2, 10 or both")
	mustComplete(cmd, "cov", cobra.FixedCompletions([]cobra.Completion{"2", "10", "both"}, cobra.ShellCompDirectiveNoFileComp))
	fs.Uint64Var(&e.Seed, "seed", e.Seed, "seed of the rewards and of every sample")
	fs.IntVar(&e.Outer, "outer", e.Outer, "outer iterations of the SVRG-type methods")
	fs.BoolVar(&quick, "quick", false, "small instance (20 assets, 200 periods; defaults eta 0.005, K 400, N 2, 20 outer)")
	fs.Float64Var(&e.Params.Eta, "eta", e.Params.Eta, "step size eta, shared by all methods")
	fs.Float64Var(&e.Params.Rho, "rho", e.Params.Rho, "ADMM penalty rho")
	fs.IntVar(&e.Params.K, "k", e.Params.K, "inner iterations K per outer iteration")
	fs.IntVar(&e.Params.Batch, "batch", e.Params.Batch, "mini-batch N of the inner-function estimate")
	fs.Float64Var(&e.Mu, "mu", e.Mu, "regularizer R(w) = (mu/2)||w||^2")
	fs.BoolVar(&e.Alg2, "alg2", false, "also run com-SVR-ADMM Algorithm 2 (general convex; exact g(x^k), m queries per inner step)")
	noFileCompletion(cmd, "seed", "outer", "eta", "rho", "k", "batch", "mu")
	cmd.RunE = a.runE(func(cmd *cobra.Command, _ []string) error {
		covs := map[string][]float64{"2": {2}, "10": {10}, "both": {2, 10}}
		if c.Covs = covs[cov]; c.Covs == nil {
			return usagef("reproduce admm: --cov %q: want 2, 10 or both", cov)
		}
		if quick {
			// admm.QuickConfig's sizes, and its steps where no flag set them.
			q, set := admm.QuickConfig().Experiment, cmd.Flags().Changed
			e.Assets, e.Periods = q.Assets, q.Periods
			for name, p := range map[string]*int{"outer": &e.Outer, "k": &e.Params.K, "batch": &e.Params.Batch} {
				if !set(name) {
					*p = map[string]int{"outer": q.Outer, "k": q.Params.K, "batch": q.Params.Batch}[name]
				}
			}
			if !set("eta") {
				e.Params.Eta = q.Params.Eta
			}
		}
		return reproduce(a, cmd, "admm", out, false, "", c.Validate, c.Run)
	})
	return cmd
}

// reproduceZOSPLMCmd is `consim reproduce zo-splm`: ZO-SPLM, ZO-ConEx and
// ZO-ALM on the nonconvex QCQP of Dong et al. (Table 2 and Figure 1).
func (a *app) reproduceZOSPLMCmd() *cobra.Command {
	var out string
	c := zosplm.DefaultConfig()
	cmd := experimentCmd("zo-splm", &out,
		"ZO-SPLM and its baselines on the nonconvex QCQP (Dong et al., Table 2 and Figure 1)",
		`Zo-splm runs ZO-SPLM, ZO-ConEx and ZO-ALM on the nonconvex QCQP of Dong,
Zhao, Pu, Zhou and Yin for each n of --n: --trials instances solved from
x0 = 0 with mini-batch --k until the stochastic eps-stationarity test
holds (Table 2: iterations and CPU seconds per iteration, the process's
user + system time), and one instance per n run for --plot-iters
iterations at mini-batch --plot-k (Figure 1: the objective, and the three
measures). It writes trials.csv, traces.csv, convergence.csv, plots (PNG
and SVG) and table.md, which it also prints with the wall time, into a
new directory: --out must not exist.`,
		`  consim reproduce zo-splm
  consim reproduce zo-splm --n 50 --trials 5 --out results/zosplm-n50`)
	fs := cmd.Flags()
	fs.Var(intList(&c.Ns), "n", "comma-separated problem dimensions n")
	fs.Uint64Var(&c.Seed, "seed", c.Seed, "seed of every instance and direction")
	fs.IntVar(&c.Trials, "trials", c.Trials, "instances per n for the table")
	fs.IntVar(&c.K, "k", c.K, "mini-batch size k of the table runs")
	fs.IntVar(&c.MaxIter, "max-iter", c.MaxIter, "iteration limit of a table run")
	fs.Float64Var(&c.Eps, "eps", c.Eps, "tolerance eps of the stationarity test")
	fs.IntVar(&c.PlotK, "plot-k", c.PlotK, "mini-batch size k of the convergence runs (0: no convergence runs)")
	fs.IntVar(&c.PlotIters, "plot-iters", c.PlotIters, "iterations of the convergence runs")
	noFileCompletion(cmd, "n", "seed", "trials", "k", "max-iter", "eps", "plot-k", "plot-iters")
	cmd.RunE = a.runE(func(cmd *cobra.Command, _ []string) error {
		c.Log = a.stderr
		return reproduce(a, cmd, "zo-splm", out, true, "", c.Validate, c.Run)
	})
	return cmd
}

// reproducePenaltyCmd is `consim reproduce penalty`: the experiments of
// Lu and Xiao's Section 5 (Algorithm 1 on synthetic constrained logistic
// regression; Algorithm 2 and EAG on a9a).
func (a *app) reproducePenaltyCmd() *cobra.Command {
	var out, section, a9a string
	var a9aRows int
	c := penalty.DefaultConfig()
	cmd := experimentCmd("penalty", &out,
		"quadratic-penalty ASG and VR-ASG against EAG on constrained logistic regression (Lu & Xiao §5)",
		`Penalty runs the experiments of Lu and Xiao's Section 5. 5.1: Algorithm 1
with the constant (Theorem 1) and dynamic (Theorem 2) penalties on the
synthetic constrained stochastic logistic regression (42). 5.2: Algorithm
2 under the rules of --rules and the EAG baseline on the constrained
finite-sum logistic regression (43) built from LIBSVM a9a (--a9a). F* of
both comes from an independent augmented Lagrangian solve with a KKT
certificate. It writes penalty.csv (objective, gap and violation per
recorded iteration), log-log plots (PNG and SVG) and table.md (the
paper's claims, marked holds or does not hold, with the numbers), which
it also prints with the wall time, into a new directory: --out must not
exist.`,
		`  consim reproduce penalty
  consim reproduce penalty --section 5.1 --k51 500
  consim reproduce penalty --section 5.2 --a9a /data/a9a.gz --rules 3ii,4ii`)
	fs := cmd.Flags()
	fs.StringVar(&section, "section", "both", "experiment: 5.1, 5.2 or both")
	mustComplete(cmd, "section", cobra.FixedCompletions([]cobra.Completion{"5.1", "5.2", "both"}, cobra.ShellCompDirectiveNoFileComp))
	fs.Uint64Var(&c.Seed, "seed", c.Seed, "seed of the data, the start and the samples")
	fs.IntVar(&c.K51, "k51", c.K51, "5.1: iterations K of Algorithm 1")
	fs.IntVar(&c.Every51, "every51", c.Every51, "5.1: record every this many iterations")
	fs.IntVar(&c.N, "n", c.N, "5.1: features n")
	fs.IntVar(&c.Samples, "samples", c.Samples, "5.1: generated samples")
	fs.IntVar(&c.Core, "core", c.Core, "core constraints m (5.1 and 5.2)")
	fs.StringVar(&a9a, "a9a", defaultA9A, "5.2: LIBSVM a9a `FILE` (gzip or plain)")
	fs.IntVar(&a9aRows, "a9a-rows", 0, "5.2: use the first this many rows of a9a (0: all)")
	fs.IntVar(&c.K52, "k52", c.K52, "5.2: outer iterations K of Algorithm 2 and iterations of EAG")
	fs.IntVar(&c.Every52, "every52", c.Every52, "5.2: record every this many iterations")
	fs.Var(stringList(&c.Rules), "rules", "5.2: Algorithm 2 rules (Theorem 3(i), 3(ii), 4(i), 4(ii)); the claims use 3ii and 4ii")
	noFileCompletion(cmd, "seed", "k51", "every51", "n", "samples", "core", "a9a-rows", "k52", "every52", "rules")
	cmd.RunE = a.runE(func(cmd *cobra.Command, _ []string) error {
		c.Do51, c.Do52, c.Log = section == "5.1" || section == "both", section == "5.2" || section == "both", a.stderr
		switch {
		case !c.Do51 && !c.Do52:
			return usagef("reproduce penalty: --section %q: want 5.1, 5.2 or both", section)
		case a9aRows < 0:
			return usagef("reproduce penalty: --a9a-rows %d: want >= 0", a9aRows)
		}
		if err := c.Validate(); err != nil {
			return usagef("reproduce penalty: %w", err)
		}
		if c.Do52 {
			if err := loadData("penalty", "--a9a", " (download LIBSVM a9a, or run --section 5.1)", func() (err error) {
				c.A9A, err = penalty.LoadA9A(a9a, a9aRows)
				return err
			}); err != nil {
				return err
			}
		}
		return reproduce(a, cmd, "penalty", out, true, "", c.Validate, c.Run)
	})
	return cmd
}

// reproduceTSPCmd is `consim reproduce tsp`: TSP and the penalty
// baselines on MNIST data hyper-cleaning (Lu, ICML 2025, Section 4).
func (a *app) reproduceTSPCmd() *cobra.Command {
	var out, mnist string
	c := tsp.DefaultConfig()
	cmd := experimentCmd("tsp", &out,
		"TSP, BOME, V-PBGD and MEHA on MNIST data hyper-cleaning (Lu, ICML 2025, §4)",
		`Tsp runs TSP (Algorithm 1) and the baselines BOME, V-PBGD and MEHA on the
data hyper-cleaning problem of Lu's Section 4: 5,000 MNIST training
samples, half of them with a wrong label, 5,000 validation samples and
the 10,000 test images (--mnist DIR holds the four MNIST .gz files). Each
of --seeds seeds (--seed, --seed+1, ...) draws its own split and
corruption; every method runs --rounds rounds from x = 0, y = 0 and is
measured every --every rounds: the test accuracy of y and the F1 of the
clean-sample detection x_i >= 0. It writes tsp.csv, plots (PNG and SVG) of
both measures against rounds (means over the seeds) and table.md (peak and
final accuracy and F1, mean ± std over the seeds, next to the paper's),
which it also prints with the wall time, into a new directory: --out must
not exist. The seconds in tsp.csv are the process CPU time of the
method's steps; --parallel runs that many seeds at once, and the seconds
are then wall time.`,
		`  consim reproduce tsp
  consim reproduce tsp --seeds 2 --parallel 2
  consim reproduce tsp --mnist /data/mnist --rounds 300 --seeds 1`)
	fs := cmd.Flags()
	fs.StringVar(&mnist, "mnist", defaultMNIST, "`DIR` holding {train,t10k}-{images-idx3,labels-idx1}-ubyte.gz")
	mustComplete(cmd, "mnist", func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
		return nil, cobra.ShellCompDirectiveFilterDirs
	})
	fs.Uint64Var(&c.Seed, "seed", c.Seed, "first seed; seed i is --seed + i")
	fs.IntVar(&c.Seeds, "seeds", c.Seeds, "number of seeds (split and corruption draws)")
	fs.IntVar(&c.Rounds, "rounds", c.Rounds, "rounds (outer iterations) of every method")
	fs.IntVar(&c.Every, "every", c.Every, "measure every this many rounds")
	fs.Var(stringList(&c.Methods), "methods", "comma-separated methods among TSP, BOME, PBGD, MEHA")
	fs.IntVar(&c.Train, "train", c.Train, "training samples (half corrupted)")
	fs.IntVar(&c.Val, "val", c.Val, "validation samples")
	fs.IntVar(&c.Parallel, "parallel", c.Parallel, "seeds run at once")
	noFileCompletion(cmd, "seed", "seeds", "rounds", "every", "methods", "train", "val", "parallel")
	cmd.RunE = a.runE(func(cmd *cobra.Command, _ []string) error {
		c.Log = a.stderr
		if err := c.Validate(); err != nil {
			return usagef("reproduce tsp: %w", err)
		}
		if err := loadData("tsp", "--mnist", "", func() (err error) { c.Data, err = tsp.LoadMNIST(mnist); return err }); err != nil {
			return err
		}
		return reproduce(a, cmd, "tsp", out, true, "", c.Validate, c.Run)
	})
	return cmd
}

// reproduceSlicingCmd is `consim reproduce slicing`: the regularized ALM
// (Algorithm 1 of Huang, Zhang and Alacaoglu, Section 6.2) on random
// network-slicing instances, without and with message loss.
func (a *app) reproduceSlicingCmd() *cobra.Command {
	var out string
	var seed uint64
	c := slicing.DefaultConfig()
	instances := len(c.Seeds)
	cmd := experimentCmd("slicing", &out,
		"the regularized ALM on random network-slicing instances, with and without loss (ALM paper §6.2)",
		`Slicing runs the per-node agents of the smoothed linearized ALM (Algorithm
1) on the regularized network-slicing problem (6.5) of Huang, Zhang and
Alacaoglu (Section 6.2) for --instances random instances (seeds --seed,
--seed+1, ...), once per loss rate of --losses, in lockstep with emulated
Bernoulli message loss, and compares each final point with the LP bound
and with its rounding to a slice. It writes runs.csv, plots (PNG and SVG)
of the gap to the LP bound and of the binary fraction per instance, and
table.md, which it also prints with the wall time, into a new directory:
--out must not exist.`,
		`  consim reproduce slicing
  consim reproduce slicing --instances 3 --rounds 2000 --losses 0`)
	fs := cmd.Flags()
	fs.Uint64Var(&seed, "seed", c.Seeds[0], "seed of the first instance; instance i has seed --seed + i")
	fs.IntVar(&instances, "instances", instances, "number of random instances")
	fs.IntVar(&c.Rounds, "rounds", c.Rounds, "round budget of a run")
	fs.IntVar(&c.Every, "every", c.Every, "period (rounds) of the stopping test: binary with violation <= 1e-4")
	fs.Var(floatList(&c.Losses, false), "losses", "comma-separated message loss rates in [0, 1)")
	fs.Uint64Var(&c.LossSeed, "loss-seed", c.LossSeed, "seed of the emulated loss")
	fs.IntVar(&c.Gen.Nodes, "nodes", c.Gen.Nodes, "nodes of an instance")
	fs.IntVar(&c.Gen.Flows, "flows", c.Gen.Flows, "flows of an instance")
	noFileCompletion(cmd, "seed", "instances", "rounds", "every", "losses", "loss-seed", "nodes", "flows")
	cmd.RunE = a.runE(func(cmd *cobra.Command, _ []string) error {
		c.Seeds = make([]uint64, max(instances, 0))
		for i := range c.Seeds {
			c.Seeds[i] = seed + uint64(i)
		}
		return reproduce(a, cmd, "slicing", out, true, "", c.Validate, c.Run)
	})
	return cmd
}

// reproduceRatesCmd is `consim reproduce rates`: parameter-free rate
// predictions against observed contraction, for gossip and the ALM.
func (a *app) reproduceRatesCmd() *cobra.Command {
	var out string
	c := rates.DefaultConfig()
	cmd := experimentCmd("rates", &out,
		"predicted against observed per-round contraction of gossip and the ALM, no fitted constant",
		`Rates compares parameter-free rate predictions with observed contraction on
a ring, a torus and an Erdos-Renyi graph of --n agents (ER: edge
probability --er-q, seed --seed, conditioned on being connected), each
edge present with probability p in every round and draw, for p in --p.

Gossip: dgd with no objective (x_{t+1} = W_t x_t, Metropolis-Hastings
weights on the present edges). Predicted: rho2, the exact long-run
mean-square factor of the disagreement (graph.GossipRates), beside
lambda_max(E[W^T P W]) (the worst single round) and rho(E[W] - 11^T/N)^2.
Observed: the per-round factor of the mean over seeds of
sum_i ||x_i - xbar||^2, fitted on the window before its noise floor
(detected: metrics.FitBeforeFloor), with a 95% confidence interval from
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
		`  consim reproduce rates
  consim reproduce rates --p 1,0.3 --methods gossip --budget 100000`)
	fs := cmd.Flags()
	fs.Var(floatList(&c.Ps, false), "p", "comma-separated edge presence probabilities in (0, 1]")
	fs.Var(stringList(&c.Methods), "methods", "comma-separated: gossip, alm")
	fs.IntVar(&c.N, "n", c.N, "agents of the ring and the Erdos-Renyi graph (the torus is 4x4 at 16)")
	fs.Float64Var(&c.ERQ, "er-q", c.ERQ, "edge probability of the Erdos-Renyi topology")
	fs.Uint64Var(&c.Seed, "seed", c.Seed, "seed of the Erdos-Renyi topology and of the ALM problem")
	fs.IntVar(&c.Budget, "budget", c.Budget, "gossip: rounds per row, over all seeds (at least 20 seeds)")
	fs.IntVar(&c.ALMSeeds, "alm-seeds", c.ALMSeeds, "ALM: runs per row")
	fs.IntVar(&c.ALMRounds, "alm-rounds", c.ALMRounds, "ALM: most rounds per run")
	fs.IntVar(&c.Batches, "batches", c.Batches, "batches of the seeds for the confidence intervals")
	noFileCompletion(cmd, "p", "methods", "n", "er-q", "seed", "budget", "alm-seeds", "alm-rounds", "batches")
	cmd.RunE = a.runE(func(cmd *cobra.Command, _ []string) error {
		c.Log = a.stdout // the rows' progress lines, then the table
		return reproduce(a, cmd, "rates", out, true, "\n", c.Validate, c.Run)
	})
	return cmd
}

// reproduceStormCmd is `consim reproduce storm`: ALM-STORM against the ALM
// at equal sample budget, stationarity against samples on log-log axes.
func (a *app) reproduceStormCmd() *cobra.Command {
	var out string
	c := storm.DefaultConfig()
	cmd := experimentCmd("storm", &out,
		"ALM-STORM against the ALM: Moreau stationarity against samples, fitted slopes (Huang, Zhang, Alacaoglu §5)",
		`Storm runs the ALM (Algorithm 2, practical preset) and ALM-STORM
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
		`  consim reproduce storm
  consim reproduce storm --seeds 3 --horizons 500,2000,8000`)
	fs := cmd.Flags()
	fs.IntVar(&c.Seeds, "seeds", c.Seeds, "seeds 1..seeds (instance, edges and samples)")
	fs.Var(intList(&c.Horizons), "horizons", "horizons T, comma-separated")
	fs.IntVar(&c.FitFrom, "fit-from", c.FitFrom, "fit the slopes over the horizons T >= this (where both presets' steps depend on T: ALM from T > 400, ALM-STORM from T > 3450 on the default ring)")
	fs.IntVar(&c.Agents, "agents", c.Agents, "agents N on the ring")
	fs.IntVar(&c.Dim, "dim", c.Dim, "dimension n")
	fs.IntVar(&c.Batch, "batch", c.Batch, "minibatch b of a stochastic gradient")
	fs.Float64Var(&c.P, "p", c.P, "edge presence probability")
	fs.IntVar(&c.Points, "points", c.Points, "stationarity evaluations per run")
	fs.Float64Var(&c.StormCTau, "storm-c-tau", c.StormCTau, "ALM-STORM's c_tau")
	fs.IntVar(&c.CertBatch, "cert-batch", c.CertBatch, "batch B of the certificate (3.2), per agent")
	noFileCompletion(cmd, "seeds", "horizons", "fit-from", "agents", "dim", "batch", "p", "points", "storm-c-tau", "cert-batch")
	cmd.RunE = a.runE(func(cmd *cobra.Command, _ []string) error {
		c.Log = a.stderr
		return reproduce(a, cmd, "storm", out, true, "", c.Validate, c.Run)
	})
	return cmd
}

// reproduceCompareCmd is `consim reproduce compare`: the comparison of the
// ALM family against the baselines on the nonconvex problem.
func (a *app) reproduceCompareCmd() *cobra.Command {
	var out string
	c := compare.DefaultConfig()
	cmd := experimentCmd("compare", &out,
		"ALM, ALM-STORM, DGD, gradient tracking and the penalty methods: rounds, messages and samples to consensus and stationarity targets",
		`Compare runs the ALM (practical), ALM-STORM (practical), DGD (stochastic
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
		`  consim reproduce compare
  consim reproduce compare --p 1,0.2 --seeds 3 --rounds 5000`)
	fs := cmd.Flags()
	fs.IntVar(&c.Seeds, "seeds", c.Seeds, "seeds 1..seeds")
	fs.Var(floatList(&c.Ps, false), "p", "edge presence probabilities, comma-separated")
	fs.IntVar(&c.Rounds, "rounds", c.Rounds, "horizon T of every run")
	fs.IntVar(&c.Every, "every", c.Every, "rounds between measurements")
	fs.Float64Var(&c.ConsTol, "consensus", c.ConsTol, "consensus error target")
	fs.Float64Var(&c.StatTol, "stationarity", c.StatTol, "stationarity target")
	fs.Var(stringList(&c.Methods), "methods", "methods, comma-separated, of "+compare.MethodKeys)
	fs.Float64Var(&c.DGDC, "dgd-c", c.DGDC, "DGD step alpha = c / max_i L_i")
	fs.Float64Var(&c.TrackingC, "tracking-c", c.TrackingC, "gradient tracking step alpha = c / max_i L_i")
	noFileCompletion(cmd, "seeds", "p", "rounds", "every", "consensus", "stationarity", "methods", "dgd-c", "tracking-c")
	cmd.RunE = a.runE(func(cmd *cobra.Command, _ []string) error {
		c.Log = a.stderr
		return reproduce(a, cmd, "compare", out, true, "", c.Validate, c.Run)
	})
	return cmd
}

// reproduceFairnessCmd is `consim reproduce fairness`: section 6.3 of the
// ALM paper, fairness-constrained classification on Adult.
func (a *app) reproduceFairnessCmd() *cobra.Command {
	var out, adult string
	c := fairness.DefaultConfig()
	cmd := experimentCmd("fairness", &out,
		"fairness-constrained classification on Adult with Algorithm 1 (ALM paper §6.3)",
		`Fairness solves problem (6.6) of the ALM paper on UCI Adult: a linear
classifier whose covariance with the sensitive attribute (sex) is at most
c in absolute value, for the logistic loss and the two nonconvex losses
(logistic difference (6.7) with mu = 1, smoothed 0-1 (6.8)), by Algorithm 1
(stochastic smoothed linearized ALM) from theta = 0. Features: numeric
fields standardized, categorical fields one-hot, sex, race and fnlwgt
dropped, records with a missing field dropped; train on adult.data, test
on adult.test (--adult DIR). For the convex logistic loss an independent
solve (Lagrangian bisection over FISTA) gives the optimum beside it. It
writes fairness.csv and table.md (test accuracy, training covariance,
test p%-rule per loss and c) into a new directory: --out must not exist.`,
		`  consim reproduce fairness
  consim reproduce fairness --losses logistic --cs inf,0.01 --rounds 5000
  consim reproduce fairness --sampled`)
	fs, p := cmd.Flags(), &c.Params
	fs.StringVar(&adult, "adult", defaultAdult, "`DIR` holding adult.data[.gz] and adult.test[.gz]")
	fs.Var(stringList(&c.Losses), "losses", "losses, comma-separated: logistic, logdiff, smooth01")
	fs.Var(floatList(&c.Cs, true), "cs", "covariance thresholds c, comma-separated (inf: unconstrained)")
	fs.IntVar(&p.Rounds, "rounds", p.Rounds, "iterations T of Algorithm 1")
	fs.IntVar(&p.Batch, "batch", p.Batch, "mini-batch size")
	fs.Float64Var(&p.Rho, "rho", p.Rho, "penalty rho (0: 1, or 0.1 with --sampled)")
	fs.Uint64Var(&p.Seed, "seed", p.Seed, "seed of the samples")
	fs.BoolVar(&p.SampledConstraint, "sampled", false, "stochastic-constraint form: the covariance row estimated on each mini-batch")
	noFileCompletion(cmd, "losses", "cs", "rounds", "batch", "rho", "seed")
	cmd.RunE = a.runE(func(cmd *cobra.Command, _ []string) error {
		c.Log = a.stderr
		if err := c.Validate(); err != nil {
			return usagef("reproduce fairness: %w", err)
		}
		if err := loadData("fairness", "--adult", " (the UCI Adult files adult.data and adult.test, gzip or plain)", func() (err error) {
			c.Data, err = fairness.LoadAdult(adult)
			return err
		}); err != nil {
			return err
		}
		return reproduce(a, cmd, "fairness", out, true, "", c.Validate, c.Run)
	})
	return cmd
}
