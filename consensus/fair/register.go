package fair

import (
	"fmt"
	"math"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/consensus/registry"
	"github.com/consim/consim/observe"
	"github.com/consim/consim/problems/fairness"
)

// Params is the algorithm block of fair_alm: the constants of Algorithm 1
// that are not the problem's (c and R are problem.c and problem.box),
// under the shared key names (docs/parameters.md). A zero step takes the
// practical rule of Resolve.
type Params struct {
	Step              float64 `yaml:"step" doc:"primal step tau >= 0 (0: 1/(2 L_K), L_K = L_f + mu + rho ||A||^2)"`
	DualStep          float64 `yaml:"dual_step" doc:"dual step eta >= 0 (0: rho/2)"`
	Penalty           float64 `yaml:"penalty" doc:"penalty rho >= 0 of the augmented Lagrangian (0: 1, or 0.1 with sampled_constraint)"`
	ProxWeight        float64 `yaml:"prox_weight" doc:"proximal weight mu >= 0 of (mu/2)||x - z||^2 (0: L_f)"`
	Smoothing         float64 `yaml:"smoothing" doc:"smoothing step beta in [0, 1] of z <- z + beta (x - z) (0: min(1, tau mu/2))"`
	Batch             int     `yaml:"batch" doc:"mini-batch size >= 1, at most the training rows"`
	SampledConstraint bool    `yaml:"sampled_constraint" doc:"estimate the covariance row a on every mini-batch (the stochastic-constraint form)"`
}

// DefaultParams returns the practical rule with a mini-batch of 32.
func DefaultParams() *Params { return &Params{Batch: 32} }

// unitOrZero is 0 <= x <= 1.
var unitOrZero = registry.Range{In: func(x float64) bool { return x >= 0 && x <= 1 }, Want: "in [0, 1] (0: the practical rule)"}

// Validate checks the values that need no instance.
func (p *Params) Validate() error {
	var errs registry.FieldErrors
	errs.Check("step", &p.Step, registry.NonNegative)
	errs.Check("dual_step", &p.DualStep, registry.NonNegative)
	errs.Check("penalty", &p.Penalty, registry.NonNegative)
	errs.Check("prox_weight", &p.ProxWeight, registry.NonNegative)
	errs.Check("smoothing", &p.Smoothing, unitOrZero)
	if p.Batch < 1 {
		errs.Add("batch", "must be >= 1, got %d", p.Batch)
	}
	return errs.Err()
}

// Algorithm describes fair_alm to the registry: Algorithm 1 on a fairness
// problem (package problems/fairness) by N data-parallel agents, agent i
// holding the i-th of N contiguous blocks of the training rows and a
// replica of (theta, s); every round is one all-reduce of the mini-batch
// sums (round 0 also computes zbar and the covariance row a), so the
// graph's edges carry nothing. Rounds is T, the run seed seeds the
// mini-batches, and Solve on the same blocks is the reference.
func Algorithm() registry.Algorithm {
	return registry.Algorithm{
		Name:    "fair_alm",
		Summary: "Algorithm 1 of the ALM paper on fairness-constrained classification: data-parallel agents all-reducing mini-batch sums",
		New:     func() registry.Params { return DefaultParams() },
		Build: registry.BuildWith(func(p registry.Params, env *registry.Env, inst fairness.Provider) (registry.Run, error) {
			return NewRun(inst, *p.(*Params), env.N, env.Rounds, env.Seed)
		}),
		Needs:    []string{fairness.Cap},
		NeedsDoc: "a fairness-constrained classification problem",
		Roles:    registry.Shards,
	}
}

// Run is fair_alm resolved against one instance.
type Run struct {
	inst   fairness.Provider
	d      *fairness.Data
	loss   fairness.Loss
	cfg    Config
	res    Resolved
	bounds []int
}

var (
	_ registry.Run        = (*Run)(nil)
	_ registry.Referencer = (*Run)(nil)
	_ registry.Measurer   = (*Run)(nil)
	_ registry.Evaluator  = (*Run)(nil)
)

// NewRun resolves p on inst for n agents over rounds rounds with the
// sample seed seed: agent i holds the training rows [i m/n, (i+1) m/n).
func NewRun(inst fairness.Provider, p Params, n, rounds int, seed uint64) (*Run, error) {
	d := inst.Data()
	m := d.Rows()
	if n < 1 || n > m {
		return nil, fmt.Errorf("fair_alm: %d agents for %d training rows: every agent needs a row", n, m)
	}
	if p.Batch > m {
		return nil, registry.FieldErrors{{Key: "batch", Msg: fmt.Sprintf("%d exceeds the %d training rows", p.Batch, m)}}
	}
	cfg := Config{C: inst.C(), R: inst.R(), Rho: p.Penalty, Tau: p.Step, Eta: p.DualStep, Beta: p.Smoothing, Mu: p.ProxWeight,
		Batch: p.Batch, Rounds: rounds, SampledConstraint: p.SampledConstraint, Seed: seed}
	cfg, res, err := Resolve(d, inst.Loss(), cfg)
	if err != nil {
		return nil, err
	}
	bounds := make([]int, n+1)
	for i := range bounds {
		bounds[i] = i * m / n
	}
	return &Run{inst: inst, d: d, loss: inst.Loss(), cfg: cfg, res: res, bounds: bounds}, nil
}

// Agent builds agent i with its block of rows.
func (r *Run) Agent(i int) (consensus.Agent, error) {
	if i < 0 || i+1 >= len(r.bounds) {
		return nil, fmt.Errorf("fair_alm: agent id %d is outside [0, %d)", i, len(r.bounds)-1)
	}
	lo, hi := r.bounds[i], r.bounds[i+1]
	return &Agent{id: i, lo: lo, data: r.d.Slice(lo, hi), loss: r.loss, p: r.cfg, n: r.d.Rows()}, nil
}

// Resolved lists the steps after the practical rule, under the symbols
// of the paper, and the constants of Resolve.
func (r *Run) Resolved() []registry.Value {
	c := r.cfg
	return []registry.Value{
		{Name: "c", Value: c.C, Note: "problem.c"},
		{Name: "R", Value: c.R, Note: "problem.box"},
		{Name: "rho", Value: c.Rho}, {Name: "tau", Value: c.Tau}, {Name: "eta", Value: c.Eta},
		{Name: "beta", Value: c.Beta}, {Name: "mu", Value: c.Mu},
		{Name: "batch", Value: float64(c.Batch)},
		{Name: "L_f", Value: r.res.Lf, Note: "curvature of the loss x lambda_max((1/n) X^T X), power iteration"},
		{Name: "L_K", Value: r.res.LK, Note: "L_f + mu + rho ||A||^2"},
	}
}

// Reference runs Solve on the agents' blocks for rounds iterations and
// returns (theta, s) for every agent: the agents hold replicas of it.
func (r *Run) Reference(rounds int) ([][]float64, error) {
	if rounds < 1 {
		return nil, fmt.Errorf("fair_alm: reference of %d rounds: want >= 1", rounds)
	}
	cfg := r.cfg
	cfg.Rounds = rounds
	res, err := Solve(r.d, r.loss, cfg, r.bounds...)
	if err != nil {
		return nil, err
	}
	x := append(append([]float64(nil), res.Theta...), res.Slack)
	xs := make([][]float64, len(r.bounds)-1)
	for i := range xs {
		xs[i] = append([]float64(nil), x...)
	}
	return xs, nil
}

// Optimum is L(theta*) of the independent solve for a convex loss, NaN
// otherwise.
func (r *Run) Optimum() (float64, bool, error) {
	_, f, ok, err := r.inst.Optimum()
	if err != nil {
		return 0, false, err
	}
	if !ok {
		return math.NaN(), false, nil
	}
	return f, true, nil
}

// Measures declares the measures of the classifier beyond the objective,
// which Evaluate computes.
func (r *Run) Measures() []consensus.Measure {
	return []consensus.Measure{
		{Name: "covariance", Reduce: consensus.ReduceMax, Evaluated: true, Doc: "a^T theta, the covariance of z and theta^T x on the training data"},
		{Name: "accuracy", Reduce: consensus.ReduceMax, Evaluated: true, Doc: "fraction of held-out examples (training ones without a test set) classified right"},
		{Name: "p_rule", Reduce: consensus.ReduceMax, Evaluated: true, Doc: "p%-rule of Zafar et al. on the held-out examples: 100 min(r, 1/r) of the groups' positive rates"},
	}
}

// Evaluate measures the replicas: ConsensusErr is their disagreement
// (observe.Replicas), and at the first reporting agent's theta: ObjValue
// L(theta) on the training data, OptGap L - L* and DistToOpt ||theta -
// theta*|| (NaN for a nonconvex loss), Feasibility max(0, |a^T theta| - c)
// and the columns covariance, accuracy and p_rule.
func (r *Run) Evaluate(reps []consensus.Report) (registry.Evaluation, error) {
	var x []float64
	for _, rep := range reps {
		if x = rep.X; x != nil {
			break
		}
	}
	if len(x) != r.d.Dim+1 {
		return registry.Evaluation{}, fmt.Errorf("fair_alm: the first report holds %d values, want (theta, s), %d", len(x), r.d.Dim+1)
	}
	ids := make([]int, len(reps))
	for i := range ids {
		ids[i] = i
	}
	theta := x[:r.d.Dim]
	obj := fairness.Objective(r.d, r.loss, theta)
	cov := fairness.Covariance(r.d, theta)
	ev := registry.Evaluation{ConsensusErr: observe.Replicas(reps, ids), ObjValue: obj, OptGap: math.NaN(), DistToOpt: math.NaN(),
		Feasibility: math.Max(0, math.Abs(cov)-r.cfg.C)}
	if ts, f, ok, err := r.inst.Optimum(); err != nil {
		return registry.Evaluation{}, err
	} else if ok {
		var d float64
		for j, v := range theta {
			e := v - ts[j]
			d += e * e
		}
		ev.OptGap, ev.DistToOpt = obj-f, math.Sqrt(d)
	}
	test := r.inst.Test()
	ev.Values = []float64{cov, fairness.Accuracy(test, theta), fairness.PRule(test, theta)}
	return ev, nil
}
