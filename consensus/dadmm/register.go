package dadmm

import (
	"fmt"
	"math"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/consensus/admm"
	"github.com/consim/consim/consensus/registry"
	"github.com/consim/consim/objective"
	"github.com/consim/consim/problems/portfolio"
)

// Defaults of the composition parameters that have no other rule: the
// values of Yu and Huang's portfolio experiment.
const (
	DefaultCompositionEta   = 0.001
	DefaultCompositionRho   = 1.0
	DefaultCompositionBatch = 5
)

// Settings is the algorithm block of dadmm and dadmm_linearized.
type Settings struct {
	Params struct {
		// C is the edge penalty c > 0.
		C float64 `yaml:"c" doc:"edge penalty c > 0"`
		// Gamma is dadmm's proximal weight gamma >= 0 (exact method only).
		Gamma *float64 `yaml:"gamma,omitempty" doc:"dadmm only: proximal weight gamma >= 0 of (gamma/2)||x - x_i^k||^2" default:"0"`
		// Tau is dadmm_linearized's step tau > 0; nil selects N/L_i per
		// agent (linearized method only).
		Tau *float64 `yaml:"tau,omitempty" doc:"dadmm_linearized only: step tau > 0" default:"N/L_i per agent"`
	} `yaml:"params"`
	method string
}

// Validate checks c, gamma and tau and that each is given only to the
// method that reads it.
func (s *Settings) Validate() error {
	var errs registry.FieldErrors
	p := s.Params
	if !(p.C > 0 && !math.IsInf(p.C, 0)) {
		errs.Add("params.c", "must be a finite number > 0, got %s", registry.Num(p.C))
	}
	if p.Gamma != nil {
		if s.method != MethodExact {
			errs.Add("params.gamma", "only applies to dadmm (the exact method)")
		} else if !(*p.Gamma >= 0 && !math.IsInf(*p.Gamma, 0)) {
			errs.Add("params.gamma", "must be a finite number >= 0, got %s", registry.Num(*p.Gamma))
		}
	}
	if p.Tau != nil {
		if s.method != MethodLinearized {
			errs.Add("params.tau", "only applies to dadmm_linearized")
		} else if !(*p.Tau > 0 && !math.IsInf(*p.Tau, 0)) {
			errs.Add("params.tau", "must be a finite number > 0, got %s", registry.Num(*p.Tau))
		}
	}
	return errs.Err()
}

// Exact describes dadmm, the decentralized ADMM of Shi et al. with the
// exact prox of f_i, to the registry.
func Exact() registry.Algorithm { return admmAlgorithm("dadmm", MethodExact) }

// Linearized describes dadmm_linearized, one stochastic gradient step on
// the linearized subproblem, to the registry.
func Linearized() registry.Algorithm { return admmAlgorithm("dadmm_linearized", MethodLinearized) }

func admmAlgorithm(name, method string) registry.Algorithm {
	summary := "decentralized ADMM (Shi et al.) with the exact prox of f_i"
	if method == MethodLinearized {
		summary = "decentralized ADMM, linearized: one stochastic gradient step per round"
	}
	return registry.Algorithm{
		Name:    name,
		Summary: summary,
		New: func() registry.Params {
			s := &Settings{method: method}
			s.Params.C = DefaultC
			return s
		},
		Build: func(p registry.Params, env *registry.Env) (registry.Run, error) {
			return buildADMM(name, p.(*Settings), env)
		},
	}
}

type admmRun struct {
	cfg    Config
	env    *registry.Env
	locals []objective.Local
}

func buildADMM(name string, s *Settings, env *registry.Env) (registry.Run, error) {
	inst, ok := env.Problem.(registry.Locals)
	if !ok {
		return nil, &registry.ProblemMismatch{Algorithm: name, Needs: "local objectives f_i", Capability: registry.CapLocals}
	}
	if err := registry.Unconstrained(name, inst.Box()); err != nil {
		return nil, err
	}
	cfg := Config{Method: s.method, C: s.Params.C, Seed: env.Seed}
	if s.Params.Gamma != nil {
		cfg.Gamma = *s.Params.Gamma
	}
	if s.Params.Tau != nil {
		cfg.Tau = *s.Params.Tau
	}
	r := &admmRun{cfg: cfg, env: env, locals: make([]objective.Local, env.N)}
	for i := range r.locals {
		r.locals[i] = inst.Local(i)
		if s.method == MethodExact {
			if _, err := objective.ProxOf(r.locals[i]); err != nil {
				return nil, &registry.ProblemMismatch{Algorithm: name,
					Needs: "the exact prox of each f_i, which least_squares has (use dadmm_linearized for the others)"}
			}
		}
	}
	return r, nil
}

func (r *admmRun) Agent(i int) (consensus.Agent, error) {
	if i < 0 || i >= r.env.N {
		return nil, fmt.Errorf("dadmm: agent id %d is outside [0, %d)", i, r.env.N)
	}
	return NewAgent(r.cfg, i, r.env.Graph, r.env.Process, r.locals[i], r.env.Init(i))
}

func (r *admmRun) Resolved() []registry.Value {
	v := []registry.Value{{Name: "c", Value: r.cfg.C, Note: "edge penalty"}}
	switch r.cfg.Method {
	case MethodExact:
		v = append(v, registry.Value{Name: "gamma", Value: r.cfg.Gamma, Note: "proximal weight"})
	default:
		for i, f := range r.locals {
			tau, err := r.cfg.tauFor(f, r.env.N)
			if err != nil {
				tau = math.NaN()
			}
			note := "given"
			if r.cfg.Tau == 0 {
				note = "N/L_i"
			}
			v = append(v, registry.Value{Name: fmt.Sprintf("tau_%d", i), Value: tau, Note: note})
		}
	}
	return v
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
	Shard(i int) *portfolio.Portfolio
	// Reg is R(x) = (mu/2)||x||^2.
	Reg() portfolio.Ridge
	// PeriodsPerAgent is the number of periods of the smallest shard.
	PeriodsPerAgent() int
}

// CompositionSettings is the algorithm block of dadmm_composition.
type CompositionSettings struct {
	Params struct {
		// Eta is the step eta > 0.
		Eta float64 `yaml:"eta" doc:"step eta > 0"`
		// Rho is the penalty rho > 0 of x = w.
		Rho float64 `yaml:"rho" doc:"penalty rho > 0 of x = w"`
		// C is the edge penalty c > 0.
		C float64 `yaml:"c" doc:"edge penalty c > 0"`
		// K is the number of rounds per outer iteration; nil selects the
		// periods per agent.
		K *int `yaml:"k,omitempty" doc:"rounds K >= 1 per outer iteration" default:"periods/N"`
		// Batch is the mini-batch B >= 1 of the inner estimate g_hat.
		Batch int `yaml:"batch" doc:"mini-batch B >= 1 of the inner estimate g_hat"`
	} `yaml:"params"`
}

// Validate checks the composition parameters' ranges.
func (s *CompositionSettings) Validate() error {
	var errs registry.FieldErrors
	p := s.Params
	pos := func(v float64) bool { return v > 0 && !math.IsInf(v, 0) }
	if !pos(p.Eta) {
		errs.Add("params.eta", "must be a finite number > 0, got %s", registry.Num(p.Eta))
	}
	if !pos(p.Rho) {
		errs.Add("params.rho", "must be a finite number > 0 (the penalty of x = w), got %s", registry.Num(p.Rho))
	}
	if !pos(p.C) {
		errs.Add("params.c", "must be a finite number > 0, got %s", registry.Num(p.C))
	}
	if p.K != nil && *p.K < 1 {
		errs.Add("params.k", "must be an integer >= 1 (rounds per outer iteration), got %d", *p.K)
	}
	if p.Batch < 1 {
		errs.Add("params.batch", "must be an integer >= 1 (mini-batch of g_hat), got %d", p.Batch)
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
			s := &CompositionSettings{}
			s.Params.Eta, s.Params.Rho, s.Params.C, s.Params.Batch = DefaultCompositionEta, DefaultCompositionRho, DefaultC, DefaultCompositionBatch
			return s
		},
		Build: buildComposition,
	}
}

type compositionRun struct {
	cfg  CompositionConfig
	env  *registry.Env
	inst Portfolios
}

func buildComposition(p registry.Params, env *registry.Env) (registry.Run, error) {
	s := p.(*CompositionSettings)
	inst, ok := env.Problem.(Portfolios)
	if !ok {
		return nil, &registry.ProblemMismatch{Algorithm: "dadmm_composition", Needs: "a composition objective split into shards", Accepts: []string{"portfolio"}}
	}
	k := max(1, inst.PeriodsPerAgent())
	if s.Params.K != nil {
		k = *s.Params.K
	}
	cfg := CompositionConfig{
		Params: admm.Params{Eta: s.Params.Eta, Rho: s.Params.Rho, K: k, Batch: s.Params.Batch},
		C:      s.Params.C,
		Reg:    inst.Reg(),
		Seed:   env.Seed,
	}
	return &compositionRun{cfg: cfg, env: env, inst: inst}, nil
}

func (r *compositionRun) Agent(i int) (consensus.Agent, error) {
	if i < 0 || i >= r.env.N {
		return nil, fmt.Errorf("dadmm: agent id %d is outside [0, %d)", i, r.env.N)
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
