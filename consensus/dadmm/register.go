package dadmm

import (
	"math"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/consensus/admm"
	"github.com/consim/consim/consensus/edgeadmm"
	"github.com/consim/consim/consensus/registry"
	"github.com/consim/consim/objective"
)

// Defaults of the composition parameters that have no other rule: the
// values of Yu and Huang's portfolio experiment.
const (
	DefaultCompositionEta   = 0.001
	DefaultCompositionRho   = 1.0
	DefaultCompositionBatch = 5
)

// Params is the algorithm block of dadmm and dadmm_linearized.
type Params struct {
	// Penalty is the edge penalty c > 0.
	Penalty float64 `yaml:"penalty" doc:"edge penalty c > 0"`
	// ProxWeight is dadmm's proximal weight gamma >= 0 (exact method
	// only).
	ProxWeight *float64 `yaml:"prox_weight,omitempty" doc:"dadmm only: proximal weight gamma >= 0 of (gamma/2)||x - x_i^k||^2" default:"0"`
	// Step is dadmm_linearized's step tau > 0; nil selects N/L_i per
	// agent (linearized method only).
	Step *float64 `yaml:"step,omitempty" doc:"dadmm_linearized only: step tau > 0" default:"N/L_i per agent"`
	pair edgeadmm.Pair
}

// Validate checks penalty, prox_weight and step and that each is given
// only to the method that reads it.
func (p *Params) Validate() error {
	var errs registry.FieldErrors
	p.pair.Check(&errs, p.Penalty, p.Step)
	if p.ProxWeight != nil {
		if p.pair.Method != MethodExact {
			errs.Add("prox_weight", "only applies to dadmm (the exact method)")
		} else {
			errs.Check("prox_weight", p.ProxWeight, registry.NonNegative)
		}
	}
	return errs.Err()
}

// Exact describes dadmm, the decentralized ADMM of Shi et al. with the
// exact prox of f_i, to the registry.
func Exact() registry.Algorithm {
	return admmAlgorithm(edgeadmm.Pair{Name: "dadmm", Linearized: "dadmm_linearized", Method: MethodExact},
		"decentralized ADMM (Shi et al.) with the exact prox of f_i")
}

// Linearized describes dadmm_linearized, one stochastic gradient step on
// the linearized subproblem, to the registry.
func Linearized() registry.Algorithm {
	return admmAlgorithm(edgeadmm.Pair{Name: "dadmm_linearized", Linearized: "dadmm_linearized", Method: MethodLinearized},
		"decentralized ADMM, linearized: one stochastic gradient step per round")
}

func admmAlgorithm(pair edgeadmm.Pair, summary string) registry.Algorithm {
	return pair.Entry(summary,
		func() registry.Params { return &Params{Penalty: DefaultC, pair: pair} },
		func(p registry.Params, env *registry.Env) (registry.Run, error) { return buildADMM(p.(*Params), env) },
		edgeadmm.Renamed(map[string]string{"params.c": "penalty", "params.gamma": "prox_weight"}))
}

type admmRun struct {
	pair   edgeadmm.Pair
	cfg    Config
	env    *registry.Env
	locals []objective.Local
}

var (
	_ registry.Referencer = (*admmRun)(nil)
	_ registry.Measurer   = (*admmRun)(nil)
)

func buildADMM(p *Params, env *registry.Env) (registry.Run, error) {
	cfg := Config{Method: p.pair.Method, C: p.Penalty, Seed: env.Seed}
	if p.ProxWeight != nil {
		cfg.Gamma = *p.ProxWeight
	}
	if p.Step != nil {
		cfg.Tau = *p.Step
	}
	locals, err := p.pair.Locals(cfg.Tau, env)
	if err != nil {
		return nil, err
	}
	return &admmRun{pair: p.pair, cfg: cfg, env: env, locals: locals}, nil
}

func (r *admmRun) Agent(i int) (consensus.Agent, error) {
	if err := r.env.CheckAgent("dadmm", i); err != nil {
		return nil, err
	}
	return NewAgent(r.cfg, i, r.env.Graph, r.env.Process, r.locals[i], r.env.Init(i))
}

func (r *admmRun) Resolved() []registry.Value {
	v := []registry.Value{{Name: "c", Value: r.cfg.C, Note: "edge penalty"}}
	if r.cfg.Method == MethodExact {
		v = append(v, registry.Value{Name: "gamma", Value: r.cfg.Gamma, Note: "proximal weight"})
	}
	return append(v, r.pair.TauValues(r.cfg.Tau, r.locals)...)
}

func (r *admmRun) Measures() []consensus.Measure { return Measures() }

func (r *admmRun) Reference(rounds int) ([][]float64, error) {
	x0 := r.env.InitialPoints()
	ref, err := NewReference(r.cfg, r.env.Graph, r.env.Process, r.locals, x0)
	if err != nil {
		return nil, err
	}
	return registry.StepReference(r.env.N, rounds, ref.Step, ref.X)
}

// Portfolios is the capability of a problem split into composition
// shards: agent i's portfolio problem over its own periods, and the
// regularizer R of the whole problem.
type Portfolios interface {
	registry.Instance
	// Shard returns agent i's portfolio problem.
	Shard(i int) *admm.Portfolio
	// Reg is R(x) = (mu/2)||x||^2.
	Reg() admm.Ridge
	// PeriodsPerAgent is the number of periods of the smallest shard.
	PeriodsPerAgent() int
}

// CapPortfolios is the capability of the problems split into composition
// shards (Portfolios).
const CapPortfolios = "portfolio shards"

// CompositionParams is the algorithm block of dadmm_composition.
type CompositionParams struct {
	// Step is the step eta > 0.
	Step float64 `yaml:"step" doc:"step eta > 0"`
	// SplitPenalty is the penalty rho > 0 of x = w.
	SplitPenalty float64 `yaml:"split_penalty" doc:"penalty rho > 0 of the split x = w"`
	// Penalty is the edge penalty c > 0.
	Penalty float64 `yaml:"penalty" doc:"edge penalty c > 0"`
	// K is the number of rounds per outer iteration; nil selects the
	// periods per agent.
	K *int `yaml:"k,omitempty" doc:"rounds K >= 1 per outer iteration" default:"periods/N"`
	// Batch is the mini-batch B >= 1 of the inner estimate g_hat.
	Batch int `yaml:"batch" doc:"mini-batch B >= 1 of the inner estimate g_hat"`
}

// Validate checks the composition parameters' ranges.
func (p *CompositionParams) Validate() error {
	var errs registry.FieldErrors
	errs.Check("step", &p.Step, registry.Positive)
	if !(p.SplitPenalty > 0 && !math.IsInf(p.SplitPenalty, 0)) {
		errs.Add("split_penalty", "must be a finite number > 0 (the penalty of x = w), got %s", registry.Num(p.SplitPenalty))
	}
	errs.Check("penalty", &p.Penalty, registry.Positive)
	if p.K != nil && *p.K < 1 {
		errs.Add("k", "must be an integer >= 1 (rounds per outer iteration), got %d", *p.K)
	}
	if p.Batch < 1 {
		errs.Add("batch", "must be an integer >= 1 (mini-batch of g_hat), got %d", p.Batch)
	}
	return errs.Err()
}

// Composition describes dadmm_composition, com-SVR-ADMM's composition
// agents on a graph, to the registry.
func Composition() registry.Algorithm {
	return registry.Algorithm{
		Name:    "dadmm_composition",
		Summary: "decentralized com-SVR-ADMM for stochastic composition objectives (the portfolio problem)",
		New: func() registry.Params {
			return &CompositionParams{Step: DefaultCompositionEta, SplitPenalty: DefaultCompositionRho, Penalty: DefaultC, Batch: DefaultCompositionBatch}
		},
		Build:    buildComposition,
		Needs:    []string{CapPortfolios},
		NeedsDoc: "a composition objective split into shards",
		Renamed: map[string]string{"params.eta": "step", "params.rho": "split_penalty", "params.c": "penalty",
			"params.k": "k", "params.batch": "batch"},
	}
}

type compositionRun struct {
	cfg  CompositionConfig
	env  *registry.Env
	inst Portfolios
}

var (
	_ registry.Referencer = (*compositionRun)(nil)
	_ registry.Measurer   = (*compositionRun)(nil)
)

func buildComposition(p registry.Params, env *registry.Env) (registry.Run, error) {
	o := p.(*CompositionParams)
	inst, err := registry.As[Portfolios](env)
	if err != nil {
		return nil, err
	}
	k := max(1, inst.PeriodsPerAgent())
	if o.K != nil {
		k = *o.K
	}
	cfg := CompositionConfig{
		Params: admm.Params{Eta: o.Step, Rho: o.SplitPenalty, K: k, Batch: o.Batch},
		C:      o.Penalty,
		Reg:    inst.Reg(),
		Seed:   env.Seed,
	}
	return &compositionRun{cfg: cfg, env: env, inst: inst}, nil
}

func (r *compositionRun) Agent(i int) (consensus.Agent, error) {
	if err := r.env.CheckAgent("dadmm_composition", i); err != nil {
		return nil, err
	}
	return NewCompositionAgent(r.cfg, i, r.env.Graph, r.env.Process, r.inst.Shard(i), r.env.Init(i))
}

func (r *compositionRun) Resolved() []registry.Value {
	return []registry.Value{
		{Name: "eta", Value: r.cfg.Eta, Note: "step"},
		{Name: "rho", Value: r.cfg.Rho, Note: "penalty of x = w"},
		{Name: "c", Value: r.cfg.C, Note: "edge penalty"},
		{Name: "K", Value: float64(r.cfg.K), Note: "rounds per outer iteration"},
		{Name: "batch", Value: float64(r.cfg.Batch), Note: "mini-batch of g_hat"},
		{Name: "mu", Value: r.cfg.Reg.(admm.Ridge).Mu, Note: "ridge weight of R"},
	}
}

func (r *compositionRun) Measures() []consensus.Measure { return Measures() }

func (r *compositionRun) Reference(rounds int) ([][]float64, error) {
	x0 := make([][]float64, r.env.N)
	shards := make([]admm.Composition, r.env.N)
	for i := range x0 {
		x0[i] = r.env.Init(i)
		shards[i] = r.inst.Shard(i)
	}
	ref, err := NewCompositionReference(r.cfg, r.env.Graph, r.env.Process, shards, x0)
	if err != nil {
		return nil, err
	}
	return registry.StepReference(r.env.N, rounds, ref.Step, ref.X)
}
