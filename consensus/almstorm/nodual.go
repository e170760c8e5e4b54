package almstorm

import (
	"math"

	"github.com/consim/consim/consensus/alm"
	"github.com/consim/consim/consensus/registry"
)

// NoDualParams is the algorithm block of alm_nodual: alm's practical
// preset with the dual step eta = 0 and no safeguard, i.e. the smoothed
// linearized quadratic-penalty iteration
//
//	x_{t+1} = proj_X(x_t - tau (grad f(x_t, xi_t) + rho A(zeta1)^T A(zeta2) x_t + mu (x_t - z_t))),
//	z_{t+1} = z_t + beta (x_t - z_t),
//
// with y = 0 throughout, and the keys that override its primal values.
type NoDualParams struct {
	alm.Primal `yaml:",inline"`
}

// Validate checks the overrides' ranges.
func (p *NoDualParams) Validate() error {
	var errs registry.FieldErrors
	p.Primal.Check(&errs)
	return errs.Err()
}

// NoDual describes the ALM with its dual steps switched off to the
// registry.
func NoDual() registry.Algorithm {
	return registry.Algorithm{
		Name:      "alm_nodual",
		Summary:   "the ALM with the dual step off (eta = 0): smoothed linearized quadratic penalty",
		New:       func() registry.Params { return &NoDualParams{} },
		Build:     buildNoDual,
		SameDraw:  true,
		CanRejoin: true,
		Needs:     []string{registry.CapLocals},
		NeedsDoc:  needs,
		Renamed:   alm.Renamed(false, nil),
	}
}

func buildNoDual(p registry.Params, env *registry.Env) (registry.Run, error) {
	o := p.(*NoDualParams)
	locals, box, c, err := instance(env)
	if err != nil {
		return nil, err
	}
	scale := o.Sigma(false, c.Lf)
	cTau, cBeta := o.Practical(alm.PracticalCTau)
	ap := alm.PracticalWith(c.Scaled(scale).Constants, env.Rounds, cTau, cBeta)
	ap.Eta = 0
	ap.My = math.Inf(1)
	o.Apply(&ap)
	return &run{
		name:   "alm_nodual",
		cfg:    alm.Config{Steps: ap, Safeguard: alm.SafeguardNone, SameDraw: env.SameDraw, Seed: env.Seed, Rounds: env.Rounds, Scale: scale},
		env:    env,
		locals: locals, box: box, consts: c,
	}, nil
}
