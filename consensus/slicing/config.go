package slicing

import (
	"math"

	"github.com/consim/consim/consensus/registry"
	problem "github.com/consim/consim/problems/slicing"
)

// Config is the regularized problem (6.5) and Algorithm 1's parameters,
// in the paper's symbols. The agents run on the scaled objective
//
//	f(w) = Scale (g(u) + RegWeight P_eps(x)),
//
// whose gradient is Scale lambda(k) at u_ij(k,s) and
// Scale RegWeight p (x_i(k,m) + eps)^(p-1) at x_i(k,m).
type Config struct {
	// RegWeight is sigma of (6.5), in the units of g (rate x links);
	// 0 is the plain LP relaxation.
	RegWeight float64
	// P is the exponent p in (0, 1) and Eps the offset eps > 0 of P_eps.
	P, Eps float64
	// Scale is the objective scale (> 0).
	Scale float64
	// Rho is the penalty rho, Mu the proximal weight mu, Tau the primal
	// step tau, Eta the dual step eta, Beta the smoothing step beta.
	Rho, Mu, Tau, Eta, Beta float64
	// Rounds is the horizon T; 0 means no horizon.
	Rounds int
	// Stage is the final stage that fixes a binary slice (zero: none).
	Stage Stage
}

// Validate checks the ranges of the fields; its errors are a
// registry.FieldErrors at the keys of the block (Params).
func (c Config) Validate() error {
	var errs registry.FieldErrors
	checkKeys(&errs, keys{&c.RegWeight, &c.P, &c.Eps, &c.Scale, &c.Rho, &c.Mu, &c.Tau, &c.Eta, &c.Beta})
	if c.Rounds < 0 {
		errs.Add("rounds", "must be >= 0, got %d", c.Rounds)
	}
	if err := c.Stage.Validate(); err != nil {
		errs.Add("stage", "%v", err)
	}
	return errs.Err()
}

// Lf returns the Lipschitz constant of grad f on the box:
// Scale RegWeight p (1-p) eps^(p-2) (g is linear).
func (c Config) Lf() float64 {
	return c.Scale * c.RegWeight * c.P * (1 - c.P) * math.Pow(c.Eps, c.P-2)
}

// Practical presets' constants.
const (
	// PracticalRho is rho of Practical.
	PracticalRho = 1.0
	// PracticalCBeta is c_beta of beta = c_beta tau mu.
	PracticalCBeta = 1.0
	// PracticalCEta is c_eta of eta = c_eta rho (see Practical).
	PracticalCEta = 1.0
)

// Practical returns Algorithm 1's practical parameters for the model with
// regularizer (regWeight, p, eps) and horizon T, after the ALM notes:
//
//	Scale = 1 / max_k lambda(k)  (the costs in (0, 1]),
//	L_f = Scale regWeight p (1-p) eps^(p-2),  mu = max{2, 4 L_f},  rho = 1,
//	L_K = L_f + rho ||A||^2 + mu,  tau = 1 / (2 L_K),
//	eta = c_eta rho,  beta = c_beta tau mu.
//
// The notes' eta = tau (mu - L_f)^2 / (8 ||A||^2) is sized for the dual of
// a consensus constraint; on the slicing rows it leaves the duals of the
// capacity rows so slow that the iterates sit at the penalty's
// equilibrium for thousands of rounds. The preset takes eta = c_eta rho
// (the method of multipliers' dual step for the augmented term rho), the
// classical choice for a deterministic A; every field may be overridden.
func Practical(md *problem.Model, regWeight, p, eps float64, T int) Config {
	var lmax float64
	for _, fl := range md.Inst.Flows {
		lmax = math.Max(lmax, fl.Rate)
	}
	c := Config{RegWeight: regWeight, P: p, Eps: eps, Scale: 1 / lmax, Rho: PracticalRho, Rounds: T}
	lf := c.Lf()
	na := md.NormA()
	c.Mu = math.Max(2, 4*lf)
	lk := lf + c.Rho*na*na + c.Mu
	c.Tau = 1 / (2 * lk)
	c.Eta = PracticalCEta * c.Rho
	c.Beta = PracticalCBeta * c.Tau * c.Mu
	return c
}

// grad writes grad f(w) into dst: Scale Cost plus the regularizer's
// gradient on the x variables of every group.
func (c Config) grad(md *problem.Model, w, dst []float64) {
	for v := range dst {
		dst[v] = c.Scale * md.Cost[v]
	}
	if c.RegWeight == 0 {
		return
	}
	sr := c.Scale * c.RegWeight * c.P
	for _, grp := range md.Groups {
		for _, v := range grp {
			dst[v] += sr * math.Pow(w[v]+c.Eps, c.P-1)
		}
	}
}
