package almstorm

import (
	"math"

	"github.com/consim/consim/consensus/alm"
	"github.com/consim/consim/consensus/registry"
)

// NoDualSettings is the algorithm block of alm_nodual: alm's practical
// preset with the dual step eta = 0 and no safeguard, i.e. the smoothed
// linearized quadratic-penalty iteration
//
//	x_{t+1} = proj_X(x_t - tau (grad f(x_t, xi_t) + rho A(zeta1)^T A(zeta2) x_t + mu (x_t - z_t))),
//	z_{t+1} = z_t + beta (x_t - z_t),
//
// with y = 0 throughout. Start from NewNoDualSettings.
type NoDualSettings struct {
	Params NoDualOverrides `yaml:"params"`
}

// NoDualOverrides replace single values of the practical preset.
type NoDualOverrides struct {
	Tau   *float64 `yaml:"tau,omitempty" doc:"primal step tau > 0" default:"preset"`
	Rho   *float64 `yaml:"rho,omitempty" doc:"penalty rho >= 0" default:"1"`
	Mu    *float64 `yaml:"mu,omitempty" doc:"proximal weight mu >= 0" default:"preset"`
	Beta  *float64 `yaml:"beta,omitempty" doc:"smoothing step beta in (0, 1]" default:"preset"`
	CTau  *float64 `yaml:"c_tau,omitempty" doc:"c_tau > 0 in tau = min{1/(2 L_K), c_tau/(L_K sqrt T)}" default:"10"`
	CBeta *float64 `yaml:"c_beta,omitempty" doc:"c_beta > 0 in beta = c_beta tau mu" default:"1"`
	Scale *float64 `yaml:"scale,omitempty" doc:"sigma > 0, the agents minimise sigma f" default:"1/L_f"`
}

// NewNoDualSettings returns the defaults (the practical preset).
func NewNoDualSettings() *NoDualSettings { return &NoDualSettings{} }

// Validate checks the overrides' ranges.
func (s *NoDualSettings) Validate() error {
	var errs registry.FieldErrors
	p := s.Params
	errs.Check("params.tau", p.Tau, registry.Positive)
	errs.Check("params.rho", p.Rho, registry.NonNegative)
	errs.Check("params.mu", p.Mu, registry.NonNegative)
	errs.Check("params.beta", p.Beta, registry.UnitInterval)
	errs.Check("params.c_tau", p.CTau, registry.Positive)
	errs.Check("params.c_beta", p.CBeta, registry.Positive)
	errs.Check("params.scale", p.Scale, registry.Positive)
	return errs.Err()
}

// NoDual describes the ALM with its dual steps switched off to the
// registry.
func NoDual() registry.Algorithm {
	return registry.Algorithm{
		Name:      "alm_nodual",
		Summary:   "the ALM with the dual step off (eta = 0): smoothed linearized quadratic penalty",
		New:       func() registry.Params { return NewNoDualSettings() },
		Build:     buildNoDual,
		SameDraw:  true,
		CanRejoin: true,
	}
}

func buildNoDual(p registry.Params, env *registry.Env) (registry.Run, error) {
	s := p.(*NoDualSettings)
	locals, box, c, err := instance("alm_nodual", env)
	if err != nil {
		return nil, err
	}
	o := s.Params
	scale := 1.0
	if c.Lf > 0 {
		scale = 1 / c.Lf
	}
	scale = orDefault(o.Scale, scale)
	ap := alm.PracticalWith(c.Scaled(scale).Constants, env.Rounds, orDefault(o.CTau, alm.PracticalCTau), orDefault(o.CBeta, alm.PracticalCBeta))
	ap.Eta = 0
	ap.My = math.Inf(1)
	override(&ap.Tau, o.Tau)
	override(&ap.Rho, o.Rho)
	override(&ap.Mu, o.Mu)
	override(&ap.Beta, o.Beta)
	return &run{
		name:   "alm_nodual",
		cfg:    alm.Config{Params: ap, Safeguard: alm.SafeguardNone, SameDraw: env.SameDraw, Seed: env.Seed, Rounds: env.Rounds, Scale: scale},
		env:    env,
		locals: locals, box: box, consts: c,
	}, nil
}
