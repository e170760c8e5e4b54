// Package dgd implements decentralized gradient descent (DGD; Nedic and
// Ozdaglar 2009, with stochastic gradients DSGD) over a random
// time-varying graph, as per-agent state machines with a centralized
// matrix-form reference. It is the smallest algorithm of consim and the
// worked example of the contributor guide: params.go (parameters, defaults,
// Validate), agent.go (the consensus.Agent), reference.go (the matrix form
// the agents are tested against).
//
// Agent i holds x_i in R^n. Round t draws the present edges E(zeta_t)
// (edge stream graph.StreamDual), exchanges x_i with the present
// neighbours and updates
//
//	x_i^{t+1} = sum_j w_ij(zeta_t) x_j^t - alpha_t g_i^t,
//
// with W(zeta_t) the mixing matrix of the present edges (graph.Mixing:
// Metropolis-Hastings by default), g_i^t = grad f_i(x_i^t) or a stochastic
// gradient G_i(x_i^t, xi_i^t) drawn from agent i's sample stream of round t
// (graph.SeedSample), and alpha_t = alpha or alpha / sqrt(t+1). In matrix
// form, with X_t in R^{N x n} stacking the x_i^t as rows,
//
//	X_{t+1} = W(zeta_t) X_t - alpha_t G_t.
//
// With a constant step DGD converges to an O(alpha) neighbourhood of the
// minimizer of f = (1/N) sum_i f_i; the diminishing step removes the bias
// at a sublinear rate. With no objective (or a zero gradient) it is pure
// gossip X_{t+1} = W(zeta_t) X_t, whose mean-square contraction is
// predicted exactly by graph.Graph.GossipRates; Contraction measures it.
//
// A present neighbour whose message is missing at the deadline counts as
// if it had sent x_i: its weight goes to the agent's own iterate, so the
// row still sums to 1 (the average is then no longer preserved).
//
// dgd imports consensus, objective, graph and gonum only; it must
// not import node, coordinator, scenarios or cmd.
package dgd
