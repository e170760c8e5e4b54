package node

import (
	"slices"
	"sync"
	"sync/atomic"
)

// Batcher is implemented by endpoints that can hand over every frame
// queued for the agent at once. The round loop prefers it to Inbox, which
// costs a channel operation (and often a goroutine wake-up) per frame:
// with a batch the agent wakes once for all the frames that arrived while
// it computed.
type Batcher interface {
	// TakeInbox appends the queued frames to dst in arrival order, empties
	// the queue and returns the extended slice. ok is false once the
	// endpoint is closed and nothing is left.
	TakeInbox(dst [][]byte) (frames [][]byte, ok bool)
	// WaitInbox blocks until a frame is queued, the endpoint closes or
	// Wake is called; it returns at once if frames are queued. It may
	// also return spuriously: callers re-check what they wait for.
	WaitInbox()
	// Wake makes a blocked (or the next) WaitInbox return. Deadlines and
	// cancellation use it.
	Wake()
}

// queue is a FIFO of frames with a one-slot wake-up signal: put never
// blocks, take hands over everything queued. It holds at most limit frames
// (no bound when limit is 0): a frame put into a full queue is dropped and
// counted in dropped. A channel view (C) is started on first use for
// readers that want one frame at a time; a queue must be read through
// take or through C, not both. close discards the frames still queued, so
// a queue whose reader has gone holds nothing.
//
// It takes no lock: put pushes a node onto a stack with one
// compare-and-swap, and take detaches the whole stack with one swap and
// reverses it into arrival order.
type queue struct {
	head   atomic.Pointer[qnode] // the frames queued, newest first
	n      atomic.Int64          // frames queued (with limit)
	closed atomic.Bool
	ready  chan struct{}
	done   chan struct{} // closed by close: the channel view's pump exits
	// waiting is set while the reader is in wait: only then does put
	// signal ready, so a sender to a busy reader touches no channel.
	waiting atomic.Bool

	once      sync.Once
	closeOnce sync.Once
	out       chan []byte

	limit   int
	dropped atomic.Int64
}

// qnode is one queued frame.
type qnode struct {
	f    []byte
	next *qnode
}

// inboxCap bounds the frames queued for one agent of a NATS transport
// that its round loop has not taken yet. A round loop takes everything
// queued each time it looks, so only a flood (or an agent stuck far
// behind) reaches it; frames beyond it are dropped and counted
// (EndpointStats.Overflow), and the agent sees them as dropouts.
const inboxCap = 1 << 16

func newQueue() *queue {
	return &queue{ready: make(chan struct{}, 1), done: make(chan struct{})}
}

// newBoundedQueue returns a queue of at most limit frames.
func newBoundedQueue(limit int) *queue {
	q := newQueue()
	q.limit = limit
	return q
}

// put appends frame and reports whether the queue was still open; a frame
// put into a closed queue is discarded.
func (q *queue) put(frame []byte) bool {
	if q.closed.Load() {
		return false
	}
	if q.limit > 0 && q.n.Add(1) > int64(q.limit) {
		q.n.Add(-1)
		q.dropped.Add(1)
		return true
	}
	node := &qnode{f: frame}
	for {
		old := q.head.Load()
		node.next = old
		if q.head.CompareAndSwap(old, node) {
			break
		}
	}
	if q.closed.Load() {
		q.head.Store(nil) // closed meanwhile: hold nothing
		return false
	}
	if q.waiting.Load() {
		q.signal()
	}
	return true
}

func (q *queue) signal() {
	select {
	case q.ready <- struct{}{}:
	default:
	}
}

// wait blocks until frames are queued, the queue closes or signal is
// called (see Batcher.WaitInbox). The reader announces itself before it
// looks at the queue, so a put that finds it not waiting has pushed
// before the look and is seen.
func (q *queue) wait() {
	q.waiting.Store(true)
	if q.head.Load() == nil && !q.closed.Load() {
		<-q.ready
	}
	q.waiting.Store(false)
}

// take appends the queued frames to dst, in arrival order, and empties
// the queue. ok is false once the queue is closed and empty.
func (q *queue) take(dst [][]byte) ([][]byte, bool) {
	list := q.head.Swap(nil)
	if list == nil {
		return dst, !q.closed.Load()
	}
	start := len(dst)
	for p := list; p != nil; p = p.next {
		dst = append(dst, p.f)
	}
	if q.limit > 0 {
		q.n.Add(-int64(len(dst) - start))
	}
	slices.Reverse(dst[start:])
	return dst, true
}

// C returns a channel yielding the frames one at a time in order; it is
// closed once the queue closes. Frames already in the channel's buffer
// stay readable; those still queued behind it are discarded.
func (q *queue) C() <-chan []byte {
	q.once.Do(func() {
		q.out = make(chan []byte, mailboxBuffer)
		go q.pump()
	})
	return q.out
}

// pump moves the queued frames into q.out until the queue closes; a
// reader that stops reading cannot keep it (or the frames) alive past
// close.
func (q *queue) pump() {
	defer close(q.out)
	var batch [][]byte
	for {
		var ok bool
		batch, ok = q.take(batch[:0])
		if !ok {
			return
		}
		for i, f := range batch {
			select {
			case q.out <- f:
				batch[i] = nil
			case <-q.done:
				return
			}
		}
		if len(batch) == 0 {
			q.wait()
		}
	}
}

// close marks the queue closed, discards the frames still queued, stops
// the channel view's pump and wakes the reader. It is idempotent.
func (q *queue) close() {
	q.closeOnce.Do(func() {
		q.closed.Store(true)
		q.head.Store(nil)
		close(q.done)
		q.signal()
	})
}
