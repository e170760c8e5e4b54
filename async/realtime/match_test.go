package realtime

import (
	"context"
	"fmt"
	"math"
	"os"
	"testing"
	"time"

	"github.com/consim/consim/async"
	"github.com/consim/consim/consensus"
	"github.com/consim/consim/consensus/pairwise"
	"github.com/consim/consim/graph"
	"github.com/consim/consim/node"
)

// matchCase is the run the real-time driver is compared on: randomized
// pairwise gossip on an Erdos-Renyi graph, unit Poisson clocks, links
// present with probability p, fixed latency.
type matchCase struct {
	n       int
	p       float64
	latency float64
	horizon float64
	every   float64
}

func (c matchCase) graph(t testing.TB) *graph.Graph {
	t.Helper()
	g, err := graph.ErdosRenyi(c.n, 8/float64(c.n-1), 1)
	if err != nil {
		t.Fatal(err)
	}
	if g, err = g.WithUniformP(c.p); err != nil {
		t.Fatal(err)
	}
	return g
}

func (c matchCase) models(g *graph.Graph, seed uint64) (async.Clock, async.Link) {
	return async.Clock{Dist: async.Dist{Kind: async.DistExponential, Mean: 1}, Seed: seed},
		async.Link{Graph: g, Process: graph.Bernoulli{G: g, Seed: seed}, Slot: 1, Latency: async.Dist{Kind: async.DistFixed, Mean: c.latency}, Seed: seed}
}

// agents returns the gossip agents of seed, all from the same initial
// points (x_i uniform in [-1, 1]^2 from a fixed stream).
func (c matchCase) agents(t testing.TB, g *graph.Graph, seed uint64) []consensus.AsyncAgent {
	t.Helper()
	as := make([]consensus.AsyncAgent, g.N)
	for i := range as {
		rng := graph.StreamInit.Rand(99, 0, uint64(i))
		a, err := pairwise.NewAgent(i, g, seed, []float64{2*rng.Float64() - 1, 2*rng.Float64() - 1})
		if err != nil {
			t.Fatal(err)
		}
		as[i] = a
	}
	return as
}

// consensusErr is (1/N) sum_i ||x_i - xbar||^2 of reports.
func consensusErr(reps []consensus.Report) float64 {
	n := len(reps[0].X)
	mean := make([]float64, n)
	for _, r := range reps {
		for l, v := range r.X {
			mean[l] += v / float64(len(reps))
		}
	}
	var s float64
	for _, r := range reps {
		for l, v := range r.X {
			s += (v - mean[l]) * (v - mean[l])
		}
	}
	return s / float64(len(reps))
}

// simulated returns log10 of the consensus error at every sample time of
// the event engine's run of seed.
func (c matchCase) simulated(t testing.TB, g *graph.Graph, seed uint64) []float64 {
	t.Helper()
	clock, link := c.models(g, seed)
	eng, err := async.New(c.agents(t, g, seed), async.Options{Clock: clock, Link: link})
	if err != nil {
		t.Fatal(err)
	}
	var curve []float64
	reps := make([]consensus.Report, g.N)
	for m := 0; float64(m)*c.every <= c.horizon; m++ {
		if err := eng.Run(float64(m) * c.every); err != nil {
			t.Fatal(err)
		}
		for i := range reps {
			reps[i] = eng.Report(i)
		}
		curve = append(curve, math.Log10(consensusErr(reps)))
	}
	return curve
}

// realtime returns log10 of the consensus error at every sample time of
// a real-time run of seed over tr, and its result.
func (c matchCase) realtime(t testing.TB, g *graph.Graph, seed uint64, tr node.Transport, scale time.Duration) ([]float64, Result) {
	return c.realtimeAgents(t, g, seed, tr, scale, c.agents(t, g, seed))
}

func (c matchCase) realtimeAgents(t testing.TB, g *graph.Graph, seed uint64, tr node.Transport, scale time.Duration, agents []consensus.AsyncAgent) ([]float64, Result) {
	t.Helper()
	clock, link := c.models(g, seed)
	var curve []float64
	ctx, cancel := context.WithTimeout(context.Background(), time.Duration(3*c.horizon)*scale+time.Minute)
	defer cancel()
	res, err := Run(ctx, agents, tr, Config{Clock: clock, Link: link, Scale: scale, Horizon: c.horizon, Every: c.every,
		Observe: func(reps []consensus.Report, _ async.Sample) error {
			curve = append(curve, math.Log10(consensusErr(reps)))
			return nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	return curve, res
}

// checkMatch runs 10 seeds on the event engine and one real-time run
// (seed 10, not among them) over tr, and checks that at every sample
// time the real-time run's log10 consensus error lies within the
// simulated runs' range [min, max], widened by tol decades.
func checkMatch(t *testing.T, c matchCase, tr node.Transport, scale time.Duration, tol float64) {
	g := c.graph(t)
	const seeds = 10
	var lo, hi []float64
	for s := range seeds {
		curve := c.simulated(t, g, uint64(s))
		if lo == nil {
			lo, hi = append([]float64(nil), curve...), append([]float64(nil), curve...)
		}
		for k, v := range curve {
			lo[k], hi[k] = math.Min(lo[k], v), math.Max(hi[k], v)
		}
	}
	live, res := c.realtime(t, g, seeds, tr, scale)
	if len(live) != len(lo) {
		t.Fatalf("%d real-time samples, %d simulated", len(live), len(lo))
	}
	var worst float64
	var b []byte
	for k, v := range live {
		out := math.Max(lo[k]-v, v-hi[k])
		worst = math.Max(worst, out)
		b = fmt.Appendf(b, "\n  t=%5.1f  simulated [%7.3f, %7.3f]  real time %7.3f", float64(k)*c.every, lo[k], hi[k], v)
		if out > tol {
			t.Errorf("t = %v: real-time log10 consensus error %.3f outside the simulated range [%.3f, %.3f] widened by %v", float64(k)*c.every, v, lo[k], hi[k], tol)
		}
	}
	t.Logf("%d agents, scale %v: largest excursion outside the simulated range %.3f decades (tolerance %v); %d messages, %d lost, %d malformed, timers late by up to %.3f units%s",
		c.n, scale, math.Max(worst, 0), tol, res.Sent, res.Lost, res.Malformed, res.Late, b)
}

// TestRealtimeMatchesSimulated is the must-show comparison: randomized
// pairwise gossip of 256 agents in real time on NATS (in-process, and
// over TCP), and of 64 agents on the channel transport, at 50 ms of wall
// time per simulated unit, against 10 seeds of the event engine; the
// real-time curve of log10 of the consensus error must stay within the
// simulated runs' range widened by 0.1 decades (a factor 1.26) at every
// sample. It depends on the machine keeping the time scale (the log
// reports how late the timers were), so it runs with CONSIM_LONG=1 only.
func TestRealtimeMatchesSimulated(t *testing.T) {
	if os.Getenv("CONSIM_LONG") != "1" {
		t.Skip("long: set CONSIM_LONG=1")
	}
	t.Run("chan", func(t *testing.T) {
		c := matchCase{n: 64, p: 0.9, latency: 0.1, horizon: 20, every: 2}
		tr, err := node.NewChanTransport(c.n)
		if err != nil {
			t.Fatal(err)
		}
		defer tr.Close()
		checkMatch(t, c, tr, 50*time.Millisecond, 0.1)
	})
	c := matchCase{n: 256, p: 0.9, latency: 0.1, horizon: 30, every: 2}
	for _, inProcess := range []bool{true, false} {
		name := "nats"
		if !inProcess {
			name = "nats-tcp"
		}
		t.Run(name, func(t *testing.T) {
			tr, err := node.NewNATSTransport(node.NATSOptions{RunID: "match-" + name, InProcess: inProcess})
			if err != nil {
				t.Fatal(err)
			}
			defer tr.Close()
			checkMatch(t, c, tr, 50*time.Millisecond, 0.1)
		})
	}
}
