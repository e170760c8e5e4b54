// Package admm implements com-SVR-ADMM (Yu and Huang, "Fast Stochastic
// Variance Reduced ADMM for Stochastic Composition Optimization",
// Algorithm 1) for
//
//	min_{x,w} F(x) + R(w)  s.t.  A x + B w = 0,
//	F(x) = (1/n) sum_i f_i( (1/m) sum_j g_j(x) ),
//
// and Algorithm 2 for the general convex case (ComSVRADMM2: exact inner
// values g(x^k) at every inner step, the step schedule and proximal metric
// G_k falling from I/s to I/(s+1), warm starts), together with the
// baselines of the paper's experiments: com-SVRG-1 and
// com-SVRG-2 (Lian, Wang and Liu, 2017) and SGD with an exact inner
// function. The composition form and the mean-variance portfolio problem
// (the paper's eq. 24) on which they are compared are package
// problems/portfolio's.
//
// Every first-order query goes through an OracleCounter so that methods are
// compared on the paper's x-axis, "oracle calls": one value g_j(x) is one
// query, one Jacobian dg_j(x) (or one product (dg_j(x))^T u) is one query,
// and one gradient grad f_i(y) is one query.
//
// The package is pure: no I/O, no goroutines, no clocks. Every random choice
// is drawn from a *rand.Rand the caller passes in, so a run replays exactly.
// admm imports gonum, graph (for graph.Hash seeds) and problems/portfolio
// only; it must not import node, coordinator, scenarios or cmd.
package admm
