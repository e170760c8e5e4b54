// Package engine is consim's synchronous phase core: the one place that
// says how the outboxes of a phase become the agents' inboxes. It is the
// contract of consensus.Outbox and consensus.Inbox, written once and
// driven by every runtime: consensus/lockstep (the in-process reference
// driver), stepped (the engine of very large runs) and node (the runtime on
// transports), as etcd's raft drives one pure RawNode core from its
// goroutine node.
//
// The rules, for a phase of a run of agents 0..N-1:
//
//   - An outbox is valid (CheckOutbox) when its Expect list is strictly
//     ascending ids in 0..N-1 other than the agent's own; its messages are
//     marked From the agent, go to distinct other agents; its Group, if
//     any, comes with a Reduce term, is strictly ascending ids in 0..N-1
//     and contains the agent. Every message's values fit its wire
//     encoding (consensus.Msg.PayloadLen; Phase.Set checks it, node when
//     it encodes the frame).
//   - Delivery: an agent's Inbox.Msgs are the messages of its expected
//     senders that arrived, ascending by From; Inbox.Missing the expected
//     senders whose message did not, ascending. A message to an agent
//     that does not expect it is an error.
//   - Reduce: a reduce over a Group sums the members' terms; the
//     all-reduce (Group nil) sums over all agents. Every sum is
//     accumulated in ascending agent order, starting from the first term
//     present (Sum); a term that is missing contributes zero and is
//     counted. Every agent that gave a term receives its reduce's sum in
//     Inbox.Reduce; an agent that gave none receives nil. The groups of a
//     phase are equal or disjoint: every member of a group gives the same
//     Group, and its terms have one length. An agent that takes part in a
//     group reduce, or gives no term, is a missing term of the phase's
//     all-reduce if there is one.
//   - Evaluations: Inbox.Evals holds the values of Outbox.Evals in
//     request order (Evaluate, for drivers that evaluate in-line).
//
// Drivers that hold every outbox of a phase use Phase; a runtime in which
// each agent sees only its own outbox and the frames that reach it (node)
// uses CheckOutbox, Inbound and Sum.
//
// engine is pure: no goroutines, no I/O, no clocks, no randomness. A
// Phase may be used from several goroutines as its methods document. It
// imports consensus only; it must not import node, stepped, lockstep,
// coordinator, scenarios or cmd.
package engine
