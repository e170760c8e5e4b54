package node

import (
	"sync"
	"sync/atomic"
	"time"
)

// Capacities of a mailbox's output channel: frames go straight into it
// while the reader keeps up; beyond it they queue in an overflow list.
// An agent's control mailbox holds a few frames a run (start, stop,
// heartbeats), so it gets a small channel: at 10^5 agents the
// difference is 6 KiB an agent.
const (
	mailboxBuffer        = 256
	controlMailboxBuffer = 4
)

// newStatusMailbox returns the mailbox of a run's statuses, for n agents:
// once the coordinator reads it (read), a put waits while the channel is
// full. The agents of a process then slow down to the pace of their
// coordinator instead of queueing statuses without bound: at 10^5
// goroutine agents the coordinator is one goroutine among 10^5 runnable
// ones, and one that falls behind would not catch up. Until the reader
// comes, and after close, puts never wait.
func newStatusMailbox(n int) *mailbox {
	m := newMailbox(statusBuffer(n))
	m.waitForReader = true
	return m
}

// statusBuffer is the channel capacity of the status mailbox of a run of
// n agents: 4n frames (at least mailboxBuffer), a measured round's
// reports and the heartbeats of several periods. Statuses then go straight
// into the channel the coordinator reads; the overflow list, refilled by
// one goroutine among the agents' (at 10^5 agents it waits behind them
// for the processor), is left for a coordinator far behind. At 10^5
// agents the channel takes 9.6 MB.
func statusBuffer(n int) int { return max(mailboxBuffer, 4*n) }

// mailbox is an unbounded FIFO of frames read through a channel. put never
// blocks: while the channel has room a frame goes straight into it, and
// otherwise it joins an overflow list that one drainer goroutine moves
// into the channel in order. Memory is the only bound, and a run's frames
// are finite; a reader that falls behind delays frames but never loses or
// reorders them, and never stalls a sender.
type mailbox struct {
	out  chan []byte
	done chan struct{}
	// heard is when put last took a frame (Unix ns), 0 before the first.
	heard atomic.Int64
	// wake, if set, is called each time a put frame becomes readable in
	// the channel (at once, or when the drainer moves it there): the
	// reader may be waiting on something else (an agent in a phase waits
	// on its inbox, see Batcher).
	wake func()
	// waitForReader makes put wait for room in the channel, instead of
	// queueing in the overflow list, once read has been called (see
	// statusMailbox).
	waitForReader bool
	reading       atomic.Bool

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

// read is C for the reader that puts wait for (see waitForReader).
func (m *mailbox) read() <-chan []byte {
	if !m.reading.Load() {
		m.reading.Store(true)
	}
	return m.out
}

// put enqueues frame and reports whether the mailbox was still open. A
// frame put into a closed mailbox is discarded.
func (m *mailbox) put(frame []byte) bool {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return false
	}
	m.heard.Store(time.Now().UnixNano())
	if m.waitForReader && m.reading.Load() && !m.draining {
		// Wait outside the lock; close waits for this put (drainers)
		// before it closes the channel.
		m.drainers.Add(1)
		m.mu.Unlock()
		defer m.drainers.Done()
		select {
		case m.out <- frame:
			return true
		case <-m.done:
			return false
		}
	}
	defer m.mu.Unlock()
	if !m.draining {
		select {
		case m.out <- frame:
			if m.wake != nil {
				m.wake()
			}
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
			if m.wake != nil {
				m.wake()
			}
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
