package alm

import (
	"fmt"
	"math"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/consensus/registry"
	"github.com/consim/consim/objective"
)

// Presets of Settings.Preset.
const (
	// PresetPractical is PracticalWith on the agents' f scaled by
	// sigma = 1/L_f (the notes: "scale f so L_f ~ 1").
	PresetPractical = "practical"
	// PresetTheory is Theory on f itself (sigma = 1): the step rules of the
	// paper's (A.1). Two of its constants have no closed form, so the
	// preset takes placeholders, which its name says: sigma-bar = 1 (the
	// dual error-bound constant of Lemma A.9) and M_y = DefaultMy (Remark
	// 4.1), far above any dual norm here, so that the safeguard does not
	// fire.
	PresetTheory = "theory_steps"
)

// Settings is the algorithm block of a scenario that runs the ALM
// (algorithm.name: alm). Its zero value is not meaningful: start from
// NewSettings.
type Settings struct {
	// Preset is the rule that derives the parameters from the problem and
	// graph constants: PresetPractical or PresetTheory.
	Preset string `yaml:"preset" doc:"parameter rule: practical|theory_steps (the step rules of (A.1) with placeholders sigma-bar = 1, M_y = 1e6)"`
	// Params override single values of the preset.
	Params Overrides `yaml:"params"`
	// TauSchedule is TauConstant or TauSqrt.
	TauSchedule string `yaml:"tau_schedule" doc:"primal step tau_t: constant (tau) or sqrt (tau/sqrt(t+1))"`
	// Safeguard is where the dual reset ||y|| >= M_y is tested:
	// SafeguardGlobal, SafeguardEdge or SafeguardNone.
	Safeguard string `yaml:"safeguard" doc:"dual reset test ||y|| >= M_y: global|edge|none"`
	// SafeguardEvery is the period, in rounds, of the global test (1 is
	// the paper's rule).
	SafeguardEvery int `yaml:"safeguard_every" doc:"rounds between global safeguard tests, >= 1"`
}

// Overrides replace single values of a preset; nil keeps the preset's.
// Each field's doc tag says what it is and its allowed range.
type Overrides struct {
	Eta   *float64 `yaml:"eta,omitempty" doc:"dual step eta > 0" default:"preset"`
	Tau   *float64 `yaml:"tau,omitempty" doc:"primal step tau > 0" default:"preset"`
	Rho   *float64 `yaml:"rho,omitempty" doc:"penalty rho >= 0" default:"preset"`
	Mu    *float64 `yaml:"mu,omitempty" doc:"proximal weight mu >= 0" default:"preset"`
	Beta  *float64 `yaml:"beta,omitempty" doc:"smoothing step beta in (0, 1]" default:"preset"`
	MY    *float64 `yaml:"m_y,omitempty" doc:"dual safeguard radius M_y > 0 on the duals of f, the reported dual_norm (.inf disables resets)" default:"preset"`
	CTau  *float64 `yaml:"c_tau,omitempty" doc:"c_tau > 0 in tau = min{1/(2 L_K), c_tau/(L_K sqrt T)}" default:"10"`
	CBeta *float64 `yaml:"c_beta,omitempty" doc:"c_beta > 0 in beta = c_beta tau mu" default:"1"`
	Scale *float64 `yaml:"scale,omitempty" doc:"sigma > 0, the agents minimise sigma f (practical: 1/L_f; theory_steps: 1)" default:"preset"`
}

// NewSettings returns the defaults: the practical preset, constant tau,
// the global safeguard tested every 10 rounds.
func NewSettings() *Settings {
	return &Settings{Preset: PresetPractical, TauSchedule: TauConstant, Safeguard: SafeguardGlobal, SafeguardEvery: 10}
}

// Validate checks the values that need no instance.
func (s *Settings) Validate() error {
	var errs registry.FieldErrors
	errs.OneOf("preset", s.Preset, PresetPractical, PresetTheory)
	errs.OneOf("tau_schedule", s.TauSchedule, TauConstant, TauSqrt)
	errs.OneOf("safeguard", s.Safeguard, SafeguardGlobal, SafeguardEdge, SafeguardNone)
	if s.SafeguardEvery < 1 {
		errs.Add("safeguard_every", "must be an integer >= 1, got %d", s.SafeguardEvery)
	}
	p := s.Params
	errs.Check("params.eta", p.Eta, registry.Positive)
	errs.Check("params.tau", p.Tau, registry.Positive)
	errs.Check("params.rho", p.Rho, registry.NonNegative)
	errs.Check("params.mu", p.Mu, registry.NonNegative)
	errs.Check("params.beta", p.Beta, registry.UnitInterval)
	errs.Check("params.m_y", p.MY, MYRange)
	errs.Check("params.c_tau", p.CTau, registry.Positive)
	errs.Check("params.c_beta", p.CBeta, registry.Positive)
	errs.Check("params.scale", p.Scale, registry.Positive)
	return errs.Err()
}

// MYRange is the allowed range of the dual safeguard radius M_y: any
// value > 0, +Inf disabling the resets.
var MYRange = registry.Range{In: func(x float64) bool { return x > 0 }, Want: "> 0 (.inf disables resets)"}

// Algorithm describes the ALM (Algorithm 2 of the paper; Algorithm 1 when
// every p_ij = 1) to the registry.
func Algorithm() registry.Algorithm {
	return registry.Algorithm{
		Name:      "alm",
		Summary:   "stochastic smoothed linearized ALM with random edge-agent incidence (Algorithm 2)",
		New:       func() registry.Params { return NewSettings() },
		Build:     build,
		SameDraw:  true,
		CanRejoin: true,
	}
}

// run is the ALM resolved against one instance.
type run struct {
	cfg    Config
	env    *registry.Env
	locals []objective.Local
	box    objective.Box
	consts Constants
}

func build(p registry.Params, env *registry.Env) (registry.Run, error) {
	s := p.(*Settings)
	inst, ok := env.Problem.(registry.Locals)
	if !ok {
		return nil, &registry.ProblemMismatch{Algorithm: "alm", Needs: "local objectives f_i with gradients and a box X", Capability: registry.CapLocals}
	}
	locals := make([]objective.Local, env.N)
	for i := range locals {
		locals[i] = inst.Local(i)
	}
	c, err := ConstantsFor(env.Graph, locals)
	if err != nil {
		return nil, err
	}
	cfg := s.resolve(c, env)
	return &run{cfg: cfg, env: env, locals: locals, box: inst.Box(), consts: c}, nil
}

// resolve applies the preset to the constants c for the horizon
// env.Rounds, then the overrides. The practical preset runs the agents on
// sigma f with sigma = 1/L_f, so the preset sees L_f = 1; the theory
// preset keeps the paper's f (sigma = 1).
func (s *Settings) resolve(c Constants, env *registry.Env) Config {
	var p Params
	o := s.Params
	scale := 1.0
	switch s.Preset {
	case PresetTheory:
		scale = orDefault(o.Scale, 1)
		p = Theory(c.Scaled(scale), env.Rounds)
	default:
		if c.Lf > 0 {
			scale = 1 / c.Lf
		}
		scale = orDefault(o.Scale, scale)
		p = PracticalWith(c.Scaled(scale), env.Rounds, orDefault(o.CTau, PracticalCTau), orDefault(o.CBeta, PracticalCBeta))
	}
	override := func(dst *float64, v *float64) {
		if v != nil {
			*dst = *v
		}
	}
	override(&p.Eta, o.Eta)
	override(&p.Tau, o.Tau)
	override(&p.Rho, o.Rho)
	override(&p.Mu, o.Mu)
	override(&p.Beta, o.Beta)
	override(&p.My, o.MY)
	p.TauSchedule = s.TauSchedule
	return Config{
		Params:         p,
		Safeguard:      s.Safeguard,
		SafeguardEvery: s.SafeguardEvery,
		SameDraw:       env.SameDraw,
		Seed:           env.Seed,
		Rounds:         env.Rounds,
		ReportDuals:    env.Faulty,
		Scale:          scale,
	}
}

func orDefault(v *float64, def float64) float64 {
	if v == nil || math.IsNaN(*v) {
		return def
	}
	return *v
}

// Agent builds agent i.
func (r *run) Agent(i int) (consensus.Agent, error) {
	if i < 0 || i >= r.env.N {
		return nil, fmt.Errorf("alm: agent id %d is outside [0, %d)", i, r.env.N)
	}
	return NewAgent(r.cfg, i, r.env.Graph, r.env.Process, r.locals[i], r.box, r.env.Init(i))
}

// Resolved lists the parameters after the preset and overrides, and the
// constants the preset was computed from (in the units of f).
func (r *run) Resolved() []registry.Value {
	p := r.cfg.Params
	return []registry.Value{
		{Name: "eta", Value: p.Eta, Note: "dual step"},
		{Name: "tau", Value: p.Tau, Note: "primal step (tau_0 under tau_schedule sqrt)"},
		{Name: "rho", Value: p.Rho, Note: "penalty"},
		{Name: "mu", Value: p.Mu, Note: "proximal weight"},
		{Name: "beta", Value: p.Beta, Note: "smoothing step"},
		{Name: "M_y", Value: p.My, Note: "dual safeguard radius, duals of f"},
		{Name: "sigma", Value: r.cfg.Scale, Note: "agents minimise sigma f"},
		{Name: "L_K", Value: float64(r.cfg.Scale*r.consts.Lf) + float64(p.Rho*r.consts.M2()) + p.Mu, Note: "sigma L_f + rho M_2 + mu"},
		{Name: "M_2", Value: r.consts.M2(), Note: "max{||E[A]||^2, ||E[A^T A]||}"},
		{Name: "L_f", Value: r.consts.Lf, Note: "max_i L_i / N, of f"},
		{Name: "||E[A]||", Value: r.consts.NormA, Note: "sqrt(lambda_max(L_{p^2}))"},
		{Name: "||E[A^T A]||", Value: r.consts.SecondMoment, Note: "lambda_max(L_p)"},
		{Name: "safeguard_every", Value: float64(r.cfg.SafeguardEvery)},
	}
}

// Measures are the ALM's own measures (see the package-level Measures).
func (r *run) Measures() []consensus.Measure { return Measures() }

// Reference runs the matrix-form Algorithm 2 on the same draws for rounds
// rounds and returns every agent's x_i.
func (r *run) Reference(rounds int) ([][]float64, error) {
	x0 := r.env.InitialPoints()
	ref, err := NewReference(r.cfg, r.env.Graph, r.env.Process, r.locals, r.box, x0)
	if err != nil {
		return nil, err
	}
	return registry.StepReference(r.env.N, rounds, ref.Step, ref.X)
}
