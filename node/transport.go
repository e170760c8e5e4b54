// Package node is the agent runtime of consim: the round loop that drives
// a consensus.Agent, per-phase deadlines, dropout accounting, reports to
// the coordinator, and the transports that move bytes (in-memory channels,
// NATS with in-process connections, NATS over TCP).
//
// node does no math: every number an agent computes comes from package
// consensus. node may import consensus and graph; it must not import
// coordinator, scenarios or cmd.
package node

// Endpoint is one agent's connection to a run. Frames are opaque bytes;
// the round loop encodes and decodes them (see wire.go). Implementations
// never block the caller indefinitely and are safe for concurrent use.
type Endpoint interface {
	// Send delivers frame to agent to's inbox (data frames, and
	// all-reduce terms to the root of the reduce).
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
