// Package radmm implements ADMM under random edge activation with one
// dual per edge, the asynchronous/randomized decentralized ADMM of
// Iutzeler, Bianchi, Ciblat and Hachem (2013), "Asynchronous distributed
// optimization using a randomized alternating direction method of
// multipliers", and Wei and Ozdaglar (2013), "On the O(1/k) convergence of
// asynchronous distributed alternating direction method of multipliers",
// as per-agent state machines (consensus.Agent) with a centralized
// matrix-form reference on the same draws.
//
// # Problem and splitting
//
//	min_x f(x) = (1/N) sum_i f_i(x)
//
// is solved as min sum_i (1/N) f_i(x_i) subject to x_i = z_e and x_j = z_e
// for every edge e = {i, j} (i < j) of the graph, with one edge variable
// z_e in R^n per edge and the duals lambda_{e,i} of x_i = z_e and
// lambda_{e,j} of x_j = z_e. Started from lambda = 0 the method keeps
// lambda_{e,i} + lambda_{e,j} = 0 exactly (see below), so one dual y_e =
// lambda_{e,i} per edge, oriented from its lower endpoint i, carries both:
// lambda_{e,j} = -y_e. In stacked form, with B the signed edge-agent
// incidence matrix (row e = e_i - e_j, i < j), |B| its absolute value and
// D = diag(d_i) the degree matrix (all kron I_n), the augmented Lagrangian
// is
//
//	L_rho(x, z, y) = sum_i (1/N) f_i(x_i) + sum_{e = {i,j}} [ <y_e, x_i - x_j> + (rho/2)(||x_i - z_e||^2 + ||x_j - z_e||^2) ]
//	               = sum_i (1/N) f_i(x_i) + <y, B x> + (rho/2)(x^T D x - 2 z^T |B| x + 2 ||z||^2)
//
// (the z_e terms of the duals cancel, lambda_{e,i} + lambda_{e,j} = 0).
//
// # Round t
//
// The edges E(t) present in draw (t, graph.DrawDual) are active; V(t) are
// their endpoints. With d_i the degree of i in the graph (all its edges,
// present or not) and Lambda_i = (B^T y)_i = sum_{e = {i,j}} s_ij y_e,
// s_ij = +1 if i < j and -1 otherwise:
//
//	i in V(t):  x_i <- argmin_x (1/N) f_i(x) + <Lambda_i, x> + (rho/2) sum_{e at i} ||x - z_e||^2
//	                 = prox_{f_i}(v_i, N rho d_i),  v_i = (sum_{e at i} z_e - Lambda_i/rho) / d_i    (exact)
//	            x_i <- x_i - [ (1/N) G_i(x_i, xi_i) + Lambda_i + rho sum_{e at i} (x_i - z_e) ] / (rho d_i + 1/tau_i)   (linearized)
//	i not in V(t): x_i unchanged
//	e = {i,j} in E(t):  z_e <- (x_i + x_j)/2,  y_e <- y_e + (rho/2)(x_i - x_j)     (the new x)
//	e not in E(t):      z_e, y_e unchanged.
//
// The z and dual steps are those of the ADMM on the active block:
// z_e = argmin_z -<lambda_{e,i} + lambda_{e,j}, z> + (rho/2)(||x_i - z||^2 +
// ||x_j - z||^2) = (x_i + x_j)/2 + (lambda_{e,i} + lambda_{e,j})/(2 rho), and
// lambda_{e,k} += rho (x_k - z_e) for k = i, j, whose sum is
// (lambda_{e,i} + lambda_{e,j}) + rho (x_i + x_j - 2 z_e) = 0: the two duals
// of an edge stay opposite, exactly in floating point too, since the two
// increments are negatives of each other. The linearized x-step minimizes
// the same subproblem with (1/N) f_i replaced by its stochastic
// linearization at x_i plus (1/(2 tau_i))||x - x_i||^2; its default tau_i
// = N / L_i makes that proximal term dominate the curvature of (1/N) f_i.
// An agent without graph neighbours (N = 1) is in V(t) in every round: the
// linearized method is then SGD, x <- x - tau G(x, xi); the exact method
// keeps x (its subproblem argmin (1/N) f_i is not a prox).
//
// Optimality. At a fixed point where every edge is active infinitely
// often, y_e stationary gives x_i = x_j = z_e on every edge (consensus on a
// connected graph) and the x-step gives (1/N) grad f_i(x) + Lambda_i = 0;
// sum_i Lambda_i = sum_e (y_e - y_e) = 0 by construction, so
// (1/N) sum_i grad f_i(x) = 0: x is the optimum. Unlike the decentralized
// ADMM of package dadmm, whose per-agent duals a_i sum to zero only when
// both endpoints add opposite increments, here the zero sum is structural,
// and an inactive edge or agent leaves every variable it owns unchanged, so
// no force acts on an agent in a round where none of its edges is present.
//
// # Two phases per round, one writer per edge
//
// Agent i holds x_i and, for each incident edge e = {i, j}, z_e and y_e:
// the values if it is the edge's lower endpoint (its owner, o), copies of
// the owner's values if it is the higher one (the reader, u), each with a
// version, the round t+1 of the owner's last write. In round t an agent
// computes its x-step in Send (from the values after round t-1) if one of
// its edges is present, then:
//
//	phase 0: x_i to every present neighbour j, x_j back;
//	         the owner of every present edge whose x_u arrived writes
//	         z_e <- (x_o + x_u)/2,  y_e <- (y_e + y_e)/2 + (rho/2)(x_o - x_u),
//	         version t+1;
//	phase 1: over every present edge, the owner sends (z_e, y_e, version)
//	         to the reader, which replaces its copies with them; the reader
//	         sends back the version of its copies (which keeps the exchange
//	         symmetric: both ends wait for each other in both phases). An
//	         agent's phase-1 message is one payload for all its present
//	         neighbours: each reads its edge's part at a known offset.
//
// (y + y)/2 = y exactly, and the expressions are the ones both replicas of
// the earlier one-phase protocol evaluated, so lossless runs keep their
// bits and the copies equal the owner's values after every round: the
// step is the method's.
//
// Message loss. A round's update of an edge is applied once, by the
// owner, iff the owner received x_u; otherwise the edge behaves as absent
// for z and y in that round (the endpoints' x-steps were taken already,
// from their values). A lost phase-1 message leaves the reader's copies at
// an older version until the next one arrives: the reader's next x-steps
// use z_e and y_e delayed, never a second, diverging value. So sum_i
// Lambda_i = sum_e (y_e - copy_e) is off zero only by the writes the
// copies have not received yet, which are bounded by the increments
// (rho/2)||x_o - x_u|| of the rounds since the last delivered copy and
// vanish as the iterates reach consensus; one-sided loss does not bias the
// limit. No protocol over lossy links can keep both ends equal at every
// instant (the last message may be lost: the two generals problem); this
// one guarantees that they never hold different values of one version,
// which is what the reports' versions let observe.DualDrift check.
//
// # Reports
//
// X = x_i; Measures (see Measures): ||(1/N) grad f_i(x_i) + Lambda_i^(i)||^2 with the full
// local gradient (agent i's block of the stationarity residual; consensus
// is measured from the X of all agents) and sum_{e at i} ||y_e^(i)||^2,
// agent i's half of ||lambda||^2 = sum_e ||lambda_{e,i}||^2 +
// ||lambda_{e,j}||^2 = 2 sum_e ||y_e||^2; GradEvals the stochastic gradient
// samples drawn (0 for the exact method); EdgeDuals, when Config.ReportDuals
// is set, the agent's y_e (value or copy) with its version, ascending by
// peer, in the edge's own orientation, so that equal copies report equal
// vectors.
//
// radmm imports consensus, objective, consensus/registry, graph and
// gonum only; it must not import node, coordinator, scenarios or cmd.
package radmm
