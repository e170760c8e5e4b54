package realtime

import (
	"context"
	"math"
	"sync/atomic"
	"testing"
	"time"

	"github.com/consim/consim/async"
	"github.com/consim/consim/consensus"
	"github.com/consim/consim/node"
)

// runFunctional runs 16 gossip agents for 20 units at 10 ms per unit over
// tr and checks what does not depend on the machine's speed: every
// sample arrives in order, messages are delivered and none is
// malformed, every agent updates, the consensus error falls, and the
// staleness columns are filled.
func runFunctional(t *testing.T, tr node.Transport) {
	c := matchCase{n: 16, p: 0.8, latency: 0.05, horizon: 20, every: 2}
	g := c.graph(t)
	clock, link := c.models(g, 3)
	var times []float64
	var errs []float64
	var stale int64
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	agents := c.agents(t, g, 3)
	res, err := Run(ctx, agents, tr, Config{Clock: clock, Link: link, Scale: 10 * time.Millisecond, Horizon: c.horizon, Every: c.every,
		Observe: func(reps []consensus.Report, s async.Sample) error {
			times = append(times, s.Time)
			errs = append(errs, consensusErr(reps))
			stale += s.Staleness.Count
			if s.Staleness.Count > 0 && !(s.Staleness.Time.Max >= s.Staleness.Time.P50 && s.Staleness.Time.P50 >= 0) {
				t.Errorf("t = %v: staleness %+v", s.Time, s.Staleness)
			}
			return nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	for k, tm := range times {
		if tm != float64(k)*c.every {
			t.Fatalf("samples at %v, want every %v", times, c.every)
		}
	}
	if len(times) != 11 || res.Samples != 11 {
		t.Errorf("%d samples, want 11", len(times))
	}
	if res.Malformed != 0 || res.Delivered == 0 || res.Delivered+res.Lost > res.Sent || res.Lost == 0 {
		t.Errorf("result %+v", res)
	}
	for i, a := range agents {
		if a.Report().Round == 0 {
			t.Errorf("agent %d made no update", i)
		}
	}
	if !(errs[len(errs)-1] < errs[0]) || stale == 0 {
		t.Errorf("consensus error %v -> %v, %d values used", errs[0], errs[len(errs)-1], stale)
	}
	t.Logf("%+v; consensus error %.3g -> %.3g", res, errs[0], errs[len(errs)-1])
}

func TestRunChan(t *testing.T) {
	tr, err := node.NewChanTransport(16)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	runFunctional(t, tr)
}

func TestRunNATS(t *testing.T) {
	tr, err := node.NewNATSTransport(node.NATSOptions{RunID: "rt-nats", InProcess: true})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	runFunctional(t, tr)
}

// TestFrames: a message survives encoding; frames that are not a message
// for the agent are counted malformed and dropped.
func TestFrames(t *testing.T) {
	m := consensus.AsyncMsg{From: 3, To: 1, Kind: 2, Tag: 1 << 40, Sent: 12.5, Version: 77, Data: []float64{1, math.Inf(-1), 3}}
	frame, err := encode(m)
	if err != nil {
		t.Fatal(err)
	}
	c := matchCase{n: 16, p: 1, latency: 0, horizon: 1, every: 1}
	g := c.graph(t)
	clock, link := c.models(g, 1)
	if err := clock.Validate(g.N); err != nil {
		t.Fatal(err)
	}
	got := &recorder{id: 1}
	a := &agent{r: &run{n: g.N, start: time.Now(), cfg: Config{Scale: time.Second}, updates: make([]atomic.Int64, g.N)}, id: 1, port: async.NewPort(got, g.N, &clock, &link)}
	if err := a.receive(frame); err != nil {
		t.Fatal(err)
	}
	if len(got.msgs) != 1 {
		t.Fatalf("%d messages delivered", len(got.msgs))
	}
	r := got.msgs[0]
	if r.From != m.From || r.To != m.To || r.Kind != m.Kind || r.Tag != m.Tag || r.Sent != m.Sent || r.Version != m.Version || len(r.Data) != 3 || r.Data[1] != m.Data[1] {
		t.Errorf("decoded %+v, sent %+v", r, m)
	}
	other, err := encode(consensus.AsyncMsg{From: 3, To: 2, Data: []float64{1}})
	if err != nil {
		t.Fatal(err)
	}
	leave, err := node.AppendFrame(nil, node.FrameLeave, 3, 0, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	short, err := node.AppendFrameTo(nil, node.FrameData, 3, []int{1}, 0, 0, []float64{1})
	if err != nil {
		t.Fatal(err)
	}
	for name, f := range map[string][]byte{"truncated": frame[:len(frame)-1], "for another agent": other, "leave": leave, "no stamps": short, "empty": nil} {
		before := a.malformed
		if err := a.receive(f); err != nil || a.malformed != before+1 {
			t.Errorf("%s: error %v, malformed %d -> %d", name, err, before, a.malformed)
		}
	}
	if len(got.msgs) != 1 {
		t.Errorf("%d messages delivered after the bad frames", len(got.msgs))
	}
}

// recorder is an agent that keeps what it is sent.
type recorder struct {
	id   int
	msgs []consensus.AsyncMsg
}

func (r *recorder) ID() int                                    { return r.id }
func (r *recorder) Start() consensus.AsyncOut                  { return consensus.AsyncOut{} }
func (r *recorder) Report() consensus.Report                   { return consensus.Report{ID: r.id} }
func (r *recorder) OnTick(float64) (consensus.AsyncOut, error) { return consensus.AsyncOut{}, nil }
func (r *recorder) OnLost(float64, consensus.AsyncMsg) (consensus.AsyncOut, error) {
	return consensus.AsyncOut{}, nil
}
func (r *recorder) OnMessage(_ float64, m consensus.AsyncMsg) (consensus.AsyncOut, error) {
	m.Data = append([]float64(nil), m.Data...)
	r.msgs = append(r.msgs, m)
	return consensus.AsyncOut{}, nil
}
