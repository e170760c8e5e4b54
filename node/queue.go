package node

import (
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
// counted in dropped. A channel view (C) is
// started on first use for readers that want one frame at a time; a queue
// must be read through take or through C, not both. close discards the
// frames still queued, so a queue whose reader has gone holds nothing.
type queue struct {
	mu     sync.Mutex
	frames [][]byte
	closed bool
	ready  chan struct{}
	done   chan struct{} // closed by close: the channel view's pump exits
	// waiting is set while the reader is in wait: only then does put
	// signal ready, so a sender to a busy reader takes no channel lock.
	waiting atomic.Bool

	once sync.Once
	out  chan []byte

	limit   int
	dropped atomic.Int64
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
	q.mu.Lock()
	if q.closed {
		q.mu.Unlock()
		return false
	}
	if q.limit > 0 && len(q.frames) >= q.limit {
		q.mu.Unlock()
		q.dropped.Add(1)
		return true
	}
	q.frames = append(q.frames, frame)
	q.mu.Unlock()
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
// looks at the queue, so a put that finds it not waiting has appended
// before the look and is seen.
func (q *queue) wait() {
	q.waiting.Store(true)
	q.mu.Lock()
	pending := len(q.frames) > 0 || q.closed
	q.mu.Unlock()
	if !pending {
		<-q.ready
	}
	q.waiting.Store(false)
}

// take appends the queued frames to dst and empties the queue. ok is
// false once the queue is closed and empty.
func (q *queue) take(dst [][]byte) ([][]byte, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	dst = append(dst, q.frames...)
	clear(q.frames)
	q.frames = q.frames[:0]
	if cap(q.frames) > 1<<12 {
		q.frames = nil // after a burst, do not keep its storage
	}
	return dst, !(q.closed && len(dst) == 0)
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
	q.mu.Lock()
	if q.closed {
		q.mu.Unlock()
		return
	}
	q.closed = true
	clear(q.frames)
	q.frames = nil
	close(q.done)
	q.mu.Unlock()
	q.signal()
}
