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
// subjects (consim.<run>.in.<id> on NATS).
//
// Groups. A phase's reduce is over all agents by default: each term goes
// to the root (the lowest agent not known to have left), which sums the
// terms in ascending id and broadcasts the sum (consim.<run>.all). With
// Outbox.Group the reduce is over the listed agents only: the root is the
// group's lowest member still in the run, it sends the sum to each other
// member's inbox, and agents outside the group neither send nor wait nor
// receive anything of it. Disjoint groups may reduce in the same phase.
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
//     requesting agent's consim.<run>.in.<id>, where the agent reassembles
//     them by request index. RunAll runs the W workers when Oracle is set;
//     agent processes on other hosts leave them to worker processes that
//     call EvalWorker and Serve. Chunks unanswered at Options.EvalDeadline
//     are published once more; still unanswered after another
//     EvalDeadline they are counted (Traffic.EvalMissing) and fail the
//     agent with an error, never a hang.
//
// A failing evaluation (an error or a panic of the oracle) fails the
// agent's phase with an error naming the request and its operation.
package node

// Endpoint is one agent's connection to a run. Frames are opaque bytes;
// the round loop encodes and decodes them (see wire.go). Implementations
// never block the caller indefinitely and are safe for concurrent use.
type Endpoint interface {
	// Send delivers frame to agent to's inbox (data frames, reduce terms
	// to the root of the reduce, a group reduce's sum to its members).
	Send(to int, frame []byte) error
	// Broadcast delivers frame to the inbox of every agent of the run,
	// the sender included (the root's all-reduce sums, leave frames).
	Broadcast(frame []byte) error
	// Inbox yields the frames addressed to this agent, in arrival order.
	Inbox() <-chan []byte
	// Status publishes frame to the coordinator.
	Status(frame []byte) error
	// Control yields the frames the coordinator sends to all agents.
	Control() <-chan []byte
	// Close releases the endpoint; Inbox and Control are closed.
	Close() error
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
