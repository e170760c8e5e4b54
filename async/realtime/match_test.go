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
	"github.com/consim/consim/observe"
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
// (seed 10, not among them) over tr. At every sample time the real-time
// run's log10 consensus error must lie within the simulated runs' 99%
// prediction interval for one more run, mean -+ t_{0.995, 9}
// sqrt(1 + 1/10) sd = mean -+ 3.41 sd of their log10 errors, widened by
// tol decades; the log also gives the excursion outside their range
// [min, max]. A real-time run whose timers were late by more than
// maxLate simulated units on average did not keep the time scale: it is
// void, logged and run again, up to 3 times; the first that kept it must
// match, and if none did the test is skipped (the machine is too loaded
// to tell).
func checkMatch(t *testing.T, c matchCase, tr func() node.Transport, scale time.Duration, tol float64) {
	const maxLate = 0.05
	const seeds = 10
	const band = 3.250 * 1.0488 // t_{0.995, 9} sqrt(1 + 1/10)
	g := c.graph(t)
	var curves [][]float64
	for s := range seeds {
		curves = append(curves, c.simulated(t, g, uint64(s)))
	}
	n := len(curves[0])
	lo, hi, plo, phi := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	for k := range n {
		col := make([]float64, seeds)
		for s := range seeds {
			col[s] = curves[s][k]
		}
		st := observe.Summarize(col)
		lo[k], hi[k] = st.Min, st.Max
		plo[k], phi[k] = st.Mean-band*st.Std, st.Mean+band*st.Std
	}
	for attempt := 1; ; attempt++ {
		live, res := c.realtime(t, g, seeds, tr(), scale)
		if len(live) != n {
			t.Fatalf("%d real-time samples, %d simulated", len(live), n)
		}
		var outRange, outBand float64
		var b []byte
		for k, v := range live {
			outRange = math.Max(outRange, math.Max(lo[k]-v, v-hi[k]))
			outBand = math.Max(outBand, math.Max(plo[k]-v, v-phi[k]))
			b = fmt.Appendf(b, "\n  t=%5.1f  simulated range [%7.3f, %7.3f], 99%% prediction [%7.3f, %7.3f]  real time %7.3f", float64(k)*c.every, lo[k], hi[k], plo[k], phi[k], v)
		}
		t.Logf("attempt %d: %d agents, scale %v: largest excursion outside the 99%% prediction interval %.3f decades (tolerance %v), outside the range %.3f; %d messages, %d lost, %d malformed; timers late by %.4f units on average, %.3f at most%s",
			attempt, c.n, scale, math.Max(outBand, 0), tol, math.Max(outRange, 0), res.Sent, res.Lost, res.Malformed, res.MeanLate, res.Late, b)
		if res.MeanLate > maxLate {
			if attempt < 3 {
				t.Logf("attempt %d is void: the timers were late by %.4f units on average (more than %v); running again", attempt, res.MeanLate, maxLate)
				continue
			}
			t.Skipf("the machine did not keep %v per unit in 3 attempts (timers late by %.4f units on average): no comparison", scale, res.MeanLate)
		}
		if outBand > tol {
			t.Errorf("real-time curve leaves the simulated 99%% prediction interval by %.3f decades > %v", outBand, tol)
		}
		return
	}
}

// TestRealtimeMatchesSimulated is the must-show comparison: randomized
// pairwise gossip of 256 agents in real time on NATS (in-process, and
// over TCP) and on the channel transport, at 50 ms of wall time per
// simulated unit, against 10 seeds of the event engine: the real-time
// curve of log10 of the consensus error must stay within the simulated
// runs' 99% prediction interval widened by 0.05 decades at every sample
// (see checkMatch). It depends on the machine keeping the time scale, so
// it runs with CONSIM_LONG=1 only.
func TestRealtimeMatchesSimulated(t *testing.T) {
	if os.Getenv("CONSIM_LONG") != "1" {
		t.Skip("long: set CONSIM_LONG=1")
	}
	c := matchCase{n: 256, p: 0.9, latency: 0.1, horizon: 30, every: 2}
	for _, name := range []string{"nats", "nats-tcp", "chan"} {
		t.Run(name, func(t *testing.T) {
			attempt := 0
			connect := func() node.Transport {
				attempt++
				var tr node.Transport
				var err error
				if name == "chan" {
					tr, err = node.NewChanTransport(c.n)
				} else {
					tr, err = node.NewNATSTransport(node.NATSOptions{RunID: fmt.Sprintf("match-%s-%d", name, attempt), InProcess: name == "nats"})
				}
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { tr.Close() })
				return tr
			}
			checkMatch(t, c, connect, 50*time.Millisecond, 0.05)
		})
	}
}
