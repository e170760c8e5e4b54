package node

import (
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
)

// TestFloodOfFarFutureFrames floods agent 0 of a live NATS run with data
// frames for a far-future round that carry a valid MAC (an insider with
// the run key: the worst case, since frames without it are refused
// before any queue). The frames are for the last round, so they are far
// ahead of the agent for all but the last rounds: they are dropped on
// arrival by the agents' connection, before any queue, and counted
// (Traffic.Ahead; or by the NATS client as slow-consumer events), the heap stays within a bound independent of the
// flood, and the run ends unchanged: every round, no dropout, iterates
// bit-identical to the lockstep reference. The round rate with and
// without the flood is logged. 100,000 frames by default; 1,000,000 with
// CONSIM_LONG=1.
func TestFloodOfFarFutureFrames(t *testing.T) {
	frames := 100_000
	if os.Getenv("CONSIM_LONG") == "1" {
		frames = 1_000_000
	}
	const n, rounds = 8, 3000
	g := ring(t, n)
	want := nullAgents(t, g, 10)
	lockstep(t, want, rounds)

	run := func(flood int) (rate float64, peak uint64, res observed) {
		tr := attackTransport(t, TransportNATS, "flooded")
		agents := nullAgents(t, g, 10)
		nc := outsider(t, tr)
		frame := mustFrameTo(t, FrameData, 1, []int{0}, rounds-1, 0, make([]float64, 10)) // far ahead until the end
		var wg sync.WaitGroup
		var stop atomic.Bool
		var sampled atomic.Uint64
		runtime.GC()
		var base runtime.MemStats
		runtime.ReadMemStats(&base)
		wg.Add(1)
		go func() { // heap sampler
			defer wg.Done()
			var m runtime.MemStats
			for !stop.Load() {
				runtime.ReadMemStats(&m)
				if m.HeapInuse > base.HeapInuse && m.HeapInuse-base.HeapInuse > sampled.Load() {
					sampled.Store(m.HeapInuse - base.HeapInuse)
				}
				time.Sleep(5 * time.Millisecond)
			}
		}()
		var begin time.Time
		inject := func() {
			begin = time.Now()
			if flood == 0 {
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range flood {
					if err := tr.mac.seal(macAgent, frame, func(m []byte) error { return nc.Publish(SubjectAgent(tr.opts.RunID, 1), m) }); err != nil {
						if err != nats.ErrConnectionClosed {
							t.Error(err)
						}
						return
					}
				}
			}()
		}
		res, _ = runAttacked(t, tr, agents, Options{Rounds: rounds, PhaseDeadline: 10 * time.Second}, inject)
		elapsed := time.Since(begin)
		stop.Store(true)
		wg.Wait()
		sameBits(t, agents, want)
		for i, s := range res.terminal {
			if s.Kind != StatusFinal || s.Report.Round != rounds || s.Traffic.Dropouts != 0 {
				t.Errorf("agent %d: %s after round %d with %d dropouts", i, s.Kind, s.Report.Round, s.Traffic.Dropouts)
			}
		}
		return float64(rounds) / elapsed.Seconds(), sampled.Load(), res
	}

	rate0, peak0, _ := run(0)
	rate, peak, res := run(frames)
	tr0 := res.terminal[0].Traffic
	t.Logf("%d far-future frames to agent 0: %.0f rounds/s (%.0f without), heap peak +%.1f MB (+%.1f MB without); agent 0 dropped %d ahead, %d at a full queue; %d slow-consumer events",
		frames, rate, rate0, float64(peak)/(1<<20), float64(peak0)/(1<<20), tr0.Ahead, tr0.InboxOverflow, tr0.SlowConsumer)
	if tr0.Ahead == 0 {
		t.Errorf("agent 0 counted no frame ahead of its window: %+v", tr0)
	}
	if tr0.Ahead+tr0.InboxOverflow+tr0.Unexpected+tr0.Late > int64(frames) {
		t.Errorf("agent 0 dropped %d frames, more than the %d sent", tr0.Ahead+tr0.InboxOverflow, frames)
	}
	// The bound: what the flood can hold up is the embedded server's
	// queue for the agents' connection (natsMaxPending, 256 MiB; it makes
	// the flooder wait beyond 3/4 of it) and the client's pending limit
	// (natsPendingMsgs); the agents drop every frame on arrival. The
	// unbounded list this replaces grew by ~200 bytes per frame, 630 MB
	// for 3,000,000 frames.
	const bound = natsMaxPending + natsMaxPending/4
	if peak > peak0+bound {
		t.Errorf("heap grew by %.1f MB under the flood, %.1f MB without: more than %d MB apart",
			float64(peak)/(1<<20), float64(peak0)/(1<<20), bound>>20)
	}
}
