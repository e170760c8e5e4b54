// Package tsp implements TSP, the two-sided smoothed primal-dual method for
// nonconvex bilevel optimization (Lu, "TSP: A Two-Sided Smoothed
// Primal-Dual Method for Nonconvex Bilevel Optimization", ICML 2025,
// Algorithm 1), for the Moreau-envelope reformulation
//
//	min_{x,y} f(x, y)  s.t.  g(x, y) - g*_gamma(x, y) <= delta,
//	g*_gamma(x, y) = min_z g(x, z) + ||z - y||^2 / (2 gamma),
//
// together with the penalty baselines the paper compares against (V-PBGD,
// BOME, MEHA), the distributed form as consensus.Agent state machines (an
// upper-level agent holding y and task agents holding blocks of x and of
// the training set, in a star) and its registration (tsp). The data
// hyper-cleaning problem is problems/hyperclean; the experiment that
// reproduces the paper's table is experiments/tsp.
//
// Every method works on a bilevel.Bilevel given by first-order oracles
// (bilevel.Objective): f and g are never differentiated through, and no
// Hessian is formed. The problems are other packages': the bilevel form,
// its split over task agents and the tiny kind bilevel_quad are
// problems/bilevel's, the data hyper-cleaning problem of the paper's
// Section 4 (a linear 784 -> 10 softmax model y, one weight x_i per
// training sample; its metrics, test accuracy of y and F1 of the
// clean-sample detection x_i >= 0) is problems/hyperclean's.
//
// The hyper-cleaning lower level is a sum over the training samples (the
// paper's l_tr); MeanUnits states the constants for the mean-normalized
// lower level of the authors' code, which the scenario key units: mean and
// the experiment turn into the equivalent constants of the sum.
//
// The package is pure: no I/O, no goroutines of its own, no clocks, no
// global random source. tsp imports consensus, consensus/registry,
// problems/bilevel, problems/hyperclean, graph and gonum; it must not
// import node, coordinator, scenarios, dataset or cmd: callers load the
// MNIST files (package dataset) and hand the arrays in.
package tsp
