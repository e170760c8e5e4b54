package node

import (
	"testing"
	"time"

	"github.com/consim/consim/consensus"
)

// sparse is a test agent of two whose edge is present only in rounds
// t = 9 mod 10: there it sends its round number to the other and expects
// the other's; in other rounds it exchanges nothing. got counts the
// messages received.
type sparse struct {
	id, got int
	msg     []consensus.Msg
	peer    []int
}

func (a *sparse) ID() int        { return a.id }
func (a *sparse) Phases(int) int { return 1 }
func (a *sparse) Send(t, ph int) consensus.Outbox {
	if t%10 != 9 {
		return consensus.Outbox{}
	}
	a.msg = []consensus.Msg{{From: a.id, To: 1 - a.id, Round: t, Data: []float64{float64(t)}}}
	a.peer = []int{1 - a.id}
	return consensus.Outbox{Msgs: a.msg, Expect: a.peer}
}
func (a *sparse) Receive(t, ph int, in consensus.Inbox) error {
	a.got += len(in.Msgs)
	return nil
}
func (a *sparse) Report() consensus.Report { return consensus.Report{ID: a.id} }

// TestPeerFarAheadOnASparseGraph: agent 0 is slow (2 ms per round), and
// its only edge is present every 10th round, so agent 1 runs up to 9
// rounds ahead and its frame arrives long before agent 0 needs it. The
// default window keeps it: no dropout. On NATS, where the agents'
// connection sees the frame on arrival, a window of 2 rounds drops it,
// which the run sees as dropouts.
func TestPeerFarAheadOnASparseGraph(t *testing.T) {
	const rounds = 30
	for _, kind := range TransportKinds {
		windows := []int{0, 2}
		if kind == TransportChan {
			// The channel path reads the queue only while it waits, so
			// whether it sees the frame early depends on timing.
			windows = windows[:1]
		}
		for _, window := range windows {
			t.Run(string(kind)+map[int]string{0: "/default", 2: "/window=2"}[window], func(t *testing.T) {
				agents := []consensus.Agent{&sparse{id: 0}, &sparse{id: 1}}
				// With the default window no frame is lost, so a deadline
				// that a loaded machine cannot miss costs nothing; with a
				// window of 2 every dropped frame costs one.
				deadline := time.Minute
				if window > 0 {
					deadline = 100 * time.Millisecond
				}
				opts := Options{Rounds: rounds, FutureWindow: window, PhaseDeadline: deadline,
					Faults: Faults{Stragglers: Stragglers{Dist: Dist{Kind: DistFixed, Mean: 2 * time.Millisecond}, Agents: []int{0}}}}
				res, err := runObserved(t, newTestTransport(t, kind, 2), agents, opts, nil)
				if err != nil {
					t.Fatal(err)
				}
				var dropouts, ahead int64
				for _, s := range res.terminal {
					dropouts += s.Traffic.Dropouts
					ahead += s.Traffic.Ahead
				}
				if window == 0 {
					if dropouts != 0 || ahead != 0 || agents[0].(*sparse).got != rounds/10 {
						t.Errorf("%d dropouts, %d frames ahead, agent 0 got %d of %d messages", dropouts, ahead, agents[0].(*sparse).got, rounds/10)
					}
					return
				}
				if ahead == 0 || dropouts == 0 {
					t.Errorf("window 2: %d frames ahead, %d dropouts; want some of each", ahead, dropouts)
				}
			})
		}
	}
}

// TestFutureFramesPerSender: the early-frame buffer drops a sender's
// frames beyond Options.FutureFrames, counted as ahead, while another
// sender's frames are still kept, whether or not the buffer is past the
// point where it counts per sender; taking the frames of the current
// phase keeps the counts, so the freed room is a sender's again.
func TestFutureFramesPerSender(t *testing.T) {
	const f = 8
	tr, err := NewChanTransport(3)
	if err != nil {
		t.Fatal(err)
	}
	ep, err := tr.Endpoint(0)
	if err != nil {
		t.Fatal(err)
	}
	o, err := Options{N: 3, Rounds: 10, FutureWindow: 100, FutureFrames: f}.resolve()
	if err != nil {
		t.Fatal(err)
	}
	r := newRunner(&sparse{id: 0}, ep, o)
	r.cur = phaseKey(0, 0)
	keep := func(from, round int) {
		r.keepFuture(Header{Kind: FrameData, From: from, Round: round}, nil, 0)
	}
	for k := range 3 * f {
		keep(1, 1+k%3) // rounds 1..3: sender 1 floods
	}
	if r.nFuture != f || r.ahead != 2*f {
		t.Fatalf("sender 1: %d kept, %d ahead; want %d and %d", r.nFuture, r.ahead, f, 2*f)
	}
	for range f {
		keep(2, 2)
	}
	if r.nFuture != 2*f || r.ahead != 2*f {
		t.Fatalf("sender 2: %d kept in all, %d ahead; want %d and %d", r.nFuture, r.ahead, 2*f, 2*f)
	}
	keep(2, 2)
	if r.ahead != 2*f+1 {
		t.Fatalf("sender 2's frame %d: %d ahead, want %d", f+1, r.ahead, 2*f+1)
	}
	// Round 1 comes: sender 1's frames of round 1 are taken (as
	// unexpected: nobody expects them), which frees room for sender 1 only.
	r.cur = phaseKey(1, 0)
	r.takeFuture()
	taken := 2*f - r.nFuture
	if taken == 0 {
		t.Fatal("no frame of round 1 taken")
	}
	for range taken {
		keep(1, 3)
	}
	keep(1, 3)
	keep(2, 3)
	if want := 2*f + 3; r.ahead != int64(want) {
		t.Errorf("after round 1: %d ahead, want %d (sender 1 refilled its share, then one more of each sender)", r.ahead, want)
	}
}
