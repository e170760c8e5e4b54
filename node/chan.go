package node

import (
	"fmt"
	"sync"
)

// ChanTransport connects the agents and the observer of one run inside a
// process with in-memory queues. Every agent inbox and every control
// queue is an unbounded FIFO (see queue and mailbox): Publish and Control
// copy the frame once (the round loop encodes its frames straight into
// the sender's block instead, see framePublisher), enqueue it for each
// reader and return without blocking, so no agent can stall or deadlock
// another; frames wait in memory until their reader takes them. Status
// does not block either until the observer reads its first status; from
// then on it waits while 4N statuses are unread (see newStatusMailbox),
// and never once the observer is closed.
//
// Frames sent to an agent that has not connected yet wait for it; frames
// sent to an agent whose endpoint is closed are discarded, as a publish to
// a subject without subscribers would be. Frames read from an Inbox are
// shared between the destinations of a frame and must not be modified.
type ChanTransport struct {
	n       int
	inbox   []*queue
	control []*mailbox
	status  *mailbox

	mu        sync.Mutex
	connected []bool
	observed  bool
}

// NewChanTransport returns an in-memory transport for agents 0..n-1.
func NewChanTransport(n int) (*ChanTransport, error) {
	if n < 1 {
		return nil, fmt.Errorf("node: channel transport for %d agents: need at least 1", n)
	}
	t := &ChanTransport{
		n:         n,
		inbox:     make([]*queue, n),
		control:   make([]*mailbox, n),
		status:    newStatusMailbox(n),
		connected: make([]bool, n),
	}
	for i := range n {
		t.inbox[i], t.control[i] = newQueue(), newMailbox(controlMailboxBuffer)
		t.control[i].wake = t.inbox[i].signal
	}
	return t, nil
}

// Endpoint implements Transport. Each agent id connects once.
func (t *ChanTransport) Endpoint(id int) (Endpoint, error) {
	if id < 0 || id >= t.n {
		return nil, fmt.Errorf("node: channel endpoint for agent %d: ids are 0..%d", id, t.n-1)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.connected[id] {
		return nil, fmt.Errorf("node: channel endpoint for agent %d: already connected", id)
	}
	t.connected[id] = true
	return &chanEndpoint{t: t, id: id}, nil
}

// Observer implements Transport. The run has one observer.
func (t *ChanTransport) Observer() (Observer, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.observed {
		return nil, fmt.Errorf("node: channel observer: already connected")
	}
	t.observed = true
	return &chanObserver{t: t}, nil
}

// Close implements Transport: it closes every queue.
func (t *ChanTransport) Close() error {
	for i := range t.n {
		t.inbox[i].close()
		t.control[i].close()
	}
	t.status.close()
	return nil
}

// broadcast puts f into every agent's inbox.
func (t *ChanTransport) broadcast(f []byte, wake bool) {
	for _, q := range t.inbox {
		q.push(f, wake)
	}
}

// clone returns a copy of frame that the caller may keep.
func clone(frame []byte) []byte { return append([]byte(nil), frame...) }

type chanEndpoint struct {
	t  *ChanTransport
	id int
	// slab is the block the endpoint copies published frames into (see
	// copyFrame); only Publish touches it, and the round loop publishes
	// from one goroutine.
	mu   sync.Mutex
	slab []byte
	// own is the block the round loop encodes its frames into (see
	// frameBuffer); only the round loop's goroutine touches it.
	own []byte
}

// Slab sizes: a frame is copied into the sender's current block, and a new
// block of max(slabFrames frames, slabMin bytes) is allocated when it is
// full; frames over slabMax bytes get a block of their own.
const (
	slabFrames = 16
	slabMin    = 2048
	slabMax    = 64 << 10
)

// copyFrame returns a copy of frame that its readers share: it is carved
// from the endpoint's block, so publishing costs one allocation per
// block, not one per frame. Frames never move or change once handed
// out; the garbage collector frees a block once no reader holds a frame
// of it.
func (e *chanEndpoint) copyFrame(frame []byte) []byte {
	n := len(frame)
	if n > slabMax {
		return clone(frame)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	return append(carve(&e.slab, n), frame...)
}

// carve returns the next n bytes of the block *b as an empty slice of
// capacity n, starting a new block of max(slabFrames*n, slabMin) bytes
// when *b has no room; the bytes are never handed out again.
func carve(b *[]byte, n int) []byte {
	if cap(*b)-len(*b) < n {
		*b = make([]byte, 0, max(slabFrames*n, slabMin))
	}
	k := len(*b)
	*b = (*b)[:k+n]
	return (*b)[k : k : k+n]
}

// Publish implements Endpoint: one copy of frame, shared by the inboxes of
// its destinations.
func (e *chanEndpoint) Publish(frame []byte) error {
	h, err := decodeAddress(frame)
	if err != nil {
		return fmt.Errorf("node: agent %d publishes: %w", e.id, err)
	}
	for k := range h.NTo {
		if to := FrameTo(frame, h, k); to < 0 || to >= e.t.n {
			return fmt.Errorf("node: agent %d sends to agent %d: ids are 0..%d", e.id, to, e.t.n-1)
		}
	}
	f := e.copyFrame(frame)
	wake := urgent(h.Kind)
	if h.NTo == 0 {
		e.t.broadcast(f, wake)
		return nil
	}
	for k := range h.NTo {
		e.t.inbox[FrameTo(f, h, k)].push(f, wake)
	}
	return nil
}

// frameBuffer implements framePublisher: the next n bytes of the round
// loop's block (a new block when it is full), taken at once.
func (e *chanEndpoint) frameBuffer(n int) []byte {
	if n > slabMax {
		return make([]byte, 0, n)
	}
	return carve(&e.own, n)
}

// publishOwned implements framePublisher: frame goes as it is to the
// inboxes of its destinations to (every agent's when empty).
func (e *chanEndpoint) publishOwned(frame []byte, kind FrameKind, to []int) error {
	for _, j := range to {
		if j < 0 || j >= e.t.n {
			return fmt.Errorf("node: agent %d sends to agent %d: ids are 0..%d", e.id, j, e.t.n-1)
		}
	}
	wake := urgent(kind)
	if len(to) == 0 {
		e.t.broadcast(frame, wake)
		return nil
	}
	for _, j := range to {
		e.t.inbox[j].push(frame, wake)
	}
	return nil
}

func (e *chanEndpoint) Inbox() <-chan []byte { return e.t.inbox[e.id].C() }

// TakeInbox implements Batcher.
func (e *chanEndpoint) TakeInbox(dst [][]byte) ([][]byte, bool) { return e.t.inbox[e.id].take(dst) }

// WaitInbox implements Batcher.
func (e *chanEndpoint) WaitInbox() { e.t.inbox[e.id].wait() }

func (e *chanEndpoint) waitInboxFor(k int) { e.t.inbox[e.id].waitFor(k) }

// Wake implements Batcher.
func (e *chanEndpoint) Wake() { e.t.inbox[e.id].signal() }

func (e *chanEndpoint) Status(frame []byte) error {
	if !e.t.status.put(clone(frame)) {
		return fmt.Errorf("node: agent %d publishes status: observer closed", e.id)
	}
	return nil
}

func (e *chanEndpoint) Control() <-chan []byte { return e.t.control[e.id].C() }

func (e *chanEndpoint) lastControl() int64 { return e.t.control[e.id].heard.Load() }

func (e *chanEndpoint) Close() error {
	e.t.inbox[e.id].close()
	e.t.control[e.id].close()
	return nil
}

type chanObserver struct{ t *ChanTransport }

func (o *chanObserver) Statuses() <-chan []byte { return o.t.status.read() }

// Control implements Observer: every agent gets the frame; its control
// mailbox wakes an agent waiting in a phase to read it (see Batcher).
func (o *chanObserver) Control(frame []byte) error {
	f := clone(frame)
	for _, mb := range o.t.control {
		mb.put(f)
	}
	return nil
}

func (o *chanObserver) Close() error {
	o.t.status.close()
	return nil
}
