// Package tracking implements gradient tracking in the form DIGing (Nedic,
// Olshevsky and Shi 2017, "Achieving geometric convergence for distributed
// optimization over time-varying graphs") over a random time-varying
// graph, as per-agent state machines with a centralized matrix-form
// reference.
//
// Agent i holds x_i and the tracker y_i of the average gradient, both in
// R^n. With W_t = W(zeta_t) the mixing matrix of the edges present in round
// t (graph.Mixing, edge stream graph.StreamDual) and g_i^t the gradient of
// f_i at x_i^t, the iteration in matrix form (rows = agents) is
//
//	X_{t+1} = W_t X_t - alpha Y_t
//	Y_{t+1} = W_t Y_t + G_{t+1} - G_t,    Y_0 = G_0 = grad F(X_0).
//
// Because every W_t is doubly stochastic, 1^T Y_t = 1^T G_t for all t: y_i
// tracks the average gradient, so a constant step alpha converges to the
// exact minimizer of sum_i f_i (geometrically for strongly convex f_i),
// where DGD stops at an O(alpha) neighbourhood.
//
// # One exchange per round
//
// Both mixes of round t apply the same W_t to x^t and y^t, which agent i
// holds when the round starts, so one message carrying [x_i, y_i] (2n
// values) per present edge and round does the whole exchange. Two phases
// (x first, then y) would double the latency and the message count, and
// they would need the same edge draw in both phases to be DIGing at all:
// the paper's W(k) is one matrix per iteration.
//
// # Gradients
//
// Params.Gradient selects grad f_i (GradientFull, the default: DIGing as
// published) or the stochastic gradient G_i(x_i^t, xi_i^t) with agent i's
// samples of round t (graph.SeedSample), giving stochastic gradient
// tracking; g_i^0 uses the samples of round 0 and g_i^{t+1}, computed at
// the end of round t, those of round t+1.
//
// # Missing messages
//
// A present neighbour whose [x_j, y_j] is missing at the deadline counts as
// if it had sent [x_i, y_i]: its weight goes to the agent's own iterates,
// so each row still sums to 1. The sums 1^T X and 1^T Y are then no
// longer preserved, and y stops tracking the average gradient exactly.
//
// tracking imports consensus, objective, graph and gonum only; it
// must not import node, coordinator, scenarios or cmd.
package tracking
