// Package alm implements the stochastic smoothed linearized augmented
// Lagrangian method (Huang, Zhang and Alacaoglu, Algorithms 1 and 2) for
// decentralized consensus over a random time-varying graph (section 6.1):
//
//	min_{x_1..x_N in X} f(x) = (1/N) sum_i f_i(x_i)  s.t.  E[A(zeta)] x = 0,
//
// with A(zeta) = W(zeta) kron I_n, W(zeta) the edge-agent incidence matrix of
// the edges present in a draw zeta. Round t of the method is
//
//	y_{t+1} = y_t + eta A(zeta0) x_t              (reset to 0 if ||y_{t+1}|| >= M_y)
//	G_t     = grad f(x_t, xi_t) + A(zeta1)^T y_{t+1}
//	          + rho A(zeta1)^T A(zeta2) x_t + mu (x_t - z_t)
//	x_{t+1} = proj_X(x_t - tau G_t)
//	z_{t+1} = z_t + beta (x_t - z_t)
//
// with three independent edge draws zeta0, zeta1, zeta2 per round taken from
// the common randomness of package graph. With every p_ij = 1 and no
// safeguard the draws are deterministic and the method is Algorithm 1.
//
// Agent is the per-agent state machine (a consensus.Agent); Reference is
// the centralized matrix-form iteration on the same draws, used to verify
// the agents. Each edge dual y_ij has one writer, the lower endpoint,
// which sends its value to the other endpoint in a second phase of the
// round, so message loss delays a copy instead of forking the dual (see
// Agent). Practical and Theory are parameter presets.
//
// alm imports consensus, objective, graph and gonum only; it must
// not import node, coordinator, scenarios or cmd.
package alm
