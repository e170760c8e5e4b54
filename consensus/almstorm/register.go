package almstorm

import (
	"fmt"
	"math"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/consensus/alm"
	"github.com/consim/consim/consensus/registry"
	"github.com/consim/consim/objective"
)

// Presets of Params.Preset.
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

// Params is the algorithm block of alm_storm: alm's keys (but its step
// schedule) and the STORM estimator's. Start from DefaultParams.
type Params struct {
	Preset   string `yaml:"preset" doc:"parameter rule: practical|theory (Theorem 5.6, step rule (5.5), tau = T^(-1/3))"`
	alm.Dual `yaml:",inline"`
	// The overrides of the preset's primal values.
	alm.Primal   `yaml:",inline"`
	Alpha        *float64 `yaml:"alpha,omitempty" doc:"STORM weight alpha in (0, 1] (1 = plain SGD)" default:"preset"`
	InitialBatch *int     `yaml:"initial_batch,omitempty" doc:"initial minibatch N_0 >= 1 of d_0" default:"ceil(T^(1/3))"`
}

// DefaultParams returns the defaults: the practical preset and alm's
// safeguard (global, tested every 10 rounds).
func DefaultParams() Params { return Params{Preset: PresetPractical, Dual: alm.DefaultDual()} }

// Validate checks the values that need no instance.
func (p *Params) Validate() error {
	var errs registry.FieldErrors
	errs.OneOf("preset", p.Preset, PresetPractical, PresetTheory)
	p.Dual.Check(&errs)
	p.Primal.Check(&errs)
	errs.Check("alpha", p.Alpha, registry.UnitInterval)
	if p.InitialBatch != nil && *p.InitialBatch < 1 {
		errs.Add("initial_batch", "must be an integer >= 1, got %d", *p.InitialBatch)
	}
	return errs.Err()
}

// Algorithm describes ALM-STORM (Algorithm 3 on the random incidence of
// Algorithm 2) to the registry.
func Algorithm() registry.Algorithm {
	return registry.Algorithm{
		Name:      "alm_storm",
		Summary:   "ALM with the STORM variance-reduced gradient estimator (Algorithm 3)",
		New:       func() registry.Params { p := DefaultParams(); return &p },
		Build:     build,
		SameDraw:  true,
		CanRejoin: true,
		Needs:     []string{registry.CapLocals},
		NeedsDoc:  needs,
		Renamed:   alm.Renamed(true, map[string]string{"params.alpha": "alpha", "params.n0": "initial_batch"}),
	}
}

// needs is what the runs of the package need of a problem.
const needs = "local objectives f_i with gradients and a box X"

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

var (
	_ registry.Referencer = (*run)(nil)
	_ registry.Measurer   = (*run)(nil)
)

// instance returns the agents' objectives and box and the constants.
func instance(env *registry.Env) ([]objective.Local, objective.Box, Constants, error) {
	inst, err := registry.As[registry.Locals](env)
	if err != nil {
		return nil, objective.Box{}, Constants{}, err
	}
	locals := registry.AllLocals(inst, env.N)
	c, err := ConstantsFor(env.Graph, locals)
	if err != nil {
		return nil, objective.Box{}, Constants{}, err
	}
	return locals, inst.Box(), c, nil
}

func build(p registry.Params, env *registry.Env) (registry.Run, error) {
	o := p.(*Params)
	locals, box, c, err := instance(env)
	if err != nil {
		return nil, err
	}
	theory := o.Preset == PresetTheory
	scale := o.Sigma(theory, c.Lf)
	var sp Steps
	if theory {
		sp = Theory(c.Scaled(scale), env.Rounds)
	} else {
		cTau, cBeta := o.Practical(PracticalCTau)
		sp = Practical(c.Scaled(scale), env.Rounds, cTau, cBeta)
	}
	o.Dual.Apply(&sp.Steps)
	o.Primal.Apply(&sp.Steps)
	if o.Alpha != nil {
		sp.Alpha = *o.Alpha
	}
	if o.InitialBatch != nil {
		sp.N0 = *o.InitialBatch
	}
	safeguard := o.Safeguard
	if math.IsInf(sp.My, 1) {
		safeguard = alm.SafeguardNone
	}
	r := &run{
		name:  "alm_storm",
		cfg:   alm.Config{Steps: sp.Steps, Safeguard: safeguard, SafeguardEvery: o.SafeguardEvery, SameDraw: env.SameDraw, Seed: env.Seed, Rounds: env.Rounds, ReportDuals: env.Faulty, Scale: scale},
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
	if err := r.env.CheckAgent(r.name, i); err != nil {
		return nil, err
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
	v := append(r.cfg.StepValues(r.consts.Constants), r.extra...)
	return append(append(v, r.consts.Constants.Values()...),
		registry.Value{Name: "sigma_min+(E[A])", Value: r.consts.SigmaMinPlus, Note: "sqrt(lambda_2(L_{p^2}))"})
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
