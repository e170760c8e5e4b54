// Package choco implements CHOCO-gossip and CHOCO-SGD (Koloskova, Stich
// and Jaggi, ICML 2019, "Decentralized stochastic optimization and gossip
// algorithms with compressed communication", Algorithms 1 and 2): gossip
// and decentralized SGD whose agents exchange compressed messages, as
// per-agent state machines with a matrix-form reference that they equal
// bit for bit.
//
// Agent i holds x_i in R^n and the public copy xhat_i (xhat_i^0 = 0),
// which every neighbour also holds; a compression operator Q with
// contraction parameter delta (package compress) compresses what changes.
// Round t of CHOCO-SGD (Algorithm 2):
//
//	x_i^{t+1/2} = x_i^t - eta_t g_i^t
//	q_i^t       = Q(x_i^{t+1/2} - xhat_i^t)
//	xhat_j^{t+1} = xhat_j^t + q_j^t          for j = i and every neighbour j
//	x_i^{t+1}   = x_i^{t+1/2} + gamma sum_j w_ij(zeta_t) (xhat_j^{t+1} - xhat_i^{t+1}),
//
// with g_i^t = grad f_i(x_i^t) or a stochastic gradient from agent i's
// sample stream of round t (graph.SeedSample), eta_t = eta or eta /
// sqrt(t+1), W(zeta_t) the mixing matrix of the edges present in round t
// (graph.Mixing; edge stream graph.StreamDual, as DGD) and Q's randomness
// drawn from agent i's graph.StreamCompress generator of round t. In
// matrix form, X_t stacking the x_i^t as rows,
//
//	Xhat_{t+1} = Xhat_t + Q(X_t - eta_t G_t - Xhat_t)
//	X_{t+1}    = X_t - eta_t G_t + gamma (W(zeta_t) - I) Xhat_{t+1}.
//
// CHOCO-gossip is the same round with no gradient (eta_t g_i^t = 0):
// Algorithm 1, whose iteration t+1 it is (with xhat^0 = 0, Algorithm 1's
// first step leaves x^0 unchanged, so its iterates x^{t+1} and xhat^t are
// this round's x^t and xhat^t). It keeps the average of the x_i exactly
// (1^T (W - I) = 0) and, for gamma small enough, drives every x_i to it
// at a linear rate, whatever delta > 0 (the paper's analysis of
// CHOCO-gossip).
//
// Only q_i^t travels, in its compact encoding (compress.Encoding, carried
// by consensus.Msg.Enc): one message to all present neighbours, so a top
// 10% message of n = 123 values takes 111 payload bytes where x_i takes
// 984.
//
// # Edges that drop out
//
// The edges present in round t follow the graph process (common
// randomness): an absent edge carries nothing and has w_ij = 0, as in
// DGD. The neighbour's copy of xhat_i then misses q_i^t, so at the edge's
// next present round both endpoints send their whole xhat^{t+1} instead
// of q^t (a dense message of n+1 values; the last marks it), which sets
// the copy exactly: every copy a round uses equals its owner's xhat bit
// for bit, and the matrix form above holds with the draws' W(zeta_t).
// A message missing at the deadline (a fault, not the graph) leaves the
// receiver's copy stale: until a whole copy resets it, the receiver
// leaves that neighbour out of its mixing (its weight goes to x_i, as
// DGD does with a missing x_j). Either endpoint that misses the other's
// message sends its own whole copy next time, and one that receives a
// whole copy it did not expect answers with its own, so both copies of
// the edge are reset within two present rounds. An earlier round's q
// must never stand in for a missing one (it would be added twice): the
// registrations set registry.Algorithm.SendsDeltas, and scenarios refuse
// faults.staleness for them.
//
// The gradient oracle, the mixing block and the agents' argument checks
// are those of the other gossip methods (package gossip).
//
// choco imports consensus, consensus/compress, consensus/gossip,
// consensus/registry, objective, graph and gonum; it must not import
// node, coordinator, scenarios or cmd.
package choco
