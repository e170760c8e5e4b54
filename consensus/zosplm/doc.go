// Package zosplm implements ZO-SPLM, the zeroth-order smoothed proximal
// Lagrangian method of Dong, Zhao, Pu, Zhou and Yin (Algorithm 1) for
//
//	min_{x in X} f(x)  s.t.  h_j(x) <= 0, j = 1..m,
//
// where f and h are black boxes known by their values only, h_j convex and
// X a box. With the proximal Lagrangian
//
//	L(x, z; y) = f(x) + <y, h(x)> + (p/2) ||x - z||^2,
//
// iteration t is (with the sign of the primal step restored, see the notes)
//
//	G_t     = (n/(r k)) sum_{i=1..k} [L(x_t + r D_i, z_t; y_t) - L(x_t, z_t; y_t)] D_i   (eq. 3)
//	x_{t+1} = proj_X(x_t - c G_t)
//	y_{t+1} = proj_[0,B]^m(y_t + alpha h(x_{t+1}))
//	z_{t+1} = z_t + beta (x_{t+1} - z_t)
//
// with directions D_i uniform on the unit sphere (or N(0, I/n)) drawn from
// common randomness, one shared base value L(x_t, z_t; y_t) and k + 1 joint
// evaluations of (f, h) per iteration.
//
// The problem, the nonconvex QCQP of the paper's experiment with its
// exact gradients and the stochastic eps-stationarity measures of
// Definition 1, is package problems/qcqp's. This package holds:
//
//   - the estimator of eq. (3) as reverse communication: a method puts its
//     k + 1 evaluations in consensus.Outbox.Evals as one value request and
//     a few chunk requests, each naming a range of directions by a key of
//     common randomness; Oracle evaluates them (a pure function of the
//     request) on any worker, and the method reduces the chunk sums in
//     request order, so its iterates do not depend on the number of
//     workers or on the transport;
//   - Server, Algorithm 1 as a consensus.Agent, and the baselines ALM (a
//     zeroth-order inexact augmented Lagrangian method after Li et al.,
//     relaxed to inequalities) and ConEx (a zeroth-order constraint
//     extrapolation method after Nguyen and Balasubramanian) with the same
//     estimator and oracle;
//   - Driver, the in-line driver that evaluates the requests itself, and
//     Reference, Algorithm 1 written directly from the paper's equations
//     in matrix form on the same directions;
//   - TrialSeeds, the seeds of the instance and the directions of a trial
//     of the Table 2 comparison (experiments/zosplm).
//
// The package is pure: no I/O, no goroutines, no clocks, no global random
// source. Every random choice comes from graph.Hash keys. zosplm imports
// consensus, consensus/registry, objective, problems/qcqp, graph and
// gonum only; it must not import node, coordinator, scenarios or cmd.
package zosplm
