package penaltycons

import (
	"fmt"
	"math"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/consensus/registry"
	"github.com/consim/consim/graph"
	"github.com/consim/consim/objective"
)

// Params is the algorithm block of penalty_asg.
type Params struct {
	Preset string `yaml:"preset" doc:"parameter rule: constant|growing (Theorem 1, rho = T^(3/2); Theorem 2, rho_k = (k+4)^(3/2))"`
}

// DefaultParams returns the defaults: the growing penalty.
func DefaultParams() Params { return Params{Preset: RuleGrowing} }

// Validate checks the preset.
func (s *Params) Validate() error {
	var errs registry.FieldErrors
	errs.OneOf("preset", s.Preset, RuleConstant, RuleGrowing)
	return errs.Err()
}

// Algorithm describes the decentralized quadratic-penalty ASG to the
// registry.
func Algorithm() registry.Algorithm {
	return registry.Algorithm{
		Name:     "penalty_asg",
		Summary:  "accelerated stochastic gradient on the quadratic consensus penalty, constant or growing rho (Lu and Xiao, Algorithm 1)",
		New:      func() registry.Params { p := DefaultParams(); return &p },
		Build:    registry.BuildWith(build),
		Needs:    []string{registry.CapLocals},
		NeedsDoc: "local objectives f_i with gradients and a box X",
		Renamed:  map[string]string{"rule": "preset"},
	}
}

type run struct {
	cfg    Config
	env    *registry.Env
	locals []objective.Local
	box    objective.Box
}

var _ registry.Referencer = (*run)(nil)

// ConfigFor returns the configuration of rule over g for the objectives
// locals and horizon T: L_f = max_i L_i / N, L_c2 = lambda_max(L_p).
func ConfigFor(rule string, g *graph.Graph, locals []objective.Local, T int, seed uint64) (Config, error) {
	var lmax float64
	for _, f := range locals {
		lmax = math.Max(lmax, f.Smoothness())
	}
	var lc2 float64
	if len(g.Edges) > 0 {
		var err error
		if lc2, err = g.LambdaMax(graph.ByP); err != nil {
			return Config{}, fmt.Errorf("penaltycons: %w", err)
		}
	}
	cfg := Config{Rule: rule, K: T, Lf: lmax / float64(g.N), Lc2: lc2, Seed: seed}
	if _, err := cfg.rule(); err != nil {
		return Config{}, err
	}
	return cfg, nil
}

func build(p registry.Params, env *registry.Env, inst registry.Locals) (registry.Run, error) {
	locals := registry.AllLocals(inst, env.N)
	cfg, err := ConfigFor(p.(*Params).Preset, env.Graph, locals, env.Rounds, env.Seed)
	if err != nil {
		return nil, registry.FieldErrors{{Key: "preset", Msg: err.Error()}}
	}
	return &run{cfg: cfg, env: env, locals: locals, box: inst.Box()}, nil
}

func (r *run) Agent(i int) (consensus.Agent, error) {
	if err := r.env.CheckAgent("penalty_asg", i); err != nil {
		return nil, err
	}
	return NewAgent(r.cfg, i, r.env.Graph, r.env.Process, r.locals[i], r.box, r.env.Init(i))
}

func (r *run) Resolved() []registry.Value {
	st, _ := r.cfg.Step(0)
	last, _ := r.cfg.Step(max(r.env.Rounds-1, 0))
	return []registry.Value{
		{Name: "rho_1", Value: st.Rho, Note: "penalty of the first round"},
		{Name: "rho_T", Value: last.Rho, Note: "penalty of the last round"},
		{Name: "gamma_1", Value: st.Gamma, Note: "step of the first round"},
		{Name: "L_f", Value: r.cfg.Lf, Note: "max_i L_i / N"},
		{Name: "L_c2", Value: r.cfg.Lc2, Note: "lambda_max(L_p) = ||E[A^T A]||"},
	}
}

// Reference runs the stacked matrix form on the same draws.
func (r *run) Reference(rounds int) ([][]float64, error) {
	ref, err := NewReference(r.cfg, r.env.Graph, r.env.Process, r.locals, r.box, r.env.InitialPoints())
	if err != nil {
		return nil, err
	}
	return registry.StepReference(r.env.N, rounds, ref.Step, ref.X)
}
