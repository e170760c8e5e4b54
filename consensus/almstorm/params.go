package almstorm

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/consim/consim/consensus/alm"
	"github.com/consim/consim/graph"
	"github.com/consim/consim/objective"
)

// Constants are the instance constants of the ALM-STORM presets, in the
// units of f = (1/N) sum_i f_i(x_i) over the stacked x.
type Constants struct {
	alm.Constants
	// L0 is the mean-square Lipschitz constant of the stochastic gradient
	// of Assumption 5.2, E||G(x; xi) - G(y; xi)||^2 <= L0^2 ||x - y||^2,
	// for the stacked f: max_i L0_i / N (see SampleLipschitz).
	L0 float64
	// SigmaMinPlus is sigma_min^+(E[A]) = sqrt(lambda_2 of the Laplacian
	// with edge weights p_ij^2); 0 without edges.
	SigmaMinPlus float64
}

// Scaled returns the constants of sigma f: L_f and L0 scale by sigma.
func (c Constants) Scaled(sigma float64) Constants {
	c.Constants = c.Constants.Scaled(sigma)
	c.L0 *= sigma
	return c
}

// SampleLipschitz returns L0_i, a constant with
// E||G_i(x; xi) - G_i(y; xi)||^2 <= L0_i^2 ||x - y||^2 for f_i's minibatch
// gradient G_i. For a generalized linear model of package objective with
// rows a_k, f_i = (1/m) sum_k ell(a_k^T x) + R(x), a minibatch difference
// is bounded by c max_k ||a_k||^2 + Lip(grad R) (c = max |ell”|), and since
// L_i = c lambda_max(A^T A/m) + Lip(grad R) with lambda_max(A^T A/m) <=
// max_k ||a_k||^2,
//
//	L0_i = L_i max_k ||a_k||^2 / lambda_max(A^T A / m)  >= c max_k ||a_k||^2 + Lip(grad R).
//
// For any other Local (additive gradient noise, whose difference at two
// points is exact) it returns L_i, which is exact for that case.
func SampleLipschitz(f objective.Local) (float64, error) {
	a, _, n, ok := objective.Samples(f)
	if !ok || n == 0 || len(a) == 0 {
		return f.Smoothness(), nil
	}
	m := len(a) / n
	var rowMax float64
	gram := mat.NewSymDense(n, nil)
	for k := range m {
		row := a[k*n : (k+1)*n]
		var s float64
		for _, v := range row {
			s += float64(v * v)
		}
		rowMax = math.Max(rowMax, s)
		gram.SymRankOne(gram, 1/float64(m), mat.NewVecDense(n, row))
	}
	var eig mat.EigenSym
	if !eig.Factorize(gram, false) {
		return 0, fmt.Errorf("almstorm: L0: eigendecomposition of A^T A/m failed")
	}
	vals := eig.Values(nil)
	lam := vals[len(vals)-1]
	if !(lam > 0) {
		return f.Smoothness(), nil
	}
	return f.Smoothness() * math.Max(1, rowMax/lam), nil
}

// ConstantsFor returns the Constants of the consensus problem of locals
// over g (alm.ConstantsFor plus L0 and sigma_min^+(E[A])).
func ConstantsFor(g *graph.Graph, locals []objective.Local) (Constants, error) {
	ac, err := alm.ConstantsFor(g, locals)
	if err != nil {
		return Constants{}, err
	}
	c := Constants{Constants: ac}
	for i, f := range locals {
		l0, err := SampleLipschitz(f)
		if err != nil {
			return Constants{}, fmt.Errorf("agent %d: %w", i, err)
		}
		c.L0 = math.Max(c.L0, l0/float64(g.N))
	}
	if len(g.Edges) > 0 {
		if c.SigmaMinPlus, err = g.SigmaMinPlus(); err != nil {
			return Constants{}, fmt.Errorf("almstorm: constants: %w", err)
		}
	}
	return c, nil
}

// SigmaBar is the dual error-bound constant of Lemma A.9 for X = R^n:
//
//	sigma-bar = (L_f + mu) / ((mu - L_f) sigma_min^+(A)).
//
// Proof: with x = x*(y, z) and xbar = xbar*(z) the minimizers of
// h(u) = f(u) + (mu/2)||u - z||^2 (mu-L_f strongly convex, (L_f+mu)-smooth)
// plus the AL terms, resp. over {A u = b}, the optimality conditions give
// grad h(x) - grad h(xbar) in range(A^T), so it is orthogonal to the
// null-space part of x - xbar; hence
// (mu - L_f)||x - xbar||^2 <= <grad h(x) - grad h(xbar), P_R(x - xbar)>
// <= (L_f + mu)||x - xbar|| ||P_R(x - xbar)||, and
// ||P_R(x - xbar)|| <= ||A x - b|| / sigma_min^+(A). With a bounded box the
// paper's constant is a Hoffman constant with no closed form, and this
// value is the unconstrained bound only. It returns +Inf when mu <= L_f
// or A has no edge.
func SigmaBar(lf, mu, sminPlus float64) float64 {
	if !(mu > lf) || !(sminPlus > 0) {
		return math.Inf(1)
	}
	return (lf + mu) / ((mu - lf) * sminPlus)
}

// Steps are the ALM-STORM parameters: the ALM's and the STORM weight
// alpha and initial minibatch N_0.
type Steps struct {
	alm.Steps
	// Alpha is the STORM weight alpha in (0, 1] (1 is plain SGD).
	Alpha float64
	// N0 is the initial minibatch N_0 >= 1 of d_0.
	N0 int
}

// n0For returns N_0 = ceil(T^(1/3)) (the notes: the box prints T^(1/6),
// the proof of Theorem 5.7 needs T^(1/3)).
func n0For(T int) int {
	return max(1, int(math.Ceil(math.Cbrt(float64(T))-1e-9)))
}

// Theory returns the parameters of Theorem 5.6 with the step rule (5.5)
// and the choice tau ~ T^(-1/3) of Theorem 5.7's proof, rho = 1, for a
// horizon of T rounds, computed from the instance constants c (of the
// function the agents minimise):
//
//	mu    = max{2, 4 L_f},  L_K = L_f + rho ||A||^2 + mu,
//	tau   = min{1/(4 L_K + 8 mu), 1/sqrt(48 (L0^2 + L_f^2)), T^(-1/3)},
//	eta   = min{(mu - L_f)^2 tau/(4||A||^2), (2 mu + rho ||A||)/(4||A||^4),
//	            tau/(200||A||^2), tau (2 mu + rho ||A||^2)/(20||A||^2)},
//	beta  = min{tau/100, 1/50, eta/(36 mu sigmabar^2)},
//	alpha = 48 (L0^2 + L_f^2) tau^2,   N_0 = ceil(T^(1/3)),
//
// with ||A|| = ||E[A]||, sigmabar = SigmaBar(L_f, mu, sigma_min^+(E[A]))
// and no dual safeguard (Algorithm 3 has none: M_y = +Inf). The paper
// prints L_K with rho ||A||; its descent lemma needs rho ||A||^2, as alm's
// Theory. T < 1 is treated as 1.
func Theory(c Constants, T int) Steps {
	T = max(T, 1)
	lf := c.Lf
	mu := math.Max(2, 4*lf)
	rho := 1.0
	a := c.NormA
	a2 := a * a
	lk := lf + float64(rho*a2) + mu
	l2 := float64(c.L0*c.L0) + float64(lf*lf)
	tau := math.Min(1/(4*lk+8*mu), math.Cbrt(1/float64(T)))
	if l2 > 0 {
		tau = math.Min(tau, 1/math.Sqrt(48*l2))
	}
	var eta float64
	if a2 > 0 {
		eta = math.Min(math.Min((mu-lf)*(mu-lf)*tau/(4*a2), (2*mu+rho*a)/(4*a2*a2)),
			math.Min(tau/(200*a2), tau*(2*mu+float64(rho*a2))/(20*a2)))
	}
	beta := math.Min(tau/100, 1.0/50)
	if sb := SigmaBar(lf, mu, c.SigmaMinPlus); eta > 0 && !math.IsInf(sb, 1) {
		beta = math.Min(beta, eta/(36*mu*sb*sb))
	}
	return Steps{
		Steps: alm.Steps{Eta: eta, Tau: tau, Rho: rho, Mu: mu, Beta: beta, My: math.Inf(1), TauSchedule: alm.TauConstant},
		Alpha: math.Min(1, 48*l2*tau*tau),
		N0:    n0For(T),
	}
}

// PracticalCTau is the default c_tau of Practical's tau = c_tau/(L_K T^(1/3)).
const PracticalCTau = 2

// Practical returns the practical parameters for a horizon of T rounds
// with the constants c_tau and c_beta: alm's practical rules with the
// STORM step and weight of the implementation notes,
//
//	M_2  = max{||E[A]||^2, ||E[A^T A]||},  mu = max{2, 4 L_f},  rho = 1,
//	L_K  = L_f + rho M_2 + mu,
//	tau  = min{1/(4 L_K + 8 mu), c_tau/(L_K T^(1/3))},
//	eta  = tau (mu - L_f)^2 / (8 M_2)  (0 when M_2 = 0),  beta = c_beta tau mu,
//	alpha = min{1, 48 (L0^2 + L_f^2) tau^2},  N_0 = ceil(T^(1/3)),
//	M_y  = alm.DefaultMy.
//
// T < 1 is treated as 1.
func Practical(c Constants, T int, cTau, cBeta float64) Steps {
	T = max(T, 1)
	lf := c.Lf
	mu := math.Max(2, 4*lf)
	m2 := c.M2()
	lk := lf + m2 + mu
	tau := math.Min(1/(4*lk+8*mu), cTau/(lk*math.Cbrt(float64(T))))
	var eta float64
	if m2 > 0 {
		eta = tau * (mu - lf) * (mu - lf) / (8 * m2)
	}
	l2 := float64(c.L0*c.L0) + float64(lf*lf)
	return Steps{
		Steps: alm.Steps{Eta: eta, Tau: tau, Rho: 1, Mu: mu, Beta: cBeta * tau * mu, My: alm.DefaultMy, TauSchedule: alm.TauConstant},
		Alpha: math.Min(1, 48*l2*tau*tau),
		N0:    n0For(T),
	}
}
