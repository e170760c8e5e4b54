// Package penalty implements the quadratic-penalty accelerated stochastic
// gradient methods of Lu and Xiao ("First-order methods for stochastic and
// finite-sum convex optimization with deterministic constraints", 2025) for
//
//	min_x F(x) = f(x) + psi(x)  s.t.  c(x) <= 0,
//
// where f is E[f~(x, xi)] (Algorithm 1) or the finite sum
// fbar(x) = (1/s) sum_i f_i(x) (Algorithm 2), psi has an exact prox and c is
// deterministic, convex and smooth. Both methods apply one accelerated
// (Algorithm 1) or variance-reduced accelerated (Algorithm 2) scheme, once,
// to the sequence of quadratic penalty problems
//
//	F_rho_k(x) = f(x) + psi(x) + (rho_k/2) ||[c(x)]_+||^2
//
// with the constant or dynamic penalty parameters of Theorems 1-4.
//
// The problems of the paper's Section 5 (the synthetic constrained
// stochastic logistic regression of 5.1 and the constrained finite-sum
// logistic regression of 5.2 built from caller-given data such as LIBSVM
// a9a), the oracle interfaces of the problem form (FiniteSum, Stochastic,
// Constraints, Regularizer) and the independent solver of their optimum
// (an augmented Lagrangian method with accelerated proximal-gradient inner
// solves and a KKT certificate) are package problems/constrlogistic's.
// This package holds the methods, the extra anchored gradient method (EAG,
// Yoon and Ryu 2021) on the KKT operator as the paper's baseline, their
// runs on those problems (RunSynthetic, RunFiniteSum, RunFiniteSumEAG),
// traces of objective, violation and gradient evaluations, the evaluation
// of the paper's qualitative claims, the experiments, and a data-parallel
// form of Algorithm 2 as consensus.Agent values whose full gradient is an
// all-reduce over data shards.
//
// The package is pure: no I/O, no goroutines, no clocks and no global random
// source. Every stochastic sample is drawn from a PCG generator seeded by
// graph.SeedSample, so a run replays exactly and the data-parallel agents
// draw the same samples as the single-agent run. penalty imports consensus
// (for the Agent contract), consensus/registry, problems/constrlogistic,
// graph (for common randomness) and gonum only; it must not import node,
// coordinator, scenarios, dataset or cmd.
package penalty
