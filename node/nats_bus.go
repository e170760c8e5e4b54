package node

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
)

// busConn is the connection a NATSTransport's endpoints share: one per
// process, whatever the number of its agents. It subscribes once to every
// agent's frames (SubjectAgents), to the workers' results (SubjectResults)
// and to the controls, checks each message's MAC once, and hands the
// frame to the queue of each local agent it is for. Frames are delivered
// without a copy: the NATS client gives each message its own buffer, and
// the agents only read it.
type busConn struct {
	t           *NATSTransport
	nc          *nats.Conn
	agentPrefix string // "consim.<run>.a."

	mu  sync.Mutex                      // serializes register and unregister
	eps atomic.Pointer[[]*natsEndpoint] // eps[id]: local agent id, or nil
	// open counts the registered endpoints: the last to close flushes
	// the connection (see natsEndpoint.Close).
	open int

	orphan atomic.Int64 // drops with no local endpoint to charge
	drops  clientDrops  // frames the NATS client dropped, charged at the next status (see natsEndpoint.Stats)
	warn   *warnLimiter // refused and malformed messages, summarized per subject

	namesMu sync.Mutex
	names   map[string]struct{} // subjects drops are counted under (see named)

	refusals atomic.Int64 // messages refused, see refuse
	// senders are the subscriptions of subscribeAgents to each agent's
	// subjects, when there is one per sender (see NATSOptions.Agents).
	senders []*nats.Subscription
}

// busConn returns the transport's shared connection, connecting it on
// first use.
func (t *NATSTransport) busConn() (*busConn, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return nil, errors.New("node: NATS transport closed")
	}
	if t.bus != nil {
		return t.bus, nil
	}
	run := t.opts.RunID
	b := &busConn{t: t, agentPrefix: "consim." + run + ".a.", warn: newWarnLimiter(t.log, DefaultWarnPeriod)}
	empty := []*natsEndpoint{}
	b.eps.Store(&empty)
	w := t.newWatch("agents")
	nc, err := t.connect("agents", w, b.drops.note)
	if err != nil {
		return nil, err
	}
	b.nc = nc
	err = errors.Join(
		b.subscribeAgents(),
		subscribe(nc, SubjectResults(run), "", b.onResult),
		subscribe(nc, SubjectControl(run), "", b.onControl),
	)
	if err == nil {
		err = nc.FlushTimeout(t.opts.ConnectTimeout)
	}
	if err != nil {
		nc.Close()
		return nil, err
	}
	t.closers = append(t.closers, b.close)
	w.onLost(b.closeEndpoints)
	t.bus = b
	return b, nil
}

// subscribeAgents subscribes the connection to the agents' frames it
// receives whatever its local agents: in the default layout every frame
// (consim.<run>.a.> ), in the per-destination layout those for every
// agent (consim.<run>.a.*.all); with a subscription per sender (see
// NATSOptions.Agents), to consim.<run>.a.<j> and consim.<run>.a.<j>.>,
// or consim.<run>.a.<j>.all, for each agent j.
func (b *busConn) subscribeAgents() error {
	t, run := b.t, b.t.opts.RunID
	perDest := t.opts.PerDestination
	subs := 2 * t.opts.Agents // a.<j> and a.<j>.>; a.<j>.all and a.<j>.<local id>
	split, bytes := t.perSender(subs)
	switch {
	case split && perDest:
		var err error
		b.senders, err = t.subscribeSenders(b.nc, func(j int) string { return SubjectAgentAll(run, j) }, b.onAgentFrame, bytes)
		return err
	case split:
		own, err := t.subscribeSenders(b.nc, func(j int) string { return SubjectAgent(run, j) }, b.onAgentFrame, bytes)
		if err != nil {
			return err
		}
		tails, err := t.subscribeSenders(b.nc, func(j int) string { return SubjectAgent(run, j) + ".>" }, b.onAgentFrame, bytes)
		b.senders = append(own, tails...)
		return err
	case t.opts.URL != "":
		t.log.Warn("one subscription for every agent's frames (NATSOptions.Agents not set): a flood on one agent's subject can push the other agents' frames out of it")
	}
	if perDest {
		return subscribe(b.nc, "consim."+run+".a.*.all", "", b.onAgentFrame)
	}
	return subscribe(b.nc, SubjectAgents(run), "", b.onAgentFrame)
}

// register adds e to the local agents.
func (b *busConn) register(e *natsEndpoint) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	old := *b.eps.Load()
	if e.id < len(old) && old[e.id] != nil {
		return fmt.Errorf("agent %d is already connected", e.id)
	}
	eps := make([]*natsEndpoint, max(len(old), e.id+1))
	copy(eps, old)
	eps[e.id] = e
	b.eps.Store(&eps)
	b.open++
	if b.t.opts.PerDestination {
		// The agent's own frames: consim.<run>.a.*.<id>, or one
		// subscription per sender, registered at the server before
		// Endpoint returns.
		subs, err := b.subscribeOwn(e.id)
		if err == nil {
			if err = b.nc.FlushTimeout(b.t.opts.ConnectTimeout); err != nil {
				unsubscribe(subs)
			}
		}
		if err != nil {
			eps[e.id] = nil
			b.open--
			return fmt.Errorf("subscribe to agent %d's frames: %w", e.id, err)
		}
		e.subs = subs
	}
	return nil
}

// subscribeOwn subscribes the connection to the frames for agent id in
// the per-destination layout: consim.<run>.a.*.<id>, or
// consim.<run>.a.<j>.<id> for each sender j (see NATSOptions.Agents).
func (b *busConn) subscribeOwn(id int) ([]*nats.Subscription, error) {
	tail := "." + strconv.Itoa(id)
	if split, bytes := b.t.perSender(2 * b.t.opts.Agents); split {
		return b.t.subscribeSenders(b.nc, func(j int) string { return b.agentPrefix + strconv.Itoa(j) + tail }, b.onAgentFrame, bytes)
	}
	sub, err := subscription(b.nc, b.agentPrefix+"*"+tail, "", b.onAgentFrame)
	if err != nil {
		return nil, err
	}
	return []*nats.Subscription{sub}, nil
}

// unsubscribe ends subs.
func unsubscribe(subs []*nats.Subscription) {
	for _, s := range subs {
		_ = s.Unsubscribe()
	}
}

// unregister removes e from the local agents: frames for it are dropped.
// last reports whether no local agent is left.
func (b *busConn) unregister(e *natsEndpoint) (last bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	old := *b.eps.Load()
	if e.id >= len(old) || old[e.id] != e {
		return b.open == 0
	}
	eps := append([]*natsEndpoint(nil), old...)
	eps[e.id] = nil
	b.eps.Store(&eps)
	b.open--
	unsubscribe(e.subs)
	return b.open == 0
}

// closeEndpoints closes every local endpoint (the connection is lost).
func (b *busConn) closeEndpoints() {
	for _, e := range *b.eps.Load() {
		if e != nil {
			e.Close()
		}
	}
}

// close closes the endpoints still open and the connection.
func (b *busConn) close() error {
	var errs []error
	for _, e := range *b.eps.Load() {
		if e != nil {
			errs = append(errs, e.Close())
		}
	}
	b.nc.Close() // sends what is still buffered first
	b.warn.flush()
	return errors.Join(errs...)
}

// charge counts a dropped frame against the lowest local endpoint among
// those the frame named (to, when it parsed), else the lowest local
// endpoint, so that every drop is counted once per process and reaches
// the coordinator in a status.
func (b *busConn) charge(to *natsEndpoint, f func(s *EndpointStats)) {
	if to == nil {
		for _, e := range *b.eps.Load() {
			if e != nil {
				to = e
				break
			}
		}
	}
	if to == nil {
		b.orphan.Add(1)
		return
	}
	to.charge(f)
}

// maxNamedSubjects bounds the subjects a process counts and logs drops
// under by name; drops on further subjects (an attacker can publish on
// any number of them) are counted under otherSubjects.
const maxNamedSubjects = 64

const otherSubjects = "(other subjects)"

// named returns subject, or otherSubjects once maxNamedSubjects other
// subjects have been named.
func (b *busConn) named(subject string) string {
	b.namesMu.Lock()
	defer b.namesMu.Unlock()
	if _, ok := b.names[subject]; ok {
		return subject
	}
	if len(b.names) >= maxNamedSubjects {
		return otherSubjects
	}
	if b.names == nil {
		b.names = make(map[string]struct{})
	}
	b.names[subject] = struct{}{}
	return subject
}

// A subscription's goroutine that refuses messages by their MAC while it
// is behind a flood (see flooded) pauses for refusePause after every
// refuseEvery refusals of the process. Without
// the pause it would check MACs as fast as the flood comes and leave the
// agents of the process what CPU is left; paused, it lets the flooded
// subscription overflow, whose drops cost the NATS client a copy each,
// not a MAC (BenchmarkFlood/outsider-open-server, alternated: rate ratio
// 0.15 to 0.29 with a pause against 0.00 to 0.07 with a yield instead,
// at load 4 to 9). A flood that the backlog absorbs is checked at full
// speed and loses nothing: the flooded sender's own frames go through.
const (
	refuseEvery = 16
	refusePause = 500 * time.Microsecond
)

// refuse counts the message m, whose MAC failed, by subject.
func (b *busConn) refuse(m *nats.Msg) {
	if b.refusals.Add(1)%refuseEvery == 0 && flooded(m.Sub) {
		time.Sleep(refusePause)
	}
	b.refuseOn(m.Subject)
}

// refuseJunk counts the message m, refused on its header alone (no MAC
// computed), by subject. It never pauses: junk costs a header read, and
// the goroutine drains it faster than a pause would.
func (b *busConn) refuseJunk(m *nats.Msg) { b.refuseOn(m.Subject) }

// flooded reports whether the backlog of sub is past a sixteenth of its
// pending limit (1,024 messages of a sender's subscription): its
// goroutine is behind a flood. A run's own frames, a few per sender and
// round, never queue that deep.
func flooded(sub *nats.Subscription) bool {
	if sub == nil {
		return false
	}
	msgs, _, err := sub.Pending()
	limit, _, lerr := sub.PendingLimits()
	return err == nil && lerr == nil && limit > 0 && msgs > limit/16
}

// refuseOn counts a message on subject whose MAC failed.
func (b *busConn) refuseOn(subject string) {
	subject = b.named(subject)
	b.charge(nil, func(s *EndpointStats) {
		if s.Refused == nil {
			s.Refused = make(map[string]int64)
		}
		s.Refused[subject]++
	})
	b.warn.note("messages that failed the run's MAC, refused", "on "+subject, nil)
}

// malformed counts a frame with a valid MAC that cannot be routed.
func (b *busConn) malformed(subject string, err error) {
	subject = b.named(subject)
	b.charge(nil, func(s *EndpointStats) { s.Malformed++ })
	b.warn.note("authentic frames that cannot be routed, dropped", "on "+subject, err)
}

// onAgentFrame delivers a frame published on one of agent from's
// subjects (a.<from>, a.<from>.<to>, a.<from>.all) to the local agents it
// is for, after its header's admission check and its MAC; it refuses a
// forged or misaddressed frame. The header alone decides the drops that
// need no MAC (a frame beyond every destination's window; while the
// subscription is flooded, a header that does not parse), so a flood
// costs a header read per frame. docs/protocol.md (Subjects, Frames,
// Floods) has the rules.
func (b *busConn) onAgentFrame(m *nats.Msg) {
	eps := *b.eps.Load()
	from, to, ok := parseAgentSubject(m.Subject, len(b.agentPrefix))
	tag := b.t.mac.tagLen()
	if !ok || len(m.Data) < tag {
		b.refuseJunk(m)
		return
	}
	frame := m.Data[:len(m.Data)-tag]
	h, err := decodeAddress(frame)
	if err == nil && !b.anyAdmits(eps, frame, h, to) {
		return
	}
	if err != nil && flooded(m.Sub) {
		b.refuseJunk(m)
		return
	}
	if _, ok := b.t.mac.open(macAgent, m.Data); !ok {
		b.refuse(m)
		return
	}
	switch {
	case err != nil:
	case h.Kind >= FrameEval && h.Kind <= FrameEvalFail:
		err = fmt.Errorf("%s frame on an agent subject", h.Kind)
	case h.From != from:
		err = fmt.Errorf("frame of agent %d", h.From)
	case to == toAll && h.NTo != 0:
		err = fmt.Errorf("frame for %d agents on a subject for all", h.NTo)
	case to >= 0 && !names(frame, h, to):
		err = fmt.Errorf("frame not for agent %d", to)
	}
	if err != nil {
		b.malformed(m.Subject, err)
		return
	}
	wake := urgent(h.Kind)
	localDests(eps, frame, h, to, func(e *natsEndpoint) bool {
		if e.admit(h.Round) {
			e.inbox.push(frame, wake)
		}
		return true
	})
}

// Destinations a subject's tail gives besides an agent id (see
// parseAgentSubject).
const (
	toHeader = -1 // consim.<run>.a.<from>: those the header names
	toAll    = -2 // consim.<run>.a.<from>.all: every agent
)

// parseAgentSubject reads subject[prefix:] as "<from>", "<from>.<to>" or
// "<from>.all", decimal ids without leading zeros, without allocating;
// to is toHeader, the id, or toAll.
func parseAgentSubject(subject string, prefix int) (from, to int, ok bool) {
	if len(subject) <= prefix {
		return 0, 0, false
	}
	tail := subject[prefix:]
	head, rest, dotted := strings.Cut(tail, ".")
	if from, ok = parseID(head); !ok {
		return 0, 0, false
	}
	switch {
	case !dotted:
		return from, toHeader, true
	case rest == "all":
		return from, toAll, true
	}
	to, ok = parseID(rest)
	return from, to, ok
}

// parseID parses a decimal agent id without leading zeros.
func parseID(s string) (int, bool) {
	if s == "" || len(s) > 1 && s[0] == '0' {
		return 0, false
	}
	v := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' || v > MaxFrameID {
			return 0, false
		}
		v = 10*v + int(c-'0')
	}
	return v, v <= MaxFrameID
}

// names reports whether the destination list of frame (header h) holds id.
func names(frame []byte, h Header, id int) bool {
	for k := range h.NTo {
		if FrameTo(frame, h, k) == id {
			return true
		}
	}
	return false
}

// anyAdmits reports whether some local destination of the frame with
// header h (read from msg, whose MAC is not checked yet), on a subject
// for agent to (or toHeader, toAll), would admit its round. When none
// would, each local destination counts the frame as ahead, as it would
// have after the MAC. A frame with no local destination is admitted to
// the MAC check, so that a forged one is counted refused.
func (b *busConn) anyAdmits(eps []*natsEndpoint, msg []byte, h Header, to int) bool {
	admits, local := false, false
	localDests(eps, msg, h, to, func(e *natsEndpoint) bool {
		local = true
		admits = e.wouldAdmit(h.Round)
		return !admits
	})
	if !local {
		// No local destination (it has left, or the frame is for another
		// process): the MAC check decides whether the frame is counted
		// as refused.
		return true
	}
	if !admits {
		localDests(eps, msg, h, to, func(e *natsEndpoint) bool {
			e.ahead.Add(1)
			return true
		})
	}
	return admits
}

// localDests calls f on each local destination of the frame with header
// h read from msg on a subject for agent to (see anyAdmits) until f
// returns false.
func localDests(eps []*natsEndpoint, msg []byte, h Header, to int, f func(*natsEndpoint) bool) {
	switch {
	case to >= 0:
		if to < len(eps) && eps[to] != nil {
			f(eps[to])
		}
	case h.NTo == 0:
		for _, e := range eps {
			if e != nil && !f(e) {
				return
			}
		}
	default:
		for k := range h.NTo {
			if id := FrameTo(msg, h, k); id >= 0 && id < len(eps) && eps[id] != nil && !f(eps[id]) {
				return
			}
		}
	}
}

// onResult delivers an eval result or failure to the agent it names.
func (b *busConn) onResult(m *nats.Msg) {
	frame, ok := b.t.mac.open(macResult, m.Data)
	if !ok {
		b.refuse(m)
		return
	}
	h, err := decodeAddress(frame)
	if err == nil && h.Kind != FrameEvalResult && h.Kind != FrameEvalFail {
		err = fmt.Errorf("%s frame on a result subject", h.Kind)
	}
	if err != nil {
		b.malformed(m.Subject, err)
		return
	}
	if eps := *b.eps.Load(); h.From < len(eps) && eps[h.From] != nil {
		eps[h.From].inbox.putWake(frame)
	}
}

// onControl hands an authentic control frame to every local agent (its
// control mailbox wakes it if it waits in a phase, see Batcher).
func (b *busConn) onControl(m *nats.Msg) {
	frame, ok := b.t.mac.open(macControl, m.Data)
	if !ok {
		b.refuse(m)
		return
	}
	for _, e := range *b.eps.Load() {
		if e != nil {
			e.control.put(frame)
		}
	}
}
