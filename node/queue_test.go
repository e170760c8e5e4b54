package node

import (
	"runtime"
	"testing"
	"time"
)

// TestQueueCloseStopsPump: the channel view of a queue whose reader has
// stopped reading holds a full channel buffer and more frames behind it.
// close must end the pump (which closes the channel on exit) and discard
// the frames behind the buffer, instead of leaving the pump blocked on a
// send with every frame queued.
func TestQueueCloseStopsPump(t *testing.T) {
	const total = 4 * mailboxBuffer
	q := newQueue()
	c := q.C()
	for i := range total {
		q.put([]byte{byte(i)})
	}
	// Once the channel is full the pump is blocked on a send.
	waitUntil(t, "the channel view fills", func() bool { return len(c) == cap(c) })
	q.close()

	read := 0
	bound := time.NewTimer(5 * time.Second)
	defer bound.Stop()
	for open := true; open; {
		select {
		case _, ok := <-c:
			if ok {
				read++
			}
			open = ok
		case <-bound.C:
			t.Fatalf("channel view still open 5 s after close (%d frames read): the pump did not exit", read)
		}
	}
	if read > mailboxBuffer {
		t.Errorf("%d frames read after close, want at most the %d buffered: the queued frames were not discarded", read, mailboxBuffer)
	}
	if _, ok := q.take(nil); ok {
		t.Error("take on a closed queue reports frames left")
	}
}

// waitUntil polls cond for up to 5 s and fails the test if it stays false.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting until %s", what)
		}
		runtime.Gosched()
		time.Sleep(time.Millisecond)
	}
}
