// Package pushpull implements gradient tracking over directed graphs with
// a row-stochastic and a column-stochastic matrix: the push-pull gradient
// method of Pu, Shi, Xu and Nedic ("Push-pull gradient methods for
// distributed optimization in networks", IEEE TAC 66(1), 2021) and, as
// its other form, the AB algorithm of Xin and Khan ("A linear algorithm
// for optimization over directed graphs with geometric convergence", IEEE
// Control Systems Letters 2(3), 2018), as per-agent state machines with a
// centralized matrix-form reference.
//
// # The iteration
//
// Agent i holds x_i in R^n and the tracker y_i of the gradient sum. With
// A(k) the arcs present in round k (the run's arc process, draw 0) and
// the matrices of graph.RowStochastic and graph.ColumnStochastic on them,
//
//	R(k)_ij = 1/(1 + d_in_i(k))    (i pulls from itself and the in-neighbours it hears)
//	C(k)_ji = 1/(1 + d_out_i(k))   (i pushes to itself and the out-neighbours it reaches),
//
// the push-pull form (Pu et al., Algorithm 1 in matrix form) is
//
//	x(k+1) = R(k) (x(k) - alpha y(k))
//	y(k+1) = C(k) y(k) + grad F(x(k+1)) - grad F(x(k)),   y(0) = grad F(x(0)),
//
// and the AB form (Xin and Khan) takes the step after the mix,
// x(k+1) = R(k) x(k) - alpha y(k), with the same y. The papers analyse a
// fixed R and C; drawing both from the arcs present in each round is the
// time-varying variant their experiments run (and that Saadatniaki, Xin
// and Khan analyse for the AB form). Because every C(k) is
// column-stochastic, 1^T y(k) = 1^T grad F(x(k)) in every round: y tracks
// the sum of the gradients, so a constant step reaches the exact
// minimizer of sum_i f_i, linearly for strongly convex smooth f_i and
// alpha small enough (Pu et al., Theorem 1, give a sufficient bound in
// terms of the mixing matrices' norms, mu and L; it is conservative and
// not computed here: alpha is a key). Pu et al. allow a different step
// alpha_i per agent; here every agent takes the same alpha.
//
// The method is unconstrained: the problem's box X is not used, so its
// limit is the minimizer of sum_i f_i over R^n, which is the problem's
// optimum when that lies inside X.
//
// # Messages
//
// One phase per round: agent j sends [v_j, C_ij y_j] to every
// out-neighbour i whose arc is present, with v_j = x_j - alpha y_j
// (push-pull) or x_j (AB): the sender scales the pushed part with its own
// 1/(1 + d_out_j), the receiver the pulled part with its own
// 1/(1 + d_in_i), both known from the common randomness. A message
// missing at the deadline counts as if the sender had sent the
// receiver's own v_i (R's row still sums to 1) and its pushed share of y
// is lost (y then no longer tracks the gradient sum exactly).
//
// pushpull imports consensus, consensus/registry, objective, graph and
// gonum; it must not import node, coordinator, scenarios or cmd.
package pushpull
