// Package pairwise implements randomized pairwise gossip (Boyd, Ghosh,
// Prabhakar and Shah, "Randomized gossip algorithms", IEEE Trans. Inf.
// Theory 52(6), 2006, Sec. II, the asynchronous time model) as
// asynchronous agents (consensus.AsyncAgent) with a matrix-form
// reference.
//
// Agent i holds x_i in R^n. Its clock ticks at the times of a Poisson
// process (the run's clock model; a straggler's ticks are slower). On a
// tick, i picks a neighbour j with probability P_ij = 1/d_i and, through
// the pairwise exchange of package exchange, both set
//
//	x_i, x_j <- (x_i + x_j)/2,
//
// j when i's request arrives (with x_i as sent) and i when j's reply
// arrives (with x_j as it was before j's step): the same two operands, so
// both get the same bits. In matrix form, with X_k in R^{N x n} stacking
// the x_i after the k-th completed exchange, on the pair (i_k, j_k),
//
//	X_{k+1} = W(k) X_k,  W(k) = I - (1/2) (e_{i_k} - e_{j_k})(e_{i_k} - e_{j_k})^T,
//
// Boyd et al.'s W_ij; Reference computes it, on the sequence of exchanges
// in the order they commit (j handles the request), which is the order of
// the runtime's events. A tick while the agent's own exchange is open, a
// refusal (the neighbour is in an exchange of its own) and an absent link
// (the request comes back) change nothing: W(k) = I for that tick.
// Every W(k) is doubly stochastic, so the average of the x_i is kept, and
// the disagreement contracts in mean square by the exact factor of
// graph.PairwiseGossipRates per tick of the network when exchanges take
// no time (zero latency); with latency, ticks during an exchange are lost
// to it.
//
// Reports: X = x_i, Round the agent's updates (one per exchange it took
// part in), and exchange.Measures: the exchanges the agent started that
// completed, were refused or lost their request.
//
// pairwise imports consensus, consensus/exchange, consensus/registry,
// graph and gonum; it must not import node, coordinator, scenarios or
// cmd.
package pairwise
