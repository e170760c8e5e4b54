package node

import "sync"

// Capacities of a mailbox's output channel: frames go straight into it
// while the reader keeps up; beyond it they queue in an overflow list.
// An agent's control mailbox holds a few frames a run (start, stop,
// heartbeats), so it gets a small channel: at 10^5 agents the
// difference is 6 KiB an agent.
const (
	mailboxBuffer        = 256
	controlMailboxBuffer = 4
)

// mailbox is an unbounded FIFO of frames read through a channel. put never
// blocks: while the channel has room a frame goes straight into it, and
// otherwise it joins an overflow list that one drainer goroutine moves
// into the channel in order. Memory is the only bound, and a run's frames
// are finite; a reader that falls behind delays frames but never loses or
// reorders them, and never stalls a sender.
type mailbox struct {
	out  chan []byte
	done chan struct{}

	mu       sync.Mutex
	overflow [][]byte
	draining bool
	closed   bool
	drainers sync.WaitGroup
}

// newMailbox returns an open mailbox whose channel buffers capacity
// frames.
func newMailbox(capacity int) *mailbox {
	return &mailbox{out: make(chan []byte, capacity), done: make(chan struct{})}
}

// C yields the frames in the order they were put; it is closed by close.
func (m *mailbox) C() <-chan []byte { return m.out }

// put enqueues frame and reports whether the mailbox was still open. A
// frame put into a closed mailbox is discarded.
func (m *mailbox) put(frame []byte) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return false
	}
	if !m.draining {
		select {
		case m.out <- frame:
			return true
		default:
		}
		m.draining = true
		m.drainers.Add(1)
		go m.drain()
	}
	m.overflow = append(m.overflow, frame)
	return true
}

// drain moves the overflow list into the channel until it is empty or the
// mailbox closes.
func (m *mailbox) drain() {
	defer m.drainers.Done()
	for {
		m.mu.Lock()
		if len(m.overflow) == 0 || m.closed {
			m.overflow, m.draining = nil, false
			m.mu.Unlock()
			return
		}
		f := m.overflow[0]
		m.overflow[0] = nil
		m.overflow = m.overflow[1:]
		m.mu.Unlock()
		select {
		case m.out <- f:
		case <-m.done:
			return
		}
	}
}

// close discards queued frames that are not yet in the channel, stops the
// drainer and closes the channel. It is idempotent.
func (m *mailbox) close() {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return
	}
	m.closed = true
	close(m.done)
	m.mu.Unlock()
	m.drainers.Wait()
	close(m.out)
}
