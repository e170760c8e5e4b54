package dadmm

import (
	"math"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/consensus/admm"
	"github.com/consim/consim/consensus/edgeadmm"
	"github.com/consim/consim/consensus/registry"
	"github.com/consim/consim/problems/portfolio"
)

// Defaults of the composition parameters that have no other rule: the
// values of Yu and Huang's portfolio experiment.
const (
	DefaultCompositionEta   = 0.001
	DefaultCompositionRho   = 1.0
	DefaultCompositionBatch = 5
)

// Params is the algorithm block of dadmm and dadmm_linearized: the edge
// penalty c, the linearized method's step tau and the exact method's
// proximal weight gamma.
type Params struct {
	edgeadmm.Keys `yaml:",inline"`
	// ProxWeight is dadmm's proximal weight gamma >= 0 (exact method
	// only).
	ProxWeight *float64 `yaml:"prox_weight,omitempty" doc:"dadmm only: proximal weight gamma >= 0 of (gamma/2)||x - x_i^k||^2" default:"0"`
}

// Validate checks penalty, prox_weight and step and that each is given
// only to the method that reads it.
func (p *Params) Validate() error {
	var errs registry.FieldErrors
	p.Check(&errs)
	if p.ProxWeight != nil {
		if p.Pair().Method != MethodExact {
			errs.Add("prox_weight", "only applies to dadmm (the exact method)")
		} else {
			errs.Check("prox_weight", p.ProxWeight, registry.NonNegative)
		}
	}
	return errs.Err()
}

// methods describes dadmm and dadmm_linearized to the registry.
var methods = edgeadmm.Methods[Config, *Agent, *Reference]{
	Name: "dadmm",
	Summaries: [2]string{"decentralized ADMM (Shi et al.) with the exact prox of f_i",
		"decentralized ADMM, linearized: one stochastic gradient step per round"},
	NewParams: func(pair edgeadmm.Pair) registry.Params { return &Params{Keys: pair.Keys(DefaultC)} },
	Config: func(p registry.Params, env *registry.Env) Config {
		q := p.(*Params)
		cfg := Config{Method: q.Pair().Method, C: q.Penalty, Tau: q.Tau(), Seed: env.Seed}
		if q.ProxWeight != nil {
			cfg.Gamma = *q.ProxWeight
		}
		return cfg
	},
	Values: func(cfg Config) []registry.Value {
		v := []registry.Value{{Name: "c", Value: cfg.C, Note: "edge penalty"}}
		if cfg.Method == MethodExact {
			v = append(v, registry.Value{Name: "gamma", Value: cfg.Gamma, Note: "proximal weight"})
		}
		return v
	},
	Measures:     Measures(),
	NewAgent:     NewAgent,
	NewReference: NewReference,
	Renamed:      map[string]string{"params.c": "penalty", "params.gamma": "prox_weight"},
}

// Exact describes dadmm, the decentralized ADMM of Shi et al. with the
// exact prox of f_i, to the registry.
func Exact() registry.Algorithm { return methods.Exact() }

// Linearized describes dadmm_linearized, one stochastic gradient step on
// the linearized subproblem, to the registry.
func Linearized() registry.Algorithm { return methods.Linearized() }

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
		Build:    registry.BuildWith(buildComposition),
		Needs:    []string{portfolio.Cap},
		NeedsDoc: "a composition objective split into shards",
		Renamed: map[string]string{"params.eta": "step", "params.rho": "split_penalty", "params.c": "penalty",
			"params.k": "k", "params.batch": "batch"},
	}
}

type compositionRun struct {
	cfg  CompositionConfig
	env  *registry.Env
	inst portfolio.Provider
}

var (
	_ registry.Referencer = (*compositionRun)(nil)
	_ registry.Measurer   = (*compositionRun)(nil)
)

func buildComposition(p registry.Params, env *registry.Env, inst portfolio.Provider) (registry.Run, error) {
	o := p.(*CompositionParams)
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
		{Name: "mu", Value: r.cfg.Reg.(portfolio.Ridge).Mu, Note: "ridge weight of R"},
	}
}

func (r *compositionRun) Measures() []consensus.Measure { return Measures() }

func (r *compositionRun) Reference(rounds int) ([][]float64, error) {
	x0 := make([][]float64, r.env.N)
	shards := make([]portfolio.Composition, r.env.N)
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
