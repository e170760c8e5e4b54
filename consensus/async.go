package consensus

// Asynchronous agents.
//
// An AsyncAgent has no rounds. Its runtime (the discrete-event engine of
// package async in simulated time, or the real-time driver of package
// async/realtime on the transports) calls it when its run starts (Start),
// when its own clock fires (OnTick), when a message reaches it
// (OnMessage) and when one of its messages could not be delivered
// (OnLost), one call at a time, each with the current time in simulated
// units. Every call returns an AsyncOut: the messages to send, whether
// to arm the clock for one more tick, whether the agent's iterate
// changed, and which received values entered the change. Like Agent, an
// AsyncAgent is pure: no I/O, no goroutines, no clocks (time is an
// argument) and no global random source (its random choices come from
// the common randomness of package graph, keyed by its own counters).
//
// The clock. The runtime draws the agent's k-th clock interval from the
// run's clock model (Poisson ticks of rate r_i, or a compute time drawn
// per tick, longer for a straggler; package async). An armed clock fires
// once, one interval after the call that armed it: an agent that ticks
// freely (a Poisson gossip clock) arms it in every OnTick, one that
// models a computation (a stochastic gradient) arms it when the
// computation starts and gets OnTick when it is done.
//
// Links. A message with Drawn unset uses one link of the graph: it
// arrives after the link's latency if the link is present in the
// message's draw of the edge process, and otherwise comes back to its
// sender through OnLost at the time it would have arrived (the sender's
// timeout). A message with Drawn set is delivered after its latency
// without a draw: a reply, which travels on the link of the message it
// answers, or a message over an edge the algorithm drew itself from the
// common randomness (as the synchronous algorithms do). Package async
// documents the draws.

// AsyncMsg is one message between agents of an asynchronous run.
type AsyncMsg struct {
	From, To int
	// Kind is the algorithm's own message type, in [0, MaxAsyncKind].
	Kind int
	// Tag is a number of the algorithm's own (e.g. the round of a
	// synchronous agent's message); the runtime carries it unchanged.
	Tag int64
	// Drawn marks a message whose link needs no draw (see above).
	Drawn bool
	// Data are the values. In an AsyncOut they belong to the agent and
	// must stay unchanged until its next call returns; the runtime copies
	// them. In OnMessage and OnLost they belong to the runtime and are
	// valid during the call only.
	Data []float64
	// Sent and Version are stamped by the runtime: the time the message
	// was sent and the sender's update count then, the update of the call
	// that sent it included (its calls with AsyncOut.Updated so far). The
	// agent leaves them zero.
	Sent    float64
	Version int64
}

// MaxAsyncKind is the largest AsyncMsg.Kind.
const MaxAsyncKind = 255

// AsyncOut is what an AsyncAgent's call produces.
type AsyncOut struct {
	// Msgs are sent now, in order.
	Msgs []AsyncMsg
	// Arm starts the agent's clock: it fires (OnTick) one clock interval
	// after this call. Arming a clock that is already armed is an error
	// of the agent, reported by the runtime.
	Arm bool
	// Updated reports that the call changed the agent's iterate x_i: the
	// runtime counts one update, the unit of the measures against
	// updates and of AsyncMsg.Version.
	Updated bool
	// Used lists the received values that entered this call's update,
	// each by its message's From, Sent and Version (copied from the
	// message, which may have arrived in an earlier call): the runtime
	// measures their staleness, the age of the value at use in time and
	// in the sender's updates.
	Used []AsyncUse
}

// AsyncUse identifies a received value by its message's stamps.
type AsyncUse struct {
	From    int
	Sent    float64
	Version int64
}

// UseOf returns the AsyncUse of message m.
func UseOf(m AsyncMsg) AsyncUse { return AsyncUse{From: m.From, Sent: m.Sent, Version: m.Version} }

// AsyncAgent is one participant's asynchronous state machine. The
// runtime calls its methods one at a time, with non-decreasing now; the
// slices of a returned AsyncOut stay valid until the next call.
type AsyncAgent interface {
	// ID is the agent's index in 0..N-1.
	ID() int
	// Start is called once, at time 0, before any other call.
	Start() AsyncOut
	// OnTick is called when the armed clock fires.
	OnTick(now float64) (AsyncOut, error)
	// OnMessage delivers a message addressed to the agent. An error (a
	// message of the wrong length or kind) ends the run.
	OnMessage(now float64, m AsyncMsg) (AsyncOut, error)
	// OnLost returns one of the agent's messages that its link did not
	// deliver, at the time it would have arrived.
	OnLost(now float64, m AsyncMsg) (AsyncOut, error)
	// Report describes the agent's state; Report.Round is its number of
	// updates.
	Report() Report
}
