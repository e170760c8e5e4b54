package alm

import (
	"maps"
	"math"

	"github.com/consim/consim/consensus/registry"
)

// Presets of Params.Preset.
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

// Params is the algorithm block of alm: a preset that derives the steps
// from the problem and graph constants, the keys that override single
// values of it, the step schedule and the dual safeguard. Start from
// DefaultParams.
type Params struct {
	// Preset is PresetPractical or PresetTheory.
	Preset string `yaml:"preset" doc:"parameter rule: practical|theory_steps (the step rules of (A.1) with placeholders sigma-bar = 1, M_y = 1e6)"`
	// Schedule is TauConstant or TauSqrt.
	Schedule string `yaml:"schedule" doc:"primal step tau_t: constant|sqrt (tau, or tau/sqrt(t+1))"`
	Dual     `yaml:",inline"`
	Primal   `yaml:",inline"`
}

// DefaultParams returns the defaults: the practical preset, constant
// steps, the global safeguard tested every 10 rounds.
func DefaultParams() Params {
	return Params{Preset: PresetPractical, Schedule: TauConstant, Dual: DefaultDual()}
}

// Validate checks the values that need no instance.
func (p *Params) Validate() error {
	var errs registry.FieldErrors
	errs.OneOf("preset", p.Preset, PresetPractical, PresetTheory)
	errs.OneOf("schedule", p.Schedule, TauConstant, TauSqrt)
	p.Dual.Check(&errs)
	p.Primal.Check(&errs)
	return errs.Err()
}

// Renamed returns the keys that the blocks of the ALM family had before
// their keys were made flat and named after their concepts (a params:
// sub-block of the paper's symbols), with the keys that replace them: those
// of Primal, of Dual when dual is set, and extra.
func Renamed(dual bool, extra map[string]string) map[string]string {
	m := map[string]string{
		"params.tau": "step", "params.rho": "penalty", "params.mu": "prox_weight", "params.beta": "smoothing",
		"params.c_tau": "c_step", "params.c_beta": "c_smoothing", "params.scale": "scale",
	}
	if dual {
		m["params.eta"], m["params.m_y"] = "dual_step", "m_y"
	}
	maps.Copy(m, extra)
	return m
}

// Primal are the keys that override the primal values of a preset, shared
// by the algorithms of the ALM family (alm, alm_storm, alm_nodual); nil
// keeps the preset's value.
type Primal struct {
	Step       *float64 `yaml:"step,omitempty" doc:"primal step tau > 0 (tau_0 under schedule sqrt)" default:"preset"`
	Penalty    *float64 `yaml:"penalty,omitempty" doc:"penalty rho >= 0" default:"preset"`
	ProxWeight *float64 `yaml:"prox_weight,omitempty" doc:"proximal weight mu >= 0 of (mu/2)||x - z||^2" default:"preset"`
	Smoothing  *float64 `yaml:"smoothing,omitempty" doc:"smoothing step beta in (0, 1] of z <- z + beta (x - z)" default:"preset"`
	CStep      *float64 `yaml:"c_step,omitempty" doc:"practical preset: c_tau > 0 in its step tau = min{1/(2 L_K), c_tau/(L_K sqrt T)} (alm_storm: min{1/(4 L_K + 8 mu), c_tau/(L_K T^(1/3))})" default:"10 (alm_storm: 2)"`
	CSmoothing *float64 `yaml:"c_smoothing,omitempty" doc:"practical preset: c_beta > 0 in beta = c_beta tau mu" default:"1"`
	Scale      *float64 `yaml:"scale,omitempty" doc:"sigma > 0, the agents minimise sigma f (practical: 1/L_f; theory: 1)" default:"preset"`
}

// Check adds the errors of the primal keys to errs.
func (o *Primal) Check(errs *registry.FieldErrors) {
	errs.Check("step", o.Step, registry.Positive)
	errs.Check("penalty", o.Penalty, registry.NonNegative)
	errs.Check("prox_weight", o.ProxWeight, registry.NonNegative)
	errs.Check("smoothing", o.Smoothing, registry.UnitInterval)
	errs.Check("c_step", o.CStep, registry.Positive)
	errs.Check("c_smoothing", o.CSmoothing, registry.Positive)
	errs.Check("scale", o.Scale, registry.Positive)
}

// Sigma returns the scale sigma of the agents' objective sigma f: the
// scale key, else 1 under a theory preset and 1/L_f (1 when L_f = 0) under
// the practical one, for the constant L_f of f.
func (o *Primal) Sigma(theory bool, lf float64) float64 {
	def := 1.0
	if !theory && lf > 0 {
		def = 1 / lf
	}
	return orDefault(o.Scale, def)
}

// Practical returns c_tau and c_beta of a practical preset: the keys
// c_step and c_smoothing, else cTau and PracticalCBeta.
func (o *Primal) Practical(cTau float64) (float64, float64) {
	return orDefault(o.CStep, cTau), orDefault(o.CSmoothing, PracticalCBeta)
}

// Apply overrides the primal values of s with the keys given.
func (o *Primal) Apply(s *Steps) {
	override(&s.Tau, o.Step)
	override(&s.Rho, o.Penalty)
	override(&s.Mu, o.ProxWeight)
	override(&s.Beta, o.Smoothing)
}

// Dual are the keys of the dual step and its safeguard, shared by alm and
// alm_storm; a nil override keeps the preset's value.
type Dual struct {
	// Safeguard is SafeguardGlobal, SafeguardEdge or SafeguardNone.
	Safeguard string `yaml:"safeguard" doc:"dual reset test ||y|| >= M_y: global|edge|none"`
	// SafeguardEvery is the period, in rounds, of the global test (1 is
	// the paper's rule).
	SafeguardEvery int      `yaml:"safeguard_every" doc:"rounds between global safeguard tests, >= 1"`
	DualStep       *float64 `yaml:"dual_step,omitempty" doc:"dual step eta > 0" default:"preset"`
	MY             *float64 `yaml:"m_y,omitempty" doc:"dual safeguard radius M_y > 0 on the duals of f, the reported dual_norm (.inf disables resets)" default:"preset"`
}

// DefaultDual is the global safeguard tested every 10 rounds.
func DefaultDual() Dual { return Dual{Safeguard: SafeguardGlobal, SafeguardEvery: 10} }

// Check adds the errors of the dual keys to errs.
func (d *Dual) Check(errs *registry.FieldErrors) {
	errs.OneOf("safeguard", d.Safeguard, SafeguardGlobal, SafeguardEdge, SafeguardNone)
	if d.SafeguardEvery < 1 {
		errs.Add("safeguard_every", "must be an integer >= 1, got %d", d.SafeguardEvery)
	}
	errs.Check("dual_step", d.DualStep, registry.Positive)
	errs.Check("m_y", d.MY, MYRange)
}

// Apply overrides the dual values of s with the keys given.
func (d *Dual) Apply(s *Steps) {
	override(&s.Eta, d.DualStep)
	override(&s.My, d.MY)
}

// MYRange is the allowed range of the dual safeguard radius M_y: any
// value > 0, +Inf disabling the resets.
var MYRange = registry.Range{In: func(x float64) bool { return x > 0 }, Want: "> 0 (.inf disables resets)"}

// resolve applies the preset to the constants c for the horizon
// env.Rounds, then the overrides. The practical preset runs the agents on
// sigma f with sigma = 1/L_f, so the preset sees L_f = 1; the theory
// preset keeps the paper's f (sigma = 1).
func (p *Params) resolve(c Constants, env *registry.Env) Config {
	theory := p.Preset == PresetTheory
	scale := p.Sigma(theory, c.Lf)
	var s Steps
	if theory {
		s = Theory(c.Scaled(scale), env.Rounds)
	} else {
		cTau, cBeta := p.Practical(PracticalCTau)
		s = PracticalWith(c.Scaled(scale), env.Rounds, cTau, cBeta)
	}
	p.Dual.Apply(&s)
	p.Primal.Apply(&s)
	s.TauSchedule = p.Schedule
	return Config{
		Steps:          s,
		Safeguard:      p.Safeguard,
		SafeguardEvery: p.SafeguardEvery,
		SameDraw:       env.SameDraw,
		Seed:           env.Seed,
		Rounds:         env.Rounds,
		ReportDuals:    env.Faulty,
		Scale:          scale,
	}
}

func override(dst, v *float64) {
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
