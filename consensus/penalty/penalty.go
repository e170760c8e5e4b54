package penalty

import (
	"fmt"

	"github.com/consim/consim/problems/constrlogistic"
)

// addPenaltyGrad adds rho grad c(x) [c(x)]_+ (the gradient of
// (rho/2)||[c(x)]_+||^2) to g, using cv (len m) as scratch.
func addPenaltyGrad(c constrlogistic.Constraints, x []float64, rho float64, g, cv []float64) {
	c.Eval(x, cv)
	any := false
	for i, v := range cv {
		if v > 0 {
			any = true
		} else {
			cv[i] = 0
		}
	}
	if any {
		c.AddJacT(x, cv, rho, g)
	}
}

// RunFiniteSum runs Algorithm 2 on the finite-sum problem (43) p under
// rule for K outer iterations from p.X0 with the sample seed of p's spec
// (shards as in Alg2Config), recording every every-th outer iteration;
// FStar is p.Opt.F.
func RunFiniteSum(p *constrlogistic.FiniteSumProblem, rule Rule2, bigK, every int, shards []int) (Trace, error) {
	tr, _, err := RunAlg2(p.F, p.Cons, p.Psi, Alg2Config{Rule: rule, K: bigK, X0: p.X0, Seed: p.Spec.Seed, Every: every, Shards: shards})
	if err != nil {
		return Trace{}, err
	}
	tr.FStar = p.Opt.F
	return tr, nil
}

// RunFiniteSumEAG runs EAG-V on p for iters iterations from (X0, 0) with
// R = KKTLipschitz(F.Smoothness(), Cons) and alpha_0 = 0.618/R; FStar is
// p.Opt.F.
func RunFiniteSumEAG(p *constrlogistic.FiniteSumProblem, iters, every int) (Trace, error) {
	r := KKTLipschitz(p.F.Smoothness(), p.Cons)
	tr, _, err := RunEAG(p.F, p.Cons, p.Psi, EAGConfig{Iters: iters, X0: p.X0, R: r, Every: every})
	if err != nil {
		return Trace{}, err
	}
	tr.FStar = p.Opt.F
	return tr, nil
}

// RunSynthetic runs Algorithm 1 on the synthetic problem (42) s under rule
// for K iterations from s.X1, sampling fresh (X, Y) from its model with
// sample seed seed, recording every every-th iteration, and returns the
// trace with FStar = fstar.
func RunSynthetic(s *constrlogistic.Synthetic, rule Rule1, bigK int, seed uint64, every int, fstar float64) (Trace, error) {
	model := &constrlogistic.LogisticModel{W: s.Model.W}
	tr, _, err := RunAlg1(model, s.Cons, s.Psi, Alg1Config{Rule: rule, K: bigK, X1: s.X1, Seed: seed, Every: every, Objective: s.Objective})
	if err != nil {
		return Trace{}, fmt.Errorf("penalty: synthetic %v: %w", rule, err)
	}
	tr.FStar = fstar
	return tr, nil
}
