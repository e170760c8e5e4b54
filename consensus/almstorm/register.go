package almstorm

import (
	"fmt"
	"math"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/consensus/alm"
	"github.com/consim/consim/consensus/registry"
	"github.com/consim/consim/objective"
)

// Presets of Settings.Preset.
const (
	// PresetPractical is Practical on the agents' f scaled by
	// sigma = 1/L_f, as alm's practical preset.
	PresetPractical = "practical"
	// PresetTheory is Theory on f itself (sigma = 1): Theorem 5.6's rule
	// (5.5) with every constant computed from the instance. Its
	// sigma-bar is SigmaBar, exact for X = R^n and the unconstrained bound
	// for a bounded box (Resolved says which).
	PresetTheory = "theory"
)

// Settings is the algorithm block of alm_storm. Start from NewSettings.
type Settings struct {
	Preset         string    `yaml:"preset" doc:"parameter rule: practical|theory (Theorem 5.6, step rule (5.5), tau = T^(-1/3))"`
	Params         Overrides `yaml:"params"`
	Safeguard      string    `yaml:"safeguard" doc:"dual reset test ||y|| >= M_y: global|edge|none"`
	SafeguardEvery int       `yaml:"safeguard_every" doc:"rounds between global safeguard tests, >= 1"`
}

// Overrides replace single values of a preset; nil keeps the preset's.
type Overrides struct {
	Eta   *float64 `yaml:"eta,omitempty" doc:"dual step eta > 0" default:"preset"`
	Tau   *float64 `yaml:"tau,omitempty" doc:"primal step tau > 0" default:"preset"`
	Rho   *float64 `yaml:"rho,omitempty" doc:"penalty rho >= 0" default:"preset"`
	Mu    *float64 `yaml:"mu,omitempty" doc:"proximal weight mu >= 0" default:"preset"`
	Beta  *float64 `yaml:"beta,omitempty" doc:"smoothing step beta in (0, 1]" default:"preset"`
	MY    *float64 `yaml:"m_y,omitempty" doc:"dual safeguard radius M_y > 0 on the duals of f (.inf disables resets)" default:"preset"`
	Alpha *float64 `yaml:"alpha,omitempty" doc:"STORM weight alpha in (0, 1] (1 = plain SGD)" default:"preset"`
	N0    *int     `yaml:"n0,omitempty" doc:"initial minibatch N_0 >= 1 of d_0" default:"ceil(T^(1/3))"`
	CTau  *float64 `yaml:"c_tau,omitempty" doc:"practical: c_tau > 0 in tau = min{1/(4 L_K + 8 mu), c_tau/(L_K T^(1/3))}" default:"2"`
	CBeta *float64 `yaml:"c_beta,omitempty" doc:"practical: c_beta > 0 in beta = c_beta tau mu" default:"1"`
	Scale *float64 `yaml:"scale,omitempty" doc:"sigma > 0, the agents minimise sigma f (practical: 1/L_f; theory: 1)" default:"preset"`
}

// NewSettings returns the defaults: the practical preset and alm's
// safeguard (global, tested every 10 rounds).
func NewSettings() *Settings {
	return &Settings{Preset: PresetPractical, Safeguard: alm.SafeguardGlobal, SafeguardEvery: 10}
}

// Validate checks the values that need no instance.
func (s *Settings) Validate() error {
	var errs registry.FieldErrors
	errs.OneOf("preset", s.Preset, PresetPractical, PresetTheory)
	errs.OneOf("safeguard", s.Safeguard, alm.SafeguardGlobal, alm.SafeguardEdge, alm.SafeguardNone)
	if s.SafeguardEvery < 1 {
		errs.Add("safeguard_every", "must be an integer >= 1, got %d", s.SafeguardEvery)
	}
	p := s.Params
	errs.Check("params.eta", p.Eta, registry.Positive)
	errs.Check("params.tau", p.Tau, registry.Positive)
	errs.Check("params.rho", p.Rho, registry.NonNegative)
	errs.Check("params.mu", p.Mu, registry.NonNegative)
	errs.Check("params.beta", p.Beta, registry.UnitInterval)
	errs.Check("params.m_y", p.MY, alm.MYRange)
	errs.Check("params.alpha", p.Alpha, registry.UnitInterval)
	errs.Check("params.c_tau", p.CTau, registry.Positive)
	errs.Check("params.c_beta", p.CBeta, registry.Positive)
	errs.Check("params.scale", p.Scale, registry.Positive)
	if p.N0 != nil && *p.N0 < 1 {
		errs.Add("params.n0", "must be an integer >= 1, got %d", *p.N0)
	}
	return errs.Err()
}

// Algorithm describes ALM-STORM (Algorithm 3 on the random incidence of
// Algorithm 2) to the registry.
func Algorithm() registry.Algorithm {
	return registry.Algorithm{
		Name:      "alm_storm",
		Summary:   "ALM with the STORM variance-reduced gradient estimator (Algorithm 3)",
		New:       func() registry.Params { return NewSettings() },
		Build:     build,
		SameDraw:  true,
		CanRejoin: true,
	}
}

// run is ALM-STORM or alm_nodual resolved against one instance.
type run struct {
	name   string
	cfg    alm.Config
	alpha  float64
	n0     int
	env    *registry.Env
	locals []objective.Local
	box    objective.Box
	consts Constants
	extra  []registry.Value
}

// instance returns the agents' objectives and box and the constants.
func instance(name string, env *registry.Env) ([]objective.Local, objective.Box, Constants, error) {
	inst, ok := env.Problem.(registry.Locals)
	if !ok {
		return nil, objective.Box{}, Constants{}, &registry.ProblemMismatch{Algorithm: name, Needs: "local objectives f_i with gradients and a box X", Capability: registry.CapLocals}
	}
	locals := registry.AllLocals(inst, env.N)
	c, err := ConstantsFor(env.Graph, locals)
	if err != nil {
		return nil, objective.Box{}, Constants{}, err
	}
	return locals, inst.Box(), c, nil
}

func build(p registry.Params, env *registry.Env) (registry.Run, error) {
	s := p.(*Settings)
	locals, box, c, err := instance("alm_storm", env)
	if err != nil {
		return nil, err
	}
	o := s.Params
	scale := 1.0
	var sp Params
	switch s.Preset {
	case PresetTheory:
		scale = orDefault(o.Scale, 1)
		sp = Theory(c.Scaled(scale), env.Rounds)
	default:
		if c.Lf > 0 {
			scale = 1 / c.Lf
		}
		scale = orDefault(o.Scale, scale)
		sp = Practical(c.Scaled(scale), env.Rounds, orDefault(o.CTau, PracticalCTau), orDefault(o.CBeta, alm.PracticalCBeta))
	}
	override(&sp.Eta, o.Eta)
	override(&sp.Tau, o.Tau)
	override(&sp.Rho, o.Rho)
	override(&sp.Mu, o.Mu)
	override(&sp.Beta, o.Beta)
	override(&sp.My, o.MY)
	override(&sp.Alpha, o.Alpha)
	if o.N0 != nil {
		sp.N0 = *o.N0
	}
	safeguard := s.Safeguard
	if math.IsInf(sp.My, 1) {
		safeguard = alm.SafeguardNone
	}
	r := &run{
		name:  "alm_storm",
		cfg:   alm.Config{Params: sp.Params, Safeguard: safeguard, SafeguardEvery: s.SafeguardEvery, SameDraw: env.SameDraw, Seed: env.Seed, Rounds: env.Rounds, ReportDuals: env.Faulty, Scale: scale},
		alpha: sp.Alpha, n0: sp.N0, env: env, locals: locals, box: box, consts: c,
	}
	sb := SigmaBar(c.Scaled(scale).Lf, sp.Mu, c.SigmaMinPlus)
	note := "(L_f + mu)/((mu - L_f) sigma_min+(E[A])), Lemma A.9 for X = R^n"
	if !math.IsInf(box.Lo, -1) || !math.IsInf(box.Hi, 1) {
		note = "unconstrained bound (L_f + mu)/((mu - L_f) sigma_min+(E[A])); Lemma A.9's constant for a bounded box has no closed form"
	}
	r.extra = []registry.Value{
		{Name: "alpha", Value: sp.Alpha, Note: "STORM weight"},
		{Name: "N_0", Value: float64(sp.N0), Note: "initial minibatch of d_0"},
		{Name: "L_0", Value: c.L0, Note: "mean-square Lipschitz constant of the sample gradient, of f (bound L_i max||a_k||^2/lambda_max(A^T A/m))"},
		{Name: "sigma_bar", Value: sb, Note: note},
	}
	return r, nil
}

func override(dst *float64, v *float64) {
	if v != nil {
		*dst = *v
	}
}

func orDefault(v *float64, def float64) float64 {
	if v == nil || math.IsNaN(*v) {
		return def
	}
	return *v
}

// local returns agent i's objective as its agent sees it: f_i in a new
// STORM estimator, or f_i itself for alm_nodual (n0 = 0).
func (r *run) local(i int) (objective.Local, error) {
	if r.n0 == 0 {
		return r.locals[i], nil
	}
	e, err := NewEstimator(r.locals[i], r.alpha, r.n0)
	if err != nil {
		return nil, fmt.Errorf("%s: agent %d: %w", r.name, i, err)
	}
	return e, nil
}

// Agent builds agent i: alm's agent on the STORM estimator of f_i.
func (r *run) Agent(i int) (consensus.Agent, error) {
	if i < 0 || i >= r.env.N {
		return nil, fmt.Errorf("%s: agent id %d is outside [0, %d)", r.name, i, r.env.N)
	}
	f, err := r.local(i)
	if err != nil {
		return nil, err
	}
	return alm.NewAgent(r.cfg, i, r.env.Graph, r.env.Process, f, r.box, r.env.Init(i))
}

// Config is the resolved alm configuration the agents run with.
func (r *run) Config() alm.Config { return r.cfg }

// Resolved lists the parameters after the preset and overrides and the
// constants they were computed from (in the units of f).
func (r *run) Resolved() []registry.Value {
	p := r.cfg.Params
	v := []registry.Value{
		{Name: "eta", Value: p.Eta, Note: "dual step"},
		{Name: "tau", Value: p.Tau, Note: "primal step"},
		{Name: "rho", Value: p.Rho, Note: "penalty"},
		{Name: "mu", Value: p.Mu, Note: "proximal weight"},
		{Name: "beta", Value: p.Beta, Note: "smoothing step"},
		{Name: "M_y", Value: p.My, Note: "dual safeguard radius, duals of f"},
		{Name: "sigma", Value: r.cfg.Scale, Note: "agents minimise sigma f"},
		{Name: "L_K", Value: float64(r.cfg.Scale*r.consts.Lf) + float64(p.Rho*r.consts.M2()) + p.Mu, Note: "sigma L_f + rho M_2 + mu"},
	}
	v = append(v, r.extra...)
	return append(v,
		registry.Value{Name: "M_2", Value: r.consts.M2(), Note: "max{||E[A]||^2, ||E[A^T A]||}"},
		registry.Value{Name: "L_f", Value: r.consts.Lf, Note: "max_i L_i / N, of f"},
		registry.Value{Name: "||E[A]||", Value: r.consts.NormA, Note: "sqrt(lambda_max(L_{p^2}))"},
		registry.Value{Name: "sigma_min+(E[A])", Value: r.consts.SigmaMinPlus, Note: "sqrt(lambda_2(L_{p^2}))"},
	)
}

// Measures are alm's measures (kkt, dual_norm, resets).
func (r *run) Measures() []consensus.Measure { return alm.Measures() }

// Reference runs alm's matrix-form iteration on the same draws, with a
// STORM estimator per block, and returns every agent's x_i.
func (r *run) Reference(rounds int) ([][]float64, error) {
	locals := make([]objective.Local, r.env.N)
	for i := range locals {
		f, err := r.local(i)
		if err != nil {
			return nil, err
		}
		locals[i] = f
	}
	ref, err := alm.NewReference(r.cfg, r.env.Graph, r.env.Process, locals, r.box, r.env.InitialPoints())
	if err != nil {
		return nil, err
	}
	return registry.StepReference(r.env.N, rounds, ref.Step, ref.X)
}
