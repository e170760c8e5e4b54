package zosplm

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"

	zosplmalg "github.com/consim/consim/consensus/zosplm"
	"github.com/consim/consim/problems/qcqp"
)

// Regime is a parameter regime of the comparison: the rule that sets
// every method's parameters on an instance. The paper states the
// estimator (sphere directions, r = 1e-5, k), the instance generator, m
// and eps, and leaves the steps c and alpha, the smoothing step beta, the
// proximal weight p, the dual bound B, the starts x0 and y0 and every
// parameter of the baselines unstated; a regime is our choice of them.
type Regime string

const (
	// Tuned is each method's default rule (zosplm.DefaultSPLMParams,
	// DefaultALMParams, DefaultConExParams with L = 4n), each chosen by a
	// sweep at n = 50. ZO-SPLM's primal step c = 1/(2.2 L) is less than
	// half the baselines' 0.9/L, and its beta = 1 turns the proximal term
	// off; this regime decides the ranking by the step cap alone.
	Tuned Regime = "tuned"
	// EqualStep gives every method the same primal step c = 0.9/L, L =
	// 4n; every other parameter is the method's default rule (ZO-SPLM:
	// beta = 1, so projected primal-dual gradient; alpha = 10/(2.2 L)).
	EqualStep Regime = "equal-step"
	// Theory puts each method in its own analysis' regime, with the
	// constants computed from the instance (L_f = ||Q||_2, the weak
	// convexity rho_wc = -lambda_min(Q) = 0.1): ZO-SPLM with p = 2 L_f >
	// L_f, beta = (p - L_f)/(24 p) = 1/48 (Lemma 8's bound) and c = 1/(L_f
	// + p); ZO-ALM and ZO-ConEX with a gamma-strongly-convex proximal
	// subproblem (gamma = 0.05 L_f > rho_wc) solved by ceil(2 kappa)
	// steps of 1/(L_f + gamma), kappa = (L_f + gamma)/(gamma - rho_wc),
	// before each multiplier update or proximal-center reset. See
	// Settings.
	Theory Regime = "theory"
)

// Regimes lists the regimes in table order.
var Regimes = []Regime{EqualStep, Theory, Tuned}

// ParseRegime returns the regime spelled name.
func ParseRegime(name string) (Regime, error) {
	for _, r := range Regimes {
		if string(r) == name {
			return r, nil
		}
	}
	return "", fmt.Errorf("zosplm: regime %q unknown, want one of %v", name, Regimes)
}

// Describe is the regime's one-line description for the table.
func (r Regime) Describe() string {
	switch r {
	case Tuned:
		return "each method's default rule, tuned on n = 50 (ZO-SPLM: c = 1/(2.2 L), beta = 1; baselines: c = 0.9/L; L = 4n)"
	case EqualStep:
		return "the same primal step c = 0.9/L (L = 4n) for every method, every other parameter at the method's default (ZO-SPLM: beta = 1, i.e. projected primal-dual gradient)"
	case Theory:
		return "each method in its own analysis' regime, constants from the instance (ZO-SPLM: p = 2 L_f, beta = 1/(24 kappa_1) = 1/48, c = 1/(L_f + p); baselines: a strongly convex proximal subproblem solved by ceil(2 kappa) steps per outer update)"
	}
	return string(r)
}

// Constants are the constants of an instance that the theory regime
// computes; the methods themselves see values only.
type Constants struct {
	// Lf is L_f = ||Q||_2, the smoothness of f.
	Lf float64
	// RhoWC is the weak-convexity modulus -lambda_min(Q) (0.1 by the
	// generator).
	RhoWC float64
	// Lh is L_h = ||A||_2, the smoothness of h (m = 1).
	Lh float64
	// Kh bounds the Lipschitz constant of h on X = [-10, 10]^n:
	// max_X ||A x + b|| <= ||A||_2 max_X ||x|| + ||b||.
	Kh float64
}

// InstanceConstants returns q's Constants (m = 1).
func InstanceConstants(q *qcqp.QCQP) Constants {
	radius := math.Max(math.Abs(q.Box.Lo), math.Abs(q.Box.Hi)) * math.Sqrt(float64(q.Dim()))
	lh := q.LipH(0)
	return Constants{Lf: q.LipF(), RhoWC: -q.LambdaMinQ(), Lh: lh, Kh: lh*radius + floats.Norm(q.B[0], 2)}
}

// Params are the three methods' parameters in a regime, with the
// analysis' bounds of ZO-SPLM where the regime computes them.
type Params struct {
	SPLM  zosplmalg.SPLMParams
	ALM   zosplmalg.ALMParams
	ConEx zosplmalg.ConExParams
	// Theory holds Lemma 8's bounds at the regime's p and c (Theory
	// regime only; zero otherwise), with L_L = L_f + B L_h + p.
	Theory zosplmalg.Theory
	// Kappa is the baselines' subproblem condition number (L_f +
	// gamma)/(gamma - rho_wc) (Theory regime only).
	Kappa float64
}

// subproblemWeight is the theory regime's proximal weight of the
// baselines' subproblems, as a fraction of L_f: large enough that the
// subproblem is strongly convex for every n (0.05 L_f >> rho_wc = 0.1),
// the baselines' default ratio.
const subproblemWeight = 0.05

// Params returns the methods' parameters in regime r for the n-variable
// instance q (m = 1). The estimators are the defaults; the experiment
// sets their k, r and chunk.
func (r Regime) Params(q *qcqp.QCQP) (Params, error) {
	n := q.Dim()
	p := Params{SPLM: zosplmalg.DefaultSPLMParams(n), ALM: zosplmalg.DefaultALMParams(n), ConEx: zosplmalg.DefaultConExParams(n)}
	switch r {
	case Tuned:
	case EqualStep:
		p.SPLM.C = 0.9 / zosplmalg.LfRule(n)
	case Theory:
		k := InstanceConstants(q)
		lf := k.Lf
		p.SPLM = zosplmalg.TheorySPLMParams(lf)
		s := &p.SPLM
		th, err := zosplmalg.NewTheory(lf, s.P, k.Kh, lf+s.B*k.Lh+s.P, s.C)
		if err != nil {
			return Params{}, err
		}
		p.Theory = th
		gamma := subproblemWeight * lf
		if !(gamma > k.RhoWC) {
			return Params{}, fmt.Errorf("zosplm: theory regime: gamma = %g does not exceed rho_wc = %g", gamma, k.RhoWC)
		}
		p.Kappa = (lf + gamma) / (gamma - k.RhoWC)
		inner := int(math.Ceil(2 * p.Kappa))
		a := &p.ALM
		a.Gamma, a.Step, a.Inner, a.G2, a.Rho0 = gamma, 1/(lf+gamma), inner, lf, 1/lf
		c := &p.ConEx
		c.Mu, c.C, c.Inner, c.Tau = gamma, 1/(lf+gamma), inner, lf/2
	default:
		return Params{}, fmt.Errorf("zosplm: regime %q unknown, want one of %v", r, Regimes)
	}
	return p, nil
}

// Setting is one row of the settings table: a parameter of a method, the
// rule that sets it in a regime, and where the rule comes from.
type Setting struct {
	Method, Name, Rule string
	// Source is "paper" (stated by the paper), "computed" (from the
	// instance or a bound of the analysis) or "chosen" (ours).
	Source string
	// Value returns the parameter's value on an instance (nil: the rule
	// is the value).
	Value func(p Params, k Constants) float64
}

// Settings lists, for regime r, every setting the table's runs use, with
// its source. The estimator, instance and stopping test are the paper's
// in every regime.
func (r Regime) Settings() []Setting {
	paper := []Setting{
		{"all", "estimator", "k directions uniform on the unit sphere, r = 1e-5, one shared base value (eq. 3)", "paper", nil},
		{"all", "instance", "Q = M^T M - delta I (lambda_min(Q) = -0.1), A = M1^T M1, d, b ~ N(0, I), c = -1, X = [-10, 10]^n, m = 1", "paper", nil},
		{"all", "stopping test", "stationarity, feasibility and complementarity all < eps = 1 (Definition 1), exact gradients, the method's own multiplier", "paper", nil},
		{"all", "x0, y0", "x0 = 0 (strictly feasible: h(0) = -1), y0 = 0", "chosen", nil},
	}
	v := func(f func(p Params, k Constants) float64) func(p Params, k Constants) float64 { return f }
	switch r {
	case Tuned, EqualStep:
		c := "1/(2.2 L), L = 4n"
		src := "chosen"
		if r == EqualStep {
			c = "0.9/L, L = 4n (the baselines' step)"
		}
		return append(paper,
			Setting{"ZO-SPLM", "c", c, src, v(func(p Params, _ Constants) float64 { return p.SPLM.C })},
			Setting{"ZO-SPLM", "p", "1.2 L (p > L_f for the rule L = 4n of L_f)", "chosen", v(func(p Params, _ Constants) float64 { return p.SPLM.P })},
			Setting{"ZO-SPLM", "beta", "1: z = x after every step, the proximal term is off (outside beta <= 1/(24 kappa_1))", "chosen", nil},
			Setting{"ZO-SPLM", "alpha, B", "alpha = 10/(2.2 L), B = 100", "chosen", nil},
			Setting{"ZO-ALM", "step, gamma", "eta_0 = 0.9/L, eta_k = eta_0/(1 + rho_k L eta_0); gamma = 0.05 L", "chosen", nil},
			Setting{"ZO-ALM", "penalty, inner", "rho_0 = 1/L, doubled per outer iteration up to 10; 5 inner steps per multiplier update", "chosen", nil},
			Setting{"ZO-ConEX", "c, mu", "c = 0.9/L, mu = 0.05 L", "chosen", nil},
			Setting{"ZO-ConEX", "tau, theta, inner, B", "tau = L/2, theta = 1, proximal center reset every 25 steps, B = 100", "chosen", nil},
		)
	case Theory:
		return append(paper,
			Setting{"all", "L_f", "||Q||_2 of the instance", "computed", v(func(_ Params, k Constants) float64 { return k.Lf })},
			Setting{"all", "rho_wc", "-lambda_min(Q), the weak convexity of f", "computed", v(func(_ Params, k Constants) float64 { return k.RhoWC })},
			Setting{"ZO-SPLM", "p", "2 L_f: p > L_f as the analysis needs; p = 2 L_f maximizes the proximal step beta/p = (p - L_f)/(24 p^2)", "chosen", v(func(p Params, _ Constants) float64 { return p.SPLM.P })},
			Setting{"ZO-SPLM", "beta", "1/(24 kappa_1) = (p - L_f)/(24 p), Lemma 8's bound (Lemma 1's further terms need delta_1 and sigma_X*: not computable)", "computed", v(func(p Params, _ Constants) float64 { return p.SPLM.Beta })},
			Setting{"ZO-SPLM", "c", "1/(L_f + p), the smoothness of L(., z; 0)", "chosen", v(func(p Params, _ Constants) float64 { return p.SPLM.C })},
			Setting{"ZO-SPLM", "Lemma 8's c bound", "min{1/(8 K_h), kappa_1/(32 p kappa_2^2), 1/(2 L_L)}, K_h = ||A||_2 10 sqrt(n) + ||b||, L_L = L_f + B L_h + p: computable, not used", "computed", v(func(p Params, _ Constants) float64 { return p.Theory.C })},
			Setting{"ZO-SPLM", "alpha, B", "alpha = 10 c (Lemma 8's alpha bound is of the order of its c bound), B = 100 (the analysis needs B above a constant it does not compute)", "chosen", v(func(p Params, _ Constants) float64 { return p.SPLM.Alpha })},
			Setting{"ZO-ALM", "gamma", "0.05 L_f > rho_wc: each subproblem is strongly convex", "chosen", v(func(p Params, _ Constants) float64 { return p.ALM.Gamma })},
			Setting{"ZO-ALM", "step", "eta_0 = 1/(L_f + gamma), the subproblem's smoothness at rho = 0; eta_k = eta_0/(1 + rho_k L_f eta_0)", "computed", v(func(p Params, _ Constants) float64 { return p.ALM.Step })},
			Setting{"ZO-ALM", "inner", "ceil(2 kappa), kappa = (L_f + gamma)/(gamma - rho_wc): the subproblem solved to about e^-2 of its initial error before each multiplier update (inexact ALM)", "computed", v(func(p Params, _ Constants) float64 { return float64(p.ALM.Inner) })},
			Setting{"ZO-ALM", "penalty", "rho_0 = 1/L_f, doubled per outer iteration up to 10", "chosen", nil},
			Setting{"ZO-ConEX", "mu, c, inner", "mu = gamma = 0.05 L_f, c = 1/(L_f + mu), proximal center reset every ceil(2 kappa) steps", "computed", v(func(p Params, _ Constants) float64 { return p.ConEx.C })},
			Setting{"ZO-ConEX", "tau, theta, B", "tau = L_f/2, theta = 1, B = 100", "chosen", nil},
		)
	}
	return paper
}
