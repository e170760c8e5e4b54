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
	for !cond() {
		runtime.Gosched()
		time.Sleep(time.Millisecond)
	}
}

// TestQueueWaitForCount: a reader waiting for 3 frames is not woken by
// the first 2 (put), is woken by the third, and a putWake wakes it
// whatever the count. take then hands over every frame in order.
func TestQueueWaitForCount(t *testing.T) {
	q := newQueue()
	woke := make(chan struct{})
	go func() {
		q.waitFor(3)
		close(woke)
	}()
	waitUntil(t, "the reader waits", func() bool { return waitingFor(q) == 3 })
	q.put([]byte{0})
	q.put([]byte{1})
	select {
	case <-woke:
		t.Fatal("waitFor(3) returned with 2 frames queued")
	case <-time.After(50 * time.Millisecond):
	}
	q.put([]byte{2})
	<-woke // blocked for good if the third frame did not wake it
	frames, ok := q.take(nil)
	if !ok || len(frames) != 3 || frames[0][0] != 0 || frames[2][0] != 2 {
		t.Fatalf("take: %v, %v; want frames 0, 1, 2", frames, ok)
	}

	woke = make(chan struct{})
	go func() {
		q.waitFor(5)
		close(woke)
	}()
	waitUntil(t, "the reader waits again", func() bool { return waitingFor(q) == 5 })
	q.putWake([]byte{3})
	<-woke // blocked for good if putWake did not wake waitFor(5)
}

// TestQueueSignal: a signal wakes a waiting reader whatever the count; a
// signal while the reader is busy makes its next wait return at once, and
// only that one; close wakes a waiting reader and every later wait.
func TestQueueSignal(t *testing.T) {
	q := newQueue()
	returns := func(k int) chan struct{} {
		c := make(chan struct{})
		go func() {
			q.waitFor(k)
			close(c)
		}()
		return c
	}
	expect := func(c chan struct{}, what string) {
		t.Helper()
		<-c // blocked for good if what did not wake the reader
		t.Logf("%s: woken", what)
	}
	woke := returns(2)
	waitUntil(t, "the reader waits", func() bool { return waitingFor(q) == 2 })
	q.signal()
	expect(woke, "signal to a waiting reader")

	q.signal() // nobody waits: the next wait takes it
	expect(returns(2), "the wait after a signal")
	woke = returns(2)
	waitUntil(t, "the reader waits", func() bool { return waitingFor(q) == 2 })
	select {
	case <-woke:
		t.Fatal("a second wait returned on one signal")
	case <-time.After(50 * time.Millisecond):
	}
	q.close()
	expect(woke, "close")
	expect(returns(1), "a wait after close")
}

// TestQueueLimit: a bounded queue drops and counts the frames beyond its
// limit, and takes its frames without allocating once warm.
func TestQueueLimit(t *testing.T) {
	q := newBoundedQueue(4)
	for i := range 6 {
		q.put([]byte{byte(i)})
	}
	frames, _ := q.take(nil)
	if len(frames) != 4 || q.dropped.Load() != 2 {
		t.Fatalf("%d frames kept, %d dropped; want 4 and 2", len(frames), q.dropped.Load())
	}
	f := []byte{9}
	allocs := testing.AllocsPerRun(100, func() {
		for range 4 {
			q.put(f)
		}
		frames, _ = q.take(frames[:0])
	})
	if allocs != 0 {
		t.Errorf("%v allocations per put-and-take cycle, want 0", allocs)
	}
}

// waitingFor returns the count q's reader waits for, 0 if it does not.
func waitingFor(q *queue) int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.need
}
