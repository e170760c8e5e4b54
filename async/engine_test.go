package async_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/consim/consim/async"
	"github.com/consim/consim/consensus"
	"github.com/consim/consim/consensus/dgd"
	"github.com/consim/consim/consensus/lockstep"
	"github.com/consim/consim/consensus/radmm"
	"github.com/consim/consim/graph"
	"github.com/consim/consim/objective"
	"github.com/consim/consim/problems/regression"
)

func ring(t testing.TB, n int, p float64) *graph.Graph {
	t.Helper()
	g, err := graph.Ring(n)
	if err != nil {
		t.Fatal(err)
	}
	if g, err = g.WithUniformP(p); err != nil {
		t.Fatal(err)
	}
	return g
}

func options(g *graph.Graph, clock, latency async.Dist, seed uint64) async.Options {
	return async.Options{
		Clock: async.Clock{Dist: clock, Seed: seed},
		Link:  async.Link{Graph: g, Process: graph.Bernoulli{G: g, Seed: seed}, Slot: 1, Latency: latency, Seed: seed},
	}
}

// script is an agent whose calls are given by functions, for the
// engine's own tests.
type script struct {
	id      int
	start   consensus.AsyncOut
	tick    func(now float64) (consensus.AsyncOut, error)
	message func(now float64, m consensus.AsyncMsg) (consensus.AsyncOut, error)
	lost    func(now float64, m consensus.AsyncMsg) (consensus.AsyncOut, error)
}

func (s *script) ID() int                   { return s.id }
func (s *script) Start() consensus.AsyncOut { return s.start }
func (s *script) Report() consensus.Report  { return consensus.Report{ID: s.id, X: []float64{0}} }
func (s *script) OnTick(now float64) (consensus.AsyncOut, error) {
	if s.tick == nil {
		return consensus.AsyncOut{}, nil
	}
	return s.tick(now)
}
func (s *script) OnMessage(now float64, m consensus.AsyncMsg) (consensus.AsyncOut, error) {
	if s.message == nil {
		return consensus.AsyncOut{}, nil
	}
	return s.message(now, m)
}
func (s *script) OnLost(now float64, m consensus.AsyncMsg) (consensus.AsyncOut, error) {
	if s.lost == nil {
		return consensus.AsyncOut{}, nil
	}
	return s.lost(now, m)
}

// TestEventOrderAndTimes: a fixed clock of 1 and a fixed latency of 0.25
// put every event at a known time; ties at equal times go to deliveries
// first, by sender, then ticks by agent; the stamps carry the send time
// and the sender's update count (with the sending call's update); the
// records say what happened.
func TestEventOrderAndTimes(t *testing.T) {
	g := ring(t, 3, 1)
	var recs []async.Record
	var got []consensus.AsyncMsg
	agents := make([]consensus.AsyncAgent, 3)
	for i := range agents {
		s := &script{id: i, start: consensus.AsyncOut{Arm: true}}
		s.tick = func(now float64) (consensus.AsyncOut, error) {
			return consensus.AsyncOut{Arm: now < 2, Updated: true,
				Msgs: []consensus.AsyncMsg{{From: i, To: (i + 1) % 3, Kind: 7, Tag: int64(10 * i), Data: []float64{now}}}}, nil
		}
		s.message = func(now float64, m consensus.AsyncMsg) (consensus.AsyncOut, error) {
			m.Data = append([]float64(nil), m.Data...)
			got = append(got, m)
			return consensus.AsyncOut{Used: []consensus.AsyncUse{consensus.UseOf(m)}}, nil
		}
		agents[i] = s
	}
	opts := options(g, async.Dist{Kind: async.DistFixed, Mean: 1}, async.Dist{Kind: async.DistFixed, Mean: 0.25}, 1)
	opts.Observe = func(r async.Record) { recs = append(recs, r) }
	eng, err := async.New(agents, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := eng.Run(10); !errors.Is(err, async.ErrIdle) {
		t.Fatalf("run: %v, want ErrIdle once the clocks stop", err)
	}
	// Ticks at 1 and 2 (agents 0, 1, 2 each), deliveries at 1.25 and 2.25.
	var order []string
	for _, r := range recs {
		order = append(order, r.Event.String()+string(rune('0'+r.Agent)))
		if r.Event == async.EventTick && (r.Time != 1 && r.Time != 2 || r.Sent != 1 || !r.Updated) {
			t.Errorf("tick record %+v", r)
		}
		if r.Event == async.EventDeliver && (r.Time != 1.25 && r.Time != 2.25 || r.Peer != (r.Agent+2)%3 || r.Kind != 7 || r.Used != 1) {
			t.Errorf("delivery record %+v", r)
		}
	}
	want := "tick0 tick1 tick2 deliver1 deliver2 deliver0 tick0 tick1 tick2 deliver1 deliver2 deliver0"
	if strings.Join(order, " ") != want {
		t.Errorf("events %v, want %s", order, want)
	}
	for _, m := range got {
		if m.Sent != m.Data[0] || m.Version != int64(m.Sent) || m.Tag != int64(10*m.From) {
			t.Errorf("message %+v: stamps do not match its send", m)
		}
	}
	c := eng.Counters()
	if c.Ticks != 6 || c.Delivered != 6 || c.Sent != 6 || c.Updates != 6 || c.Lost != 0 || c.Values != 6 {
		t.Errorf("counters %+v", c)
	}
	// Each message is used 0.25 after its send, before its sender's next
	// update.
	if s := eng.Staleness(); s.Count != 6 || s.Time.Max != 0.25 || s.Time.P50 != 0.25 || s.Updates.Max != 0 {
		t.Errorf("staleness %+v: ages are 0.25 in time and 0 in updates", s)
	}
}

// TestLinkDraws: under the Bernoulli process a message finds its link
// with probability p, independently of the others, and a lost message
// comes back to its sender after its latency.
func TestLinkDraws(t *testing.T) {
	const p = 0.3
	g := ring(t, 2, p)
	sent, lost := 0, 0
	var backLate float64
	a := &script{id: 0, start: consensus.AsyncOut{Arm: true}}
	a.tick = func(now float64) (consensus.AsyncOut, error) {
		sent++
		return consensus.AsyncOut{Arm: true, Msgs: []consensus.AsyncMsg{{From: 0, To: 1}}}, nil
	}
	a.lost = func(now float64, m consensus.AsyncMsg) (consensus.AsyncOut, error) {
		lost++
		backLate = math.Max(backLate, now-m.Sent)
		return consensus.AsyncOut{}, nil
	}
	eng, err := async.New([]consensus.AsyncAgent{a, &script{id: 1}},
		options(g, async.Dist{Kind: async.DistExponential, Mean: 0.01}, async.Dist{Kind: async.DistUniform, Min: 0.1, Max: 0.2}, 4))
	if err != nil {
		t.Fatal(err)
	}
	if err := eng.Run(400); err != nil {
		t.Fatal(err)
	}
	frac := float64(sent-lost) / float64(sent)
	se := math.Sqrt(p * (1 - p) / float64(sent))
	if math.Abs(frac-p) > 4*se || backLate > 0.2 || backLate < 0.1 {
		t.Errorf("%d of %d delivered (%.4f, want %v +- %.4f), lost ones back after up to %v", sent-lost, sent, frac, p, 4*se, backLate)
	}
	t.Logf("%d messages, %.4f delivered (p = %v)", sent, frac, p)
}

// TestAgentErrors: the engine names the agent and the fault of a bad
// output instead of running on.
func TestAgentErrors(t *testing.T) {
	g := ring(t, 3, 1)
	opts := options(g, async.Dist{Kind: async.DistFixed, Mean: 1}, async.Dist{Kind: async.DistNone}, 1)
	for name, out := range map[string]consensus.AsyncOut{
		"arm twice":         {Arm: true},
		"not a neighbour":   {Msgs: []consensus.AsyncMsg{{From: 0, To: 5}}},
		"forged sender":     {Msgs: []consensus.AsyncMsg{{From: 1, To: 2}}},
		"kind out of range": {Msgs: []consensus.AsyncMsg{{From: 0, To: 1, Kind: 300}}},
	} {
		a := &script{id: 0, start: consensus.AsyncOut{Arm: true}, tick: func(float64) (consensus.AsyncOut, error) {
			o := out
			o.Arm = true // an armed clock arming again is an error only for "arm twice"
			if name != "arm twice" {
				o.Arm = false
			}
			return o, nil
		}}
		if name == "arm twice" {
			a.start = consensus.AsyncOut{Arm: true}
			a.tick = nil
			a.message = nil
			// Arm from a message while armed.
			a2 := &script{id: 1, start: consensus.AsyncOut{Msgs: []consensus.AsyncMsg{{From: 1, To: 0}}}}
			a.message = func(float64, consensus.AsyncMsg) (consensus.AsyncOut, error) {
				return consensus.AsyncOut{Arm: true}, nil
			}
			eng, err := async.New([]consensus.AsyncAgent{a, a2, &script{id: 2}}, opts)
			if err != nil {
				t.Fatal(err)
			}
			if err := eng.Run(10); err == nil || !strings.Contains(err.Error(), "armed its clock") {
				t.Errorf("%s: %v", name, err)
			}
			continue
		}
		eng, err := async.New([]consensus.AsyncAgent{a, &script{id: 1}, &script{id: 2}}, opts)
		if err != nil {
			t.Fatal(err)
		}
		if err := eng.Run(10); err == nil || !strings.Contains(err.Error(), "agent 0") {
			t.Errorf("%s: %v", name, err)
		}
	}
	bad := options(g, async.Dist{Kind: async.DistFixed}, async.Dist{Kind: async.DistNone}, 1)
	if _, err := async.New([]consensus.AsyncAgent{&script{id: 0}, &script{id: 1}, &script{id: 2}}, bad); err == nil {
		t.Error("a clock of mean 0: no error")
	}
}

// TestSynchronousEqualsLockstep: round-based agents on the event engine
// through async.Synchronous, with stragglers and random latencies, take
// the same steps as under the lockstep driver, bit for bit: DGD (one
// phase) and the randomized ADMM (two phases), with dropout of the
// graph's own edge draws.
func TestSynchronousEqualsLockstep(t *testing.T) {
	g := ring(t, 8, 0.7)
	prob, err := regression.New(regression.Params{
		Kind: objective.KindLeastSquares, Dim: 3, SamplesPerAgent: 20, Batch: 4,
		Noise: 0.1, Reg: 0.01, Heterogeneity: 0.5, Box: regression.Unbounded,
	}, g.N, 2)
	if err != nil {
		t.Fatal(err)
	}
	proc := graph.Bernoulli{G: g, Seed: 3}
	build := map[string]func(i int) (consensus.Agent, error){
		"dgd": func(i int) (consensus.Agent, error) {
			p := dgd.DefaultParams()
			p.Step, p.Seed = 0.05, 9
			return dgd.NewAgent(p, i, g, proc, prob.Locals[i], []float64{float64(i), 1, -1})
		},
		"radmm": func(i int) (consensus.Agent, error) {
			return radmm.NewAgent(radmm.Config{Method: radmm.MethodExact, Rho: 0.5}, i, g, proc, prob.Locals[i], []float64{float64(i), 1, -1})
		},
	}
	for name, mk := range build {
		t.Run(name, func(t *testing.T) {
			sync, ref := make([]*async.Synchronous, g.N), make([]consensus.Agent, g.N)
			for i := range g.N {
				a, err := mk(i)
				if err != nil {
					t.Fatal(err)
				}
				b, err := mk(i)
				if err != nil {
					t.Fatal(err)
				}
				sync[i], ref[i] = async.NewSynchronous(a), b
			}
			as := make([]consensus.AsyncAgent, g.N)
			for i, a := range sync {
				as[i] = a
			}
			// Every update ends a round: keep x_i after round r of agent i.
			snaps := make([][][]float64, g.N)
			opts := options(g, async.Dist{Kind: async.DistExponential, Mean: 1}, async.Dist{Kind: async.DistExponential, Mean: 0.3}, 5)
			opts.Clock.Stragglers, opts.Clock.Slowdown = []int{2}, 10
			opts.Observe = func(r async.Record) {
				if r.Updated {
					if sync[r.Agent].InRound() {
						t.Errorf("agent %d updated in the middle of a round", r.Agent)
					}
					snaps[r.Agent] = append(snaps[r.Agent], sync[r.Agent].Report().X)
				}
			}
			eng, err := async.New(as, opts)
			if err != nil {
				t.Fatal(err)
			}
			if err := eng.Run(300); err != nil {
				t.Fatal(err)
			}
			rounds := len(snaps[0])
			for i := range snaps {
				rounds = min(rounds, len(snaps[i]))
			}
			if rounds < 20 {
				t.Fatalf("only %d rounds in 300 time units", rounds)
			}
			d, err := lockstep.New(ref)
			if err != nil {
				t.Fatal(err)
			}
			compared := 0
			for r := range rounds {
				if err := d.Round(r); err != nil {
					t.Fatal(err)
				}
				for i := range g.N {
					x, want := snaps[i][r], ref[i].Report().X
					for l := range x {
						if math.Float64bits(x[l]) != math.Float64bits(want[l]) {
							t.Fatalf("agent %d after round %d: x = %v, lockstep %v", i, r, x, want)
						}
					}
					compared++
				}
			}
			t.Logf("%d rounds in 300 time units with a 10x straggler: %d iterates equal bit for bit", rounds, compared)
		})
	}
}
