package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
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
	problemslicing "github.com/consim/consim/problems/slicing"
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
		Short: "reproduce a paper's experiment (admm, zo-splm, penalty, tsp, slicing, rates, storm, compare, fairness, compression)",
		RunE:  groupRunE("experiment"),
	}
	withHelp(cmd, "reproduce")
	cmd.AddCommand(a.reproduceADMMCmd(), a.reproduceZOSPLMCmd(), a.reproducePenaltyCmd(), a.reproduceTSPCmd(), a.reproduceSlicingCmd(), a.reproduceRatesCmd(), a.reproduceStormCmd(), a.reproduceCompareCmd(), a.reproduceFairnessCmd(), a.reproduceCompressionCmd())
	return cmd
}

// experimentCmd is a reproduce subcommand, its help in
// help/reproduce_<name>.txt: no arguments, and --out DIR bound to out.
func experimentCmd(name string, out *string, short string) *cobra.Command {
	cmd := &cobra.Command{
		Use:   name,
		Short: short,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usagef("reproduce %s: unexpected arguments %q", name, args)
			}
			return nil
		},
		ValidArgsFunction: cobra.NoFileCompletions,
	}
	withHelp(cmd, "reproduce_"+name)
	addOutFlag(cmd, out, "output `DIR`, which must not exist (default results/reproduce-"+name+"-<UTC time>-<4 hex>)")
	return cmd
}

// noFileCompletion completes the flags names with nothing.
func noFileCompletion(cmd *cobra.Command, names ...string) {
	for _, n := range names {
		mustComplete(cmd, n, cobra.NoFileCompletions)
	}
}

// dataSet is an experiment's data set: the flag that names it, what to
// do when it is missing, and load, which reads it into the Config.
type dataSet struct {
	flag, hint string
	load       func() error
}

// reproduce checks an experiment's configuration (validate: a usage
// error), loads its data set, if any, and checks again (validate and run
// must then see the loaded Config: closures, not method values); runs it (run) into
// the new directory out (empty: results/reproduce-<name>-<UTC time>-<4
// hex>), which must not exist; and prints its table after prefix. With
// wall, the table ends with the command's wall time from the directory's
// creation.
func reproduce[R experiments.Report](a *app, cmd *cobra.Command, name, out string, wall bool, prefix string, data *dataSet, validate func() error, run func(context.Context) (R, error)) error {
	if err := validate(); err != nil {
		return usagef("reproduce %s: %w", name, err)
	}
	if data != nil {
		err := data.load()
		if errors.Is(err, fs.ErrNotExist) {
			return usagef("reproduce %s: %s: %w%s", name, data.flag, err, data.hint)
		}
		if err != nil {
			return fmt.Errorf("reproduce %s: %w", name, err)
		}
		if err := validate(); err != nil {
			return usagef("reproduce %s: %w", name, err)
		}
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

// reproduceADMMCmd is `consim reproduce admm`.
func (a *app) reproduceADMMCmd() *cobra.Command {
	var out, cov string
	var quick bool
	c := admm.DefaultConfig()
	cmd := experimentCmd("admm", &out,
		"com-SVR-ADMM and baselines on the portfolio mean-variance problem (Yu & Huang)")
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
		return reproduce(a, cmd, "admm", out, false, "", nil, c.Validate, c.Run)
	})
	return cmd
}

// reproduceZOSPLMCmd is `consim reproduce zo-splm`.
func (a *app) reproduceZOSPLMCmd() *cobra.Command {
	var out string
	c := zosplm.DefaultConfig()
	cmd := experimentCmd("zo-splm", &out,
		"ZO-SPLM and its baselines on the nonconvex QCQP (Dong et al., Table 2 and Figure 1)")
	fs := cmd.Flags()
	fs.Var(intList(&c.Ns), "n", "comma-separated problem dimensions n")
	fs.Uint64Var(&c.Seed, "seed", c.Seed, "seed of every instance and direction")
	fs.IntVar(&c.Trials, "trials", c.Trials, "instances per n for the table")
	fs.IntVar(&c.K, "k", c.K, "mini-batch size k of the table runs")
	fs.IntVar(&c.MaxIter, "max-iter", c.MaxIter, "iteration limit of a table run")
	fs.Float64Var(&c.Eps, "eps", c.Eps, "tolerance eps of the stationarity test")
	fs.IntVar(&c.PlotK, "plot-k", c.PlotK, "mini-batch size k of the convergence runs (0: no convergence runs)")
	fs.IntVar(&c.PlotIters, "plot-iters", c.PlotIters, "iterations of the convergence runs")
	fs.Var(listValue[zosplm.Regime]{&c.Regimes, zosplm.ParseRegime, func(r zosplm.Regime) string { return string(r) }},
		"regimes", "comma-separated parameter regimes: equal-step (the same primal step for every method), theory (each in its analysis' regime), tuned (each method's default rule)")
	fs.IntVar(&c.Parallel, "parallel", c.Parallel, "runs at once (each timed on its own thread)")
	doc := docFlag(cmd)
	noFileCompletion(cmd, "n", "seed", "trials", "k", "max-iter", "eps", "plot-k", "plot-iters", "regimes", "parallel")
	cmd.RunE = a.runE(func(cmd *cobra.Command, _ []string) error {
		c.Log = a.stderr
		out = defaultOut(out, "zo-splm")
		if err := checkDoc(*doc, zosplm.DocBlock); err != nil {
			return err
		}
		if err := reproduce(a, cmd, "zo-splm", out, true, "", nil, c.Validate, c.Run); err != nil {
			return err
		}
		return updateDoc(*doc, zosplm.DocBlock, func() (string, error) { return zosplm.DocTable(out) })
	})
	return cmd
}

// docFlag adds --doc PAGE to a reproduce command.
func docFlag(cmd *cobra.Command) *string {
	var doc string
	cmd.Flags().StringVar(&doc, "doc", "", "also rewrite the generated block of the docs `PAGE` (docs/reproductions/...) with the table")
	return &doc
}

// defaultOut is out, or the default output directory of name when out is
// empty, so that the command knows where its run went.
func defaultOut(out, name string) string {
	if out == "" {
		return filepath.Join("results", sim.NewRunID("reproduce-"+name))
	}
	return out
}

// checkDoc checks, before the run, that the docs page doc (if any) has
// the generated block b.
func checkDoc(doc string, b experiments.Block) error {
	if doc == "" {
		return nil
	}
	raw, err := os.ReadFile(doc)
	if err != nil {
		return usagef("--doc: %w", err)
	}
	if _, err := b.Read(string(raw)); err != nil {
		return usagef("--doc %s has %w", doc, err)
	}
	return nil
}

// updateDoc rewrites the block b of the docs page doc (nothing when doc is
// empty) with what content returns.
func updateDoc(doc string, b experiments.Block, content func() (string, error)) error {
	if doc == "" {
		return nil
	}
	t, err := content()
	if err != nil {
		return fmt.Errorf("--doc: %w", err)
	}
	if err := b.Write(doc, t); err != nil {
		return fmt.Errorf("--doc: %w", err)
	}
	return nil
}

// reproducePenaltyCmd is `consim reproduce penalty`.
func (a *app) reproducePenaltyCmd() *cobra.Command {
	var out, section, a9a string
	var a9aRows int
	c := penalty.DefaultConfig()
	cmd := experimentCmd("penalty", &out,
		"quadratic-penalty ASG and VR-ASG against EAG on constrained logistic regression (Lu & Xiao §5)")
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
	fs.Var(stringList(&c.Rules), "rules", "5.2: Algorithm 2 rules: 3i, 3ii, 4i, 4ii (Theorem 3(i), 3(ii), 4(i), 4(ii)) and 3ii-sqrt, 4ii-sqrt (3(ii) as printed, rho = sqrt(sK), and (34) read the same way); the claims about 3(ii) and 4(ii) are read under each reading whose rules ran")
	doc := docFlag(cmd)
	noFileCompletion(cmd, "seed", "k51", "every51", "n", "samples", "core", "a9a-rows", "k52", "every52", "rules")
	cmd.RunE = a.runE(func(cmd *cobra.Command, _ []string) error {
		c.Do51, c.Do52, c.Log = section == "5.1" || section == "both", section == "5.2" || section == "both", a.stderr
		out = defaultOut(out, "penalty")
		if err := checkDoc(*doc, penalty.DocBlock); err != nil {
			return err
		}
		switch {
		case !c.Do51 && !c.Do52:
			return usagef("reproduce penalty: --section %q: want 5.1, 5.2 or both", section)
		case a9aRows < 0:
			return usagef("reproduce penalty: --a9a-rows %d: want >= 0", a9aRows)
		}
		var data *dataSet
		if c.Do52 {
			data = &dataSet{"--a9a", " (download LIBSVM a9a, or run --section 5.1)", func() (err error) {
				c.A9A, err = penalty.LoadA9A(a9a, a9aRows)
				return err
			}}
		}
		// Closures, not method values: the data is loaded into c first.
		if err := reproduce(a, cmd, "penalty", out, true, "", data, func() error { return c.Validate() },
			func(ctx context.Context) (*penalty.Result, error) { return c.Run(ctx) }); err != nil {
			return err
		}
		return updateDoc(*doc, penalty.DocBlock, func() (string, error) { return penalty.DocTable(out) })
	})
	return cmd
}

// reproduceTSPCmd is `consim reproduce tsp`.
func (a *app) reproduceTSPCmd() *cobra.Command {
	var out, mnist string
	c := tsp.DefaultConfig()
	cmd := experimentCmd("tsp", &out,
		"TSP, BOME, V-PBGD and MEHA on MNIST data hyper-cleaning (Lu, ICML 2025, §4)")
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
		data := &dataSet{"--mnist", "", func() (err error) { c.Data, err = tsp.LoadMNIST(mnist); return err }}
		// Closures, not method values: the data is loaded into c first.
		return reproduce(a, cmd, "tsp", out, true, "", data, func() error { return c.Validate() },
			func(ctx context.Context) (*tsp.Result, error) { return c.Run(ctx) })
	})
	return cmd
}

// reproduceSlicingCmd is `consim reproduce slicing`.
func (a *app) reproduceSlicingCmd() *cobra.Command {
	var out string
	var seed uint64
	c := slicing.DefaultConfig()
	instances := len(c.Seeds)
	cmd := experimentCmd("slicing", &out,
		"the regularized ALM on random network-slicing instances, with and without loss (ALM paper §6.2)")
	fs := cmd.Flags()
	fs.Uint64Var(&seed, "seed", c.Seeds[0], "seed of the first instance; instance i has seed --seed + i")
	fs.IntVar(&instances, "instances", instances, "number of random instances")
	fs.IntVar(&c.Rounds, "rounds", c.Rounds, "round budget of a run")
	fs.IntVar(&c.Every, "every", c.Every, "period (rounds) of the stopping test: binary with violation <= 1e-4")
	fs.Var(floatList(&c.Losses, false), "losses", "comma-separated message loss rates in [0, 1)")
	fs.Uint64Var(&c.LossSeed, "loss-seed", c.LossSeed, "seed of the emulated loss")
	fs.IntVar(&c.Gen.Nodes, "nodes", c.Gen.Nodes, "nodes of an instance")
	fs.IntVar(&c.Gen.Flows, "flows", c.Gen.Flows, "flows of an instance")
	fs.IntVar(&c.MaxNodes, "bb-nodes", c.MaxNodes, "tree-node limit of the branch and bound of each binary optimum (0: none)")
	var optima string
	fs.StringVar(&optima, "optima", "", "CSV file seed,binary_opt of binary optima computed elsewhere (docs/reproductions/slicing-optima.csv: scipy's MILP solver on seeds 1..20); its seeds skip the branch and bound")
	noFileCompletion(cmd, "seed", "instances", "rounds", "every", "losses", "loss-seed", "nodes", "flows", "bb-nodes")
	cmd.RunE = a.runE(func(cmd *cobra.Command, _ []string) error {
		c.Seeds = make([]uint64, max(instances, 0))
		for i := range c.Seeds {
			c.Seeds[i] = seed + uint64(i)
		}
		if c.MaxNodes < 0 {
			return usagef("--bb-nodes %d: want >= 0", c.MaxNodes)
		}
		if optima != "" {
			f, err := os.Open(optima)
			if err != nil {
				return usagef("--optima: %w", err)
			}
			c.Optima, err = problemslicing.ReadOptima(f)
			f.Close()
			if err != nil {
				return usagef("--optima %s: %w", optima, err)
			}
			if c.Gen != problemslicing.Medium {
				return usagef("--optima holds the optima of the medium instances: --nodes and --flows must keep their defaults")
			}
		}
		return reproduce(a, cmd, "slicing", out, true, "", nil, c.Validate, c.Run)
	})
	return cmd
}

// reproduceRatesCmd is `consim reproduce rates`.
func (a *app) reproduceRatesCmd() *cobra.Command {
	var out string
	c := rates.DefaultConfig()
	cmd := experimentCmd("rates", &out,
		"predicted against observed per-round contraction of gossip and the ALM, no fitted constant")
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
		return reproduce(a, cmd, "rates", out, true, "\n", nil, c.Validate, c.Run)
	})
	return cmd
}

// reproduceStormCmd is `consim reproduce storm`.
func (a *app) reproduceStormCmd() *cobra.Command {
	var out string
	c := storm.DefaultConfig()
	cmd := experimentCmd("storm", &out,
		"ALM-STORM against the ALM: Moreau stationarity against samples, fitted slopes (Huang, Zhang, Alacaoglu §5)")
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
		return reproduce(a, cmd, "storm", out, true, "", nil, c.Validate, c.Run)
	})
	return cmd
}

// reproduceCompareCmd is `consim reproduce compare`.
func (a *app) reproduceCompareCmd() *cobra.Command {
	var out string
	c := compare.DefaultConfig()
	cmd := experimentCmd("compare", &out,
		"ALM, ALM-STORM, DGD, gradient tracking and the penalty methods: rounds, messages and samples to consensus and stationarity targets")
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
		return reproduce(a, cmd, "compare", out, true, "", nil, c.Validate, c.Run)
	})
	return cmd
}

// reproduceFairnessCmd is `consim reproduce fairness`.
func (a *app) reproduceFairnessCmd() *cobra.Command {
	var out, adult string
	c := fairness.DefaultConfig()
	cmd := experimentCmd("fairness", &out,
		"fairness-constrained classification on Adult with Algorithm 1 (ALM paper §6.3)")
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
		data := &dataSet{"--adult", " (the UCI Adult files adult.data and adult.test, gzip or plain)", func() (err error) {
			c.Data, err = fairness.LoadAdult(adult)
			return err
		}}
		// Closures, not method values: the data is loaded into c first.
		return reproduce(a, cmd, "fairness", out, true, "", data, func() error { return c.Validate() },
			func(ctx context.Context) (*fairness.Result, error) { return c.Run(ctx) })
	})
	return cmd
}
