// Package consensus holds the algorithms of consim as per-agent state
// machines and their centralized matrix-form references.
//
// An Agent is pure: it does no I/O, starts no goroutines, reads no clocks
// and uses no global random source. The runtime (package node) drives it
// round by round, moves its messages and tells it what arrived; every
// random choice comes from the common randomness of package graph. An
// AsyncAgent (async.go) is the same kind of state machine without
// rounds: each agent acts on its own clock, driven by the event engine of
// package async or its real-time driver.
//
// consensus may import graph, gonum and consensus/compress; it must not
// import node, coordinator, scenarios or cmd.
package consensus

import "github.com/consim/consim/consensus/compress"

// Msg is one payload from agent From to agent To in a phase of a round.
type Msg struct {
	From, To     int
	Round, Phase int
	Data         []float64
	// Enc is the wire form of Data the sender chose: the zero value
	// (compress.Dense) sends every value; a compact encoding, the one a
	// compression operator returned with the Data it computed, sends Data
	// in compact form, which the runtime decodes at the receiver to the
	// same bits. Data must fit Enc (compress.PayloadLen), or the phase
	// fails. Enc is read on sent messages only: a receiver must not
	// depend on the Enc of the messages in its Inbox.
	Enc compress.Encoding
}

// PayloadLen is the number of bytes m's values take on the wire
// (compress.PayloadLen of Enc and Data): 8 per value when dense. Every
// driver and transport counts a message's values with it.
func (m *Msg) PayloadLen() (int, error) { return compress.PayloadLen(m.Enc, m.Data) }

// Outbox is what an agent emits in one phase: messages to other agents,
// the senders it expects to hear from in the same phase, optionally a
// contribution to a reduce over all agents or over a group of them, and
// optionally a batch of evaluations for the run's oracle workers.
type Outbox struct {
	// Msgs are sent to their To agents, which may be any agents of the run
	// (graph neighbours, or a server and its workers in a star): the
	// runtime moves them whatever the graph. The runtime encodes them
	// before Receive is called, so the agent may reuse Data afterwards.
	Msgs []Msg
	// Expect lists, in ascending order, the agents whose message this
	// phase needs. One that has not arrived by the deadline is a dropout.
	Expect []int
	// Reduce, if non-nil, is this agent's term of a sum over the agents of
	// Group (all agents when Group is nil). Every member must give the
	// same length in the same phase.
	Reduce []float64
	// Group, if non-nil, restricts the reduce of this phase to the agents
	// it lists, in ascending order, this agent included: every member
	// gives the same Group and a Reduce term, and receives
	// sum_{i in Group} Reduce_i. Agents outside the group give no Reduce
	// and neither send nor wait for it. The groups reducing in one phase
	// must be equal or disjoint. nil (the default) is the all-reduce over
	// all agents of the run; Group without Reduce is an error.
	Group []int
	// Evals, if non-empty, are independent evaluations for the run's
	// oracle workers (see Oracle); their results arrive in Inbox.Evals of
	// the same phase, in the same order. The agent must not modify the
	// requests or their Arg until Receive is called.
	Evals []EvalRequest
}

// Inbox is what the runtime delivers at the end of a phase. Its slices
// (Msgs, each Msg.Data, Missing, Reduce, Evals and each Evals[k]) belong
// to the runtime and are reused in the next phase: an agent that keeps
// values past Receive copies them.
type Inbox struct {
	// Msgs holds the messages that arrived from the expected senders,
	// ascending by From.
	Msgs []Msg
	// Missing lists the expected senders whose message did not arrive by
	// the deadline, ascending.
	Missing []int
	// Reduce is sum_i Outbox.Reduce of agent i over the agents i of the
	// phase's group (all agents without Outbox.Group), summed in ascending
	// agent order; nil when the agent had no reduce in the phase. Agents
	// whose term did not arrive (or who gave none to the phase's
	// all-reduce) contribute zero and are counted by the runtime. Package
	// engine holds these rules for every runtime.
	Reduce []float64
	// Evals holds the values of Outbox.Evals of the same phase, one slice
	// per request, in request order; nil when the phase asked for none.
	Evals [][]float64
}

// Agent is one participant's algorithm state machine. A round t consists
// of Phases() phases; in each phase the runtime calls Send, delivers the
// messages, waits for the expected ones up to the deadline, then calls
// Receive. After Receive of the last phase the round's update is done.
type Agent interface {
	// ID is the agent's index in 0..N-1.
	ID() int
	// Phases is the number of exchange phases in round t.
	Phases(t int) int
	// Send returns the outbox of phase ph of round t.
	Send(t, ph int) Outbox
	// Receive consumes the inbox of phase ph of round t.
	Receive(t, ph int, in Inbox) error
	// Report describes the agent's state after the rounds completed so far.
	Report() Report
}

// Report is an agent's observable state, sent to the coordinator every k
// rounds. Scalars are the agent's own terms of global measures; their
// meaning is fixed per field so that the coordinator can sum them.
type Report struct {
	ID int `json:"id"`
	// Round is the number of completed rounds.
	Round int `json:"round"`
	// X is a copy of the agent's primal block x_i.
	X []float64 `json:"x"`
	// GradEvals counts the first-order oracle calls made so far, in the
	// algorithm's own unit: stochastic gradient samples for the ALM and the
	// linearized ADMM, queries of g_j, dg_j and grad f_i (the paper's
	// "oracle calls") for the composition ADMM, 0 for the exact ADMM.
	GradEvals int64 `json:"grad_evals"`
	// Measures are the agent's values of the measures its algorithm
	// declares (registry.Measurer) that are not Evaluated, in declaration
	// order.
	Measures []float64 `json:"measures,omitempty"`
	// EdgeDuals, when the algorithm is asked for them, are the agent's
	// replicas of the duals of its incident edges, ascending by peer (for
	// a dual with one writer: the writer's value or the reader's copy,
	// with its Version); the drift ||y_ij^(i) - y_ij^(j)||^2 between the
	// two replicas of an edge at one version measures a fork that message
	// loss made (observe.DualDrift).
	EdgeDuals []EdgeDual `json:"edge_duals,omitempty"`
}

// EdgeDual is agent i's replica y_ij^(i) of the dual of edge {i, Peer}.
type EdgeDual struct {
	Peer int       `json:"peer"`
	Y    []float64 `json:"y"`
	// Version identifies the value of a dual with a single writer: the
	// round after whose update the writer last wrote it (t+1 for a write
	// in round t; 0 before any write, and always 0 for duals updated at
	// both endpoints). A reader's copy at an older Version is a delayed
	// copy, not a fork; observe.DualDrift compares equal Versions only.
	Version int64 `json:"version,omitempty"`
}
