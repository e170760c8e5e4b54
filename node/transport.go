// Package node is the agent runtime of consim: the round loop that drives
// a consensus.Agent, per-phase deadlines, dropout accounting, reports to
// the coordinator, and the transports that move bytes (in-memory channels,
// NATS with in-process connections, NATS over TCP).
//
// node does no math: every number an agent computes comes from package
// consensus. node may import consensus and graph; it must not import
// coordinator, scenarios or cmd.
//
// # Roles
//
// Peers. Every agent of a run, ids 0..N-1, is driven by Run over its own
// Endpoint. An agent may send Msgs to any other agent and expect messages
// from any: the runtime knows no graph, so peers on a graph, a star (a
// server and its workers) or any other pattern use the same frames and
// subjects. Messages of a phase with the same values leave as one frame
// that lists its destinations, published once on the sender's own
// subject (consim.<run>.a.<id> on NATS; see docs/protocol.md).
//
// Groups. A phase's reduce is over all agents by default: each term goes
// to the root (the lowest agent not known to have left), which sums the
// terms in ascending id and broadcasts the sum (a frame for every agent).
// With Outbox.Group the reduce is over the listed agents only: the root is
// the group's lowest member still in the run, it sends the sum in one
// frame addressed to the other members, and agents outside the group
// neither send nor wait nor receive anything of it. Disjoint groups may reduce in the same phase.
// Broadcast from a group's root to its members is ordinary Msgs.
//
// Oracle workers. An agent may ask for a batch of independent evaluations
// (Outbox.Evals); the results reach Receive in Inbox.Evals in request
// order, bit for bit the same whatever the number of workers and the
// transport, since every consensus.Oracle is a pure function of the
// request. Options.Workers (W) and Options.Oracle (a factory, one oracle
// per evaluating goroutine) say who evaluates:
//
//   - W = 0: the agent's own goroutine, with the oracle Oracle(0).
//   - W > 0 on the channel transport: W goroutines of the process, each
//     with the oracle Oracle(w); each batch is split into min(W, n)
//     contiguous chunks. RunAll starts one pool for all its agents; Run
//     alone starts its own.
//   - W > 0 on NATS (an endpoint that implements EvalPublisher): the agent
//     publishes its batch in chunks of contiguous requests, at most 1 MiB
//     each, on consim.<run>.eval. The W oracle workers subscribe to it in
//     the queue group EvalQueue (NATSTransport.EvalWorker), so each chunk
//     goes to one worker, which evaluates it with OracleWorker.Serve and
//     publishes the results, or a failure naming the request, on the
//     worker's consim.<run>.r.<w>, from which the requesting agent's
//     process hands them to the agent, which reassembles
//     them by request index. RunAll runs the W workers when Oracle is set;
//     agent processes on other hosts leave them to worker processes that
//     call EvalWorker and Serve. Chunks unanswered at Options.EvalDeadline
//     are published once more; still unanswered after another
//     EvalDeadline they are counted (Traffic.EvalMissing) and fail the
//     agent with an error, never a hang.
//
// A failing evaluation (an error or a panic of the oracle) fails the
// agent's phase with an error naming the request and its operation.
//
// # Integrity
//
// On NATS every message carries an HMAC-SHA256 under the run key (mac.go,
// NATSOptions.Key); messages that fail it are dropped and counted by
// subject before any queue, so forged frames, leaves and stops have no
// effect. The coordinator claims the run id on the server (claim.go), and
// a server consim starts admits only the run's users, each allowed to
// publish its own subjects (nats_auth.go). Frames too far ahead and full
// queues are bounded and counted (Options.FutureWindow). The subjects,
// frames and the security model are in docs/protocol.md.
package node

// Endpoint is one agent's connection to a run. Frames are opaque bytes
// to the transport except for the routing part of their header (version,
// kind, sender and destination list, see wire.go); the round loop encodes
// and decodes them. Implementations never block the caller indefinitely
// and are safe for concurrent use.
type Endpoint interface {
	// Publish delivers frame to the inboxes of the agents its header
	// addresses: those of its destination list, or every agent of the
	// run, the sender included, when the list is empty (reduce sums,
	// leave frames). A frame is published once whatever the number of
	// its destinations. The endpoint does not keep frame after returning.
	Publish(frame []byte) error
	// Inbox yields the frames addressed to this agent, in arrival order.
	// They are shared with the frame's other destinations: read only.
	Inbox() <-chan []byte
	// Status publishes frame to the coordinator.
	Status(frame []byte) error
	// Control yields the frames the coordinator sends to all agents.
	Control() <-chan []byte
	// Close releases the endpoint; Inbox and Control are closed.
	Close() error
}

// EndpointStats counts the frames an endpoint dropped before the round
// loop saw them. The round loop copies them into Traffic.
type EndpointStats struct {
	// Refused counts the frames that failed the run's MAC (or arrived in
	// an envelope too short to carry one), by NATS subject.
	Refused map[string]int64
	// Malformed counts frames with a valid MAC whose routing header did
	// not decode, or whose sender did not match the subject.
	Malformed int64
	// Overflow counts frames dropped because the agent's inbox queue was
	// full (see inboxCap).
	Overflow int64
	// Ahead counts frames dropped on arrival because their round was
	// more than Options.FutureWindow ahead of the agent's.
	Ahead int64
	// SlowConsumer counts the messages the NATS client of the
	// endpoint's connection dropped because a subscription's pending
	// limit was reached (a slow consumer).
	SlowConsumer int64
}

// roundTracker is implemented by endpoints that drop frames too far
// ahead before queueing them: the round loop tells it its round t at the
// start of each round, and its window.
type roundTracker interface {
	setRound(t, window int)
}

// StatsReporter is implemented by endpoints that drop frames before the
// round loop (the NATS endpoints), and by observers that drop statuses.
type StatsReporter interface {
	Stats() EndpointStats
}

// Observer is the coordinator's connection to a run.
type Observer interface {
	// Statuses yields the frames agents publish with Endpoint.Status.
	Statuses() <-chan []byte
	// Control delivers frame to every agent's Control channel.
	Control(frame []byte) error
	// Close releases the observer; Statuses is closed.
	Close() error
}

// Transport connects the agents and the observer of one run. Subjects or
// queues are namespaced by run id, so concurrent runs never cross.
type Transport interface {
	// Endpoint connects agent id.
	Endpoint(id int) (Endpoint, error)
	// Observer connects the coordinator.
	Observer() (Observer, error)
	// Close releases what the transport owns (connections, an embedded
	// server it started).
	Close() error
}
