package penalty

import (
	"fmt"
	"math/rand/v2"

	"github.com/consim/consim/graph"
	"github.com/consim/consim/problems/constrlogistic"
)

// Alg1Config configures a run of Algorithm 1.
type Alg1Config struct {
	Rule Rule1
	// K is the number of iterations; Theorem 1's rho = K^{3/2} uses it.
	K int
	// X1 is the starting point x_1 in dom psi (copied).
	X1 []float64
	// Seed keys the samples: iteration k draws xi_k from a PCG seeded by
	// graph.SeedSample(seed, k, 0).
	Seed uint64
	// Every records every Every-th iteration (and the start and the last);
	// 0 means every iteration.
	Every int
	// Objective evaluates F(x) for the trace (the paper averages the loss
	// over the 10,000 generated samples); it is required.
	Objective func(x []float64) float64
}

// RunAlg1 runs Algorithm 1 (ASG on the penalty sequence, one sample per
// step) for cfg.K iterations and returns its trace and the last iterate
// x_{K+1}:
//
//	z_1 = x_1
//	y_k     = (1 - 1/beta_k) x_k + (1/beta_k) z_k
//	g_k     = grad f~(y_k, xi_k) + rho_k grad c(y_k) [c(y_k)]_+
//	z_{k+1} = prox_{gamma_k psi}(z_k - gamma_k g_k)
//	x_{k+1} = (1 - 1/beta_k) x_k + (1/beta_k) z_{k+1}
//
// with (rho_k, beta_k, gamma_k) of Params1.
func RunAlg1(f constrlogistic.Stochastic, c constrlogistic.Constraints, psi constrlogistic.Regularizer, cfg Alg1Config) (Trace, []float64, error) {
	n := f.Dim()
	if len(cfg.X1) != n {
		return Trace{}, nil, fmt.Errorf("penalty: Algorithm 1: x1 has length %d, want %d", len(cfg.X1), n)
	}
	if cfg.K < 1 || cfg.Objective == nil {
		return Trace{}, nil, fmt.Errorf("penalty: Algorithm 1: need K >= 1 and an Objective")
	}
	lf, lc2 := f.Smoothness(), c.LipGradSq()
	x := append([]float64(nil), cfg.X1...)
	z := append([]float64(nil), cfg.X1...)
	y := make([]float64, n)
	g := make([]float64, n)
	cv := make([]float64, c.Len())
	var pcg rand.PCG
	rng := rand.New(&pcg)
	rec := recorder{every: cfg.Every, last: cfg.K}
	tr := Trace{Method: "Algorithm 1, " + cfg.Rule.String()}
	tr.Records = append(tr.Records, Record{Objective: cfg.Objective(x), Violation: constrlogistic.Violation(c, x, cv)})
	for k := 1; k <= cfg.K; k++ {
		st, err := Params1(cfg.Rule, cfg.K, k, lf, lc2)
		if err != nil {
			return Trace{}, nil, err
		}
		ib := 1 / st.Beta
		for j := range y {
			y[j] = (1-ib)*x[j] + ib*z[j]
		}
		graph.SeedSample(&pcg, cfg.Seed, k, 0)
		f.StochGrad(y, g, rng)
		addPenaltyGrad(c, y, st.Rho, g, cv)
		for j := range z {
			z[j] -= st.Gamma * g[j]
		}
		psi.Prox(z, st.Gamma, z)
		for j := range x {
			x[j] = (1-ib)*x[j] + ib*z[j]
		}
		if rec.want(k) {
			tr.Records = append(tr.Records, Record{Iter: k, GradEvals: int64(k),
				Objective: cfg.Objective(x), Violation: constrlogistic.Violation(c, x, cv), Rho: st.Rho})
		}
	}
	return tr, x, nil
}
