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
// # One exchange per round, edge variables at both endpoints
//
// Agent i holds x_i and, for each incident edge e = {i, j}, replicas
// z_e^(i) and y_e^(i). In round t it computes its x-step in Send (from the
// values after round t-1) if one of its edges is present, and sends to each
// present neighbour j the message (x_i, y_e^(i)). In Receive it updates,
// for every present edge whose message arrived (a live edge), with lo and
// hi the lower and higher endpoint,
//
//	z_e <- (x_lo + x_hi)/2,
//	y_e <- (y_e^(lo) + y_e^(hi))/2 + (rho/2)(x_lo - x_hi),
//
// from its own values and the received ones. Both endpoints of a live edge
// evaluate these expressions on the same four vectors in the same order,
// so their replicas are bit-identical after the round; without message
// loss the two replicas are equal before it too, (y + y)/2 = y exactly,
// and the step is the method's. No message beyond the round's one
// exchange is needed.
//
// Message loss. If both directions of a present edge are lost, neither
// endpoint updates the edge: the edge behaves as absent for z and y (the
// endpoints' x-steps of the round were taken already, from consistent
// values). If only one direction is lost (j hears i, i does not hear j),
// j updates z_e and y_e and i does not: for the following rounds the
// replicas differ, y_e^(j) - y_e^(i) = (y_e^(i) + y_e^(j))/2 - y_e^(i) +
// (rho/2)(x_i - x_j), and i's z_e is stale. The drift is visible in the
// reports (consensus.Report.EdgeDuals, metrics.DualDrift) and lasts until
// the next round in which both directions of the edge arrive: then both
// endpoints replace z_e by the same average and y_e by the same midpoint of
// the two replicas plus the same increment, and the replicas agree again.
// Meanwhile sum_i Lambda_i = sum_e (y_e^(lo) - y_e^(hi)) is off zero by the
// unhealed drifts, which are bounded by the dual increments
// (rho/2)||x_i - x_j|| of the rounds since each edge's last two-way
// exchange and vanish as the iterates reach consensus; so, unlike dadmm's
// accumulated per-agent duals, one-sided loss does not bias the limit.
//
// # Reports
//
// X = x_i; Measures (see Measures): ||(1/N) grad f_i(x_i) + Lambda_i^(i)||^2 with the full
// local gradient (agent i's block of the stationarity residual; consensus
// is measured from the X of all agents) and sum_{e at i} ||y_e^(i)||^2,
// agent i's half of ||lambda||^2 = sum_e ||lambda_{e,i}||^2 +
// ||lambda_{e,j}||^2 = 2 sum_e ||y_e||^2; GradEvals the stochastic gradient
// samples drawn (0 for the exact method); EdgeDuals, when Config.ReportDuals
// is set, the replicas y_e^(i) ascending by peer, in the edge's own
// orientation, so that equal replicas report equal vectors.
//
// radmm imports consensus, consensus/problem, consensus/registry, graph and
// gonum only; it must not import node, coordinator, scenarios or cmd.
package radmm
