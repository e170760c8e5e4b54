package node

import (
	"strconv"
	"sync"
	"testing"
)

// TestMailboxKeepsOrderPastItsBuffer puts far more frames than the
// channel holds from several senders while nobody reads, then checks that
// each sender's frames come out complete and in order.
func TestMailboxKeepsOrderPastItsBuffer(t *testing.T) {
	const senders, each = 4, 3 * mailboxBuffer
	mb := newMailbox(mailboxBuffer)
	var wg sync.WaitGroup
	for s := range senders {
		wg.Go(func() {
			for k := range each {
				if !mb.put([]byte(strconv.Itoa(s) + ":" + strconv.Itoa(k))) {
					t.Error("put into an open mailbox failed")
				}
			}
		})
	}
	wg.Wait()
	next := make([]int, senders)
	for range senders * each {
		f := string(<-mb.C())
		var s, k int
		for i := range f {
			if f[i] == ':' {
				s, _ = strconv.Atoi(f[:i])
				k, _ = strconv.Atoi(f[i+1:])
			}
		}
		if k != next[s] {
			t.Fatalf("sender %d: frame %d, want %d", s, k, next[s])
		}
		next[s]++
	}
	mb.close()
	if mb.put([]byte("late")) {
		t.Fatal("put into a closed mailbox succeeded")
	}
	if _, ok := <-mb.C(); ok {
		t.Fatal("channel still open after close")
	}
	mb.close() // idempotent
}

func TestMailboxCloseWhileDraining(t *testing.T) {
	mb := newMailbox(mailboxBuffer)
	for range 2 * mailboxBuffer {
		mb.put([]byte("x"))
	}
	mb.close()
	n := 0
	for range mb.C() {
		n++
	}
	if n > 2*mailboxBuffer {
		t.Fatalf("read %d frames, put %d", n, 2*mailboxBuffer)
	}
}
