// Package async runs asynchronous agents (consensus.AsyncAgent) in
// simulated time: a discrete-event engine with no global rounds, where
// every agent acts on its own clock, on the latest values it has
// received, over links with a latency distribution that drop with the
// probabilities of the run's edge process. It also holds what the
// real-time driver (package async/realtime) shares with it: the clock
// and link models, the Port that calls one agent and draws its clock
// intervals and links, and the staleness statistics.
//
// # Clocks
//
// Agent i's k-th clock interval (k = 0, 1, ...) is
//
//	D_i(k) = s_i Q(U(seed, k, graph.StreamTick, i, 0)),
//
// with Q the quantile function of Clock.Dist (exponential: Poisson ticks
// of rate 1/Mean; fixed; uniform on [Min, Max]) and s_i the slowdown of a
// straggler (1 for the others). An armed clock fires once, D_i(k) after
// the call that armed it (see consensus.AsyncAgent).
//
// # Links
//
// Message number seq of agent i (its messages are numbered 0, 1, ... in
// the order sent), sent to j at time s, arrives at s + L with the
// latency
//
//	L = Q_L(U(seed, seq, graph.StreamLatency, i, j)),
//
// Q_L the quantile function of Link.Latency. A message that needs a link
// draw (AsyncMsg.Drawn unset) must go to a neighbour j of i in the graph;
// it is delivered iff the edge process answers
//
//	Process.Active(floor(s / Slot), graph.StreamLink.Phase(2 (seq mod 2^19) + [i > j]), i, j),
//
// that is: the process's round is the slot of simulated time the message
// is sent in (Link.Slot time units per round, so a Gilbert-Elliott
// chain's state and a scheduled cut or partition follow simulated time),
// and each message takes a draw of its own within the round, different
// for the two directions of a link and for the sender's messages, so that
// under a Bernoulli process every message finds its link present with
// probability p_ij independently of every other message (two messages
// share a draw only if they are 2^19 messages of one sender apart and go
// over the same link in the same slot). A message whose link is absent comes back to its sender
// (OnLost) at s + L. The draws depend on nothing but the seed, the
// sender, its message number, the addressee and the send time, so the
// real-time driver draws them the same way.
//
// # Events
//
// The engine keeps one queue of events: clock ticks, deliveries and
// returns. It processes them in ascending (time, class, id, number):
// deliveries and returns (class 0) by their message's sender and number,
// then ticks (class 1) by agent and tick index. The order is total, so a
// run is a pure function of the agents, the options and the seed:
// replaying it gives the same iterates bit for bit (on one architecture:
// the exponential quantile goes through math.Log1p, which package
// graph's floating-point rule does not cover).
//
// # Observation
//
// Options.Observe sees a Record of every event: what happened at which
// agent, and what the agent answered. The asynchronous algorithms'
// matrix-form references replay these records; the drivers measure with
// Report, Sample and Staleness between calls of Run.
//
// async imports consensus and graph; it must not import node,
// coordinator, scenarios or cmd, and it starts no goroutines.
package async
