package alm

import (
	"math"
)

// Step-size schedules of Params.TauSchedule.
const (
	// TauConstant keeps tau_t = tau for every round (the paper's choice for
	// a horizon T).
	TauConstant = "constant"
	// TauSqrt decays the step as tau_t = tau / sqrt(t+1).
	TauSqrt = "sqrt"
)

// DefaultMy is the dual safeguard threshold M_y of the presets. Remark 4.1
// of the paper gives M_y only through constants without a closed form, so
// the presets use a threshold far above the dual norms of problems scaled
// to L_f ~ 1.
const DefaultMy = 1e6

// Steps are the algorithm's step sizes and penalties, in the paper's
// symbols. Every field may be overridden after taking a preset.
type Steps struct {
	// Eta is the dual step eta.
	Eta float64
	// Tau is the primal step tau (tau_0 under TauSqrt).
	Tau float64
	// Rho is the augmented Lagrangian penalty rho.
	Rho float64
	// Mu is the proximal weight mu of mu/2 ||x - z||^2.
	Mu float64
	// Beta is the smoothing step beta of z_{t+1} = z_t + beta (x_t - z_t).
	Beta float64
	// My is the dual safeguard threshold M_y, on the duals of f (the
	// reported dual norm): with Config.Scale = sigma the agents test
	// ||y|| >= sigma M_y on the duals of sigma f.
	My float64
	// TauSchedule is TauConstant (also when empty) or TauSqrt.
	TauSchedule string
}

// tauAt returns the primal step tau_t of round t under the schedule.
func (p Steps) tauAt(t int) float64 {
	if p.TauSchedule == TauSqrt {
		return p.Tau / math.Sqrt(float64(t+1))
	}
	return p.Tau
}

// Constants are the problem constants the presets need.
type Constants struct {
	// Lf is the Lipschitz constant of grad f for the stacked
	// f(x) = (1/N) sum_i f_i(x_i), i.e. max_i L_i / N.
	Lf float64
	// NormA is ||E[A]|| = ||E[W]|| = sqrt(lambda_max of the Laplacian with
	// edge weights p_ij^2).
	NormA float64
	// SecondMoment is ||E[A(zeta)^T A(zeta)]|| = lambda_max of the
	// Laplacian with edge weights p_ij: the curvature a single random draw
	// of the penalty and dual terms can show. It is >= NormA^2 and, unlike
	// NormA^2 ~ p^2, shrinks only like p. Zero means NormA^2.
	SecondMoment float64
	// SigmaBar is the dual error-bound constant sigma-bar of Lemma A.9,
	// used only by Theory; it has no closed form. Zero or negative means 1.
	SigmaBar float64
}

// Practical defaults: tau's constant c_tau and beta's constant c_beta.
// The implementation notes suggest c_beta in 0.01..0.1; on the shipped
// scenarios that leaves z nearly still (docs/algorithms.md), so the
// preset takes c_beta = 1.
const (
	PracticalCTau  = 10
	PracticalCBeta = 1
)

// Scaled returns the constants of sigma f: L_f scales by sigma; the
// constraint constants do not change.
func (c Constants) Scaled(sigma float64) Constants {
	c.Lf *= sigma
	return c
}

// M2 is the second moment M_2 = max{||E[A]||^2, ||E[A^T A]||} of the
// constraint draws that the practical preset sizes its steps with.
func (c Constants) M2() float64 { return math.Max(c.NormA*c.NormA, c.SecondMoment) }

// Practical returns the parameters that work in practice for a horizon of
// T rounds, with the constants of PracticalWith's defaults.
func Practical(c Constants, T int) Steps {
	return PracticalWith(c, T, PracticalCTau, PracticalCBeta)
}

// PracticalWith returns the practical parameters for a horizon of T rounds
// with the constants c_tau and c_beta:
//
//	M_2  = max{||E[A]||^2, ||E[A^T A]||}  (the second moment of the draws),
//	mu   = max{2, 4 L_f},  rho = 1,  L_K = L_f + rho M_2 + mu,
//	tau  = min{1/(2 L_K), c_tau/(L_K sqrt T)},
//	eta  = tau (mu - L_f)^2 / (8 M_2)                    (0 when M_2 = 0),
//	beta = c_beta tau mu,  M_y = DefaultMy, constant tau.
//
// The implementation notes size L_K and eta with ||A||^2 = ||E[A]||^2,
// which is exact for a deterministic A; with random edges it scales as p^2
// while a single draw of A_zeta^T A_zeta has norm ~ p, so at small p the
// dual step eta ~ 1/p^2 is far too long (the ALM diverges at p = 0.1 on
// the dropout sweep). The second moment M_2 equals ||A||^2 when p = 1.
// T < 1 is treated as 1.
func PracticalWith(c Constants, T int, cTau, cBeta float64) Steps {
	if T < 1 {
		T = 1
	}
	mu := math.Max(2, 4*c.Lf)
	rho := 1.0
	m2 := c.M2()
	lk := c.Lf + rho*m2 + mu
	tau := math.Min(1/(2*lk), cTau/(lk*math.Sqrt(float64(T))))
	var eta float64
	if m2 > 0 {
		eta = tau * (mu - c.Lf) * (mu - c.Lf) / (8 * m2)
	}
	return Steps{
		Eta:         eta,
		Tau:         tau,
		Rho:         rho,
		Mu:          mu,
		Beta:        cBeta * tau * mu,
		My:          DefaultMy,
		TauSchedule: TauConstant,
	}
}

// Theory returns the parameters (A.1) of the paper's analysis for a
// horizon of T rounds, with rho = 1:
//
//	mu   = max{2, 4 L_f},  L_K = L_f + rho ||A||^2 + mu,  lambda = L_K,
//	tau  = 1 / (6 lambda^2 sqrt T),
//	eta  = min{(2 mu + rho ||A||)/(4 ||A||^4), tau/(200 ||A||^2),
//	           tau (2 mu + rho ||A||^2)/(20 ||A||^2)}     (0 when ||A|| = 0),
//	beta = min{tau/100, 1/(50 lambda), eta/(36 mu sigmabar^2)},
//	M_y  = DefaultMy, constant tau.
//
// (A.1) prints L_K with rho ||A||; Lemma A.1, which uses it, needs
// rho ||A||^2, as here. The steps are tiny: they certify, they do not
// converge in practical horizons. T < 1 is treated as 1.
func Theory(c Constants, T int) Steps {
	if T < 1 {
		T = 1
	}
	sb := c.SigmaBar
	if !(sb > 0) {
		sb = 1
	}
	mu := math.Max(2, 4*c.Lf)
	rho := 1.0
	a := c.NormA
	a2 := a * a
	lk := c.Lf + float64(rho*a2) + mu
	tau := 1 / (6 * lk * lk * math.Sqrt(float64(T)))
	var eta float64
	if a2 > 0 {
		eta = math.Min((2*mu+rho*a)/(4*a2*a2),
			math.Min(tau/(200*a2), tau*(float64(2*mu)+float64(rho*a2))/(20*a2)))
	}
	beta := math.Min(tau/100, 1/(50*lk))
	if eta > 0 {
		beta = math.Min(beta, eta/(36*mu*sb*sb))
	}
	return Steps{
		Eta:         eta,
		Tau:         tau,
		Rho:         rho,
		Mu:          mu,
		Beta:        beta,
		My:          DefaultMy,
		TauSchedule: TauConstant,
	}
}
