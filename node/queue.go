package node

import (
	"sync"
	"sync/atomic"
)

// Batcher is implemented by endpoints that can hand over every frame
// queued for the agent at once. The round loop prefers it to Inbox, which
// costs a channel operation (and often a goroutine wake-up) per frame:
// with a batch the agent wakes once for all the frames that arrived while
// it computed. A transport whose endpoints are Batchers wakes a waiting
// agent (as Wake does) when a control frame reaches it, so that a stop
// control ends a phase's wait at once: peers stopped by the same control
// send nothing more, and need not announce it with leave frames.
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

// countWaiter is implemented by Batchers whose wait can be for a count:
// waitInboxFor(k) is WaitInbox that returns once k frames are queued (or
// a frame that may settle several awaited ones, a Wake, the close), so a
// round loop that still needs k frames wakes once for them. Like
// WaitInbox it may return spuriously.
type countWaiter interface {
	waitInboxFor(k int)
}

// urgent reports whether a frame of kind k wakes a reader waiting for a
// count at once (queue.putWake): a leave frame may settle two awaited
// items of its sender (its message and its reduce term), and eval frames
// are awaited outside the count.
func urgent(k FrameKind) bool { return !k.data() && k != FrameReduce && k != FrameSum }

// queue is a FIFO of frames for one reader: put never blocks, take hands
// over everything queued. It holds at most limit frames
// (no bound when limit is 0): a frame put into a full queue is dropped and
// counted in dropped. A channel view (C) is started on first use for
// readers that want one frame at a time; a queue must be read through
// take or through C, not both. close discards the frames still queued, so
// a queue whose reader has gone holds nothing.
//
// The frames are a slice under a mutex that take empties without freeing,
// so a queue in steady state allocates nothing. The reader waits for a
// count (waitFor): the round loop knows how many frames it still needs in
// the phase, and put wakes it only once that many are queued, so a phase
// whose k frames arrive while the reader sleeps costs one wake-up, not k.
// Frames that may settle more than one awaited item (leave frames) and
// out-of-band events go through putWake, which wakes the reader at once;
// deadlines and cancellation wake it through signal, which a reader not
// waiting finds at its next wait. The reader sleeps on a sync.Cond of
// the queue's mutex rather than on a channel of its own, one object
// less per wake-up for the sender to lock and miss in the cache
// (BenchmarkRounds null/chan measures it).
type queue struct {
	mu     sync.Mutex
	frames [][]byte     // queued frames, oldest first
	n      atomic.Int64 // len(frames), written under mu
	closed atomic.Bool
	// The reader waits on cond (L = &mu) for need frames (0 while it is
	// not waiting: a sender to a busy reader signals nothing); woken is a
	// wake-up (signal) that no wait has taken yet. Both under mu.
	cond  sync.Cond
	need  int
	woken bool
	done  chan struct{} // closed by close: the channel view's pump exits

	once      sync.Once
	closeOnce sync.Once
	out       chan []byte

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
	q := &queue{done: make(chan struct{})}
	q.cond.L = &q.mu
	return q
}

// newBoundedQueue returns a queue of at most limit frames.
func newBoundedQueue(limit int) *queue {
	q := newQueue()
	q.limit = limit
	return q
}

// put appends frame and reports whether the queue was still open; a frame
// put into a closed queue is discarded. A waiting reader is woken when
// the queue holds the count it waits for.
func (q *queue) put(frame []byte) bool { return q.push(frame, false) }

// putWake is put that wakes a waiting reader whatever the count.
func (q *queue) putWake(frame []byte) bool { return q.push(frame, true) }

func (q *queue) push(frame []byte, wake bool) bool {
	q.mu.Lock()
	if q.closed.Load() {
		q.mu.Unlock()
		return false
	}
	if q.limit > 0 && len(q.frames) >= q.limit {
		q.mu.Unlock()
		q.dropped.Add(1)
		return true
	}
	q.frames = append(q.frames, frame)
	n := len(q.frames)
	q.n.Store(int64(n))
	signal := q.need > 0 && (wake || n >= q.need)
	if signal {
		// The reader is woken once: later frames find it not waiting.
		q.need = 0
	}
	q.mu.Unlock()
	if signal {
		q.cond.Signal()
	}
	return true
}

// signal wakes the reader, or the next wait if it is not waiting.
func (q *queue) signal() {
	q.mu.Lock()
	waiting := q.need > 0
	q.need = 0
	q.woken = !waiting
	q.mu.Unlock()
	if waiting {
		q.cond.Signal()
	}
}

// wait blocks until a frame is queued, the queue closes or signal is
// called (see Batcher.WaitInbox).
func (q *queue) wait() { q.waitFor(1) }

// waitFor blocks until at least k frames are queued, a putWake, the queue
// closes or signal is called. It may return spuriously (a signal left by
// an earlier wait): callers re-check what they wait for.
func (q *queue) waitFor(k int) {
	k = max(k, 1)
	q.mu.Lock()
	if q.woken {
		q.woken = false
	} else if len(q.frames) < k && !q.closed.Load() {
		// The waker clears need before it signals (push, signal, close).
		q.need = k
		for q.need != 0 {
			q.cond.Wait()
		}
	}
	q.mu.Unlock()
}

// take appends the queued frames to dst, in arrival order, and empties
// the queue. ok is false once the queue is closed and empty.
func (q *queue) take(dst [][]byte) ([][]byte, bool) {
	if q.n.Load() == 0 {
		return dst, !q.closed.Load()
	}
	q.mu.Lock()
	dst = append(dst, q.frames...)
	clear(q.frames)
	q.frames = q.frames[:0]
	q.n.Store(0)
	q.mu.Unlock()
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
		q.mu.Lock()
		q.closed.Store(true)
		clear(q.frames)
		q.frames = nil
		q.n.Store(0)
		q.mu.Unlock()
		close(q.done)
		q.signal()
	})
}
