// Package pushsum implements push-sum ratio consensus (Kempe, Dobra and
// Gehrke 2003, "Gossip-based computation of aggregate information") and
// subgradient-push (Nedic and Olshevsky 2015, "Distributed optimization
// over time-varying directed graphs", IEEE TAC 60(3)) over a random
// time-varying directed graph, as per-agent state machines with a
// centralized matrix-form reference.
//
// # Push-sum
//
// Agent i holds a numerator x_i in R^n and a weight y_i > 0, starting
// from its initial point x_i(0) and y_i(0) = 1 (Kempe et al.'s sum s_i and
// weight w_i). In round t the arcs present A(t) are drawn from the run's
// arc process (graph.ArcProcess, draw 0), and agent i splits [x_i, y_i]
// equally among itself and the out-neighbours it reaches: with the
// column-stochastic C(t)_ji = 1/(1 + d_out_i(t)) of graph.ColumnStochastic,
//
//	x(t+1) = C(t) x(t),   y(t+1) = C(t) y(t),   z_i(t+1) = x_i(t+1) / y_i(t+1).
//
// 1^T C(t) = 1^T keeps sum_i x_i and sum_i y_i = N, so when the union of
// the arcs over bounded windows is strongly connected every estimate z_i
// converges to the average (1/N) sum_i x_i(0), whatever the imbalance of
// the digraph: the weights y_i correct it. Kempe et al.'s protocol sends
// half to one random neighbour; this is the broadcast form with the
// out-degree weights, which every agent can apply knowing only its own
// out-degree (Nedic and Olshevsky, Section II).
//
// # Subgradient-push
//
// With local objectives f_i, the mixed numerator w_i(t+1) = (C(t) x(t))_i
// gives the estimate z_i(t+1) = w_i(t+1) / y_i(t+1) and the step
//
//	x_i(t+1) = w_i(t+1) - alpha(t+1) g_i(t+1),   g_i(t+1) = grad f_i(z_i(t+1)),
//
// the iteration of the paper's Section II (its equations for w, y, z and
// x, with alpha(t) = alpha/sqrt(t) the schedule of its rate result, or
// alpha/t, or a constant alpha). Every z_i converges to a minimizer of
// sum_i f_i under a uniformly strongly connected sequence of digraphs and
// steps with sum alpha(t) = infinity, sum alpha(t)^2 < infinity.
//
// # Messages
//
// One phase per round: agent i sends the values C(t)_ji [x_i, y_i] (n+1
// numbers, scaled by the sender, which alone knows d_out_i(t)) to every
// out-neighbour j whose arc is present, and expects one from every
// in-neighbour whose arc is present; the common randomness tells both
// ends. A message missing at the deadline is mass lost: the agent sums
// what arrived, so sum_i x_i and sum_i y_i shrink, and the estimates
// converge to a weighted average of the initial values instead of the
// average (the ratio keeps them consistent: x and y lose the same share).
//
// pushsum imports consensus, consensus/registry, observe (for
// push_sum's measures), objective, graph and gonum; it must not import
// node, coordinator, scenarios or cmd.
package pushsum
