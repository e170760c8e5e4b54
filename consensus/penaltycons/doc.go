// Package penaltycons is the decentralized quadratic-penalty baseline: the
// accelerated stochastic gradient (Algorithm 1 of Lu and Xiao, package
// penalty) applied to the consensus constraint E[A] x = 0 of
//
//	min_{x_1..x_N in X} f(x) = (1/N) sum_i f_i(x_i),
//
// through the penalty (rho_k/2) x^T (L_p kron I_n) x = (rho_k/2) sum_{ij}
// p_ij ||x_i - x_j||^2, whose gradient rho_k A(zeta)^T A(zeta) x is
// estimated with the round's single edge draw zeta_t (graph.DrawDual;
// E[A(zeta)^T A(zeta)] = L_p). Iteration k = t + 1 of agent i is
//
//	y_i     = (1 - 1/b_k) x_i + (1/b_k) z_i,
//	g_i     = (1/N) G_i(y_i; xi_i^t) + rho_k sum_{j: {i,j} in E(zeta_t)} (y_i - y_j),
//	z_i    <- proj_X(z_i - gamma_k g_i),
//	x_i    <- (1 - 1/b_k) x_i + (1/b_k) z_i,
//
// with (rho_k, b_k, gamma_k) of penalty.Params1: Theorem 1's constant
// rho = K^{3/2} for the horizon K = T, or Theorem 2's growing
// rho_k = (k+4)^{3/2}, with L_f = max_i L_i / N and L_grad_c2 =
// lambda_max(L_p) = ||E[A(zeta)^T A(zeta)]||. One exchange of y_i per
// round, over the present edges. A neighbour whose y_j is missing at the
// deadline is skipped for the round. Lu and Xiao's analysis is for convex
// f; on nonconvex f the method is a heuristic baseline.
//
// Agent is the per-agent state machine, Reference the stacked matrix form
// on the same draws. penaltycons imports consensus, consensus/penalty,
// objective, consensus/registry, graph and gonum; it must not
// import node, coordinator, scenarios or cmd.
package penaltycons
