package node

import (
	"math"
	"slices"
	"testing"
	"time"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/consensus/alm"
	"github.com/consim/consim/graph"
	"github.com/consim/consim/objective"
	measures "github.com/consim/consim/observe"
)

// complete returns the complete graph on n agents.
func complete(t testing.TB, n int) *graph.Graph {
	t.Helper()
	g, err := graph.Complete(n)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestLossRate: every directed data frame of a complete graph is lost with
// probability 0.2. The injected count is within 4 standard deviations of
// 0.2 of the frames, and every injected loss is a dropout at the receiver
// of that direction. Restricted to the directed edge (0, 1), only that
// direction loses frames.
func TestLossRate(t *testing.T) {
	const n, rounds = 5, 150
	tests := []struct {
		name  string
		loss  Loss
		lossy func(i, j int) bool
	}{
		{"every direction", Loss{Rate: 0.2}, func(int, int) bool { return true }},
		{"edge 0 to 1 only", Loss{Rate: 0.2, Edges: [][2]int{{0, 1}}}, func(i, j int) bool { return i == 0 && j == 1 }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := complete(t, n)
			opts := Options{Rounds: rounds, PhaseDeadline: 20 * time.Millisecond, Faults: Faults{Seed: 7, Loss: tc.loss}}
			res, err := runObserved(t, newTestTransport(t, TransportChan, n), nullAgents(t, g, 2), opts, nil)
			if err != nil {
				t.Fatal(err)
			}
			var lost, frames int64
			for i, s := range res.terminal {
				if s.Kind != StatusFinal {
					t.Fatalf("agent %d: %s", i, s.Kind)
				}
				var sum int64
				for j := range n {
					got := s.Traffic.InjectedLossByPeer[j]
					sum += got
					if j == i {
						continue
					}
					if !tc.lossy(i, j) && got != 0 {
						t.Errorf("%d frames from %d to %d lost, want none", got, i, j)
					}
					if tc.lossy(i, j) {
						frames += rounds
					}
					if d := res.terminal[j].Traffic.DropoutsByPeer[i]; d < got {
						t.Errorf("agent %d counts %d dropouts from %d, fewer than the %d frames lost", j, d, i, got)
					}
				}
				if sum != s.Traffic.InjectedLoss {
					t.Errorf("agent %d: InjectedLoss %d, sum by peer %d", i, s.Traffic.InjectedLoss, sum)
				}
				lost += sum
			}
			mean, sd := 0.2*float64(frames), math.Sqrt(0.2*0.8*float64(frames))
			if math.Abs(float64(lost)-mean) > 4*sd {
				t.Errorf("%d of %d frames lost, want %.0f +- %.0f", lost, frames, mean, 4*sd)
			}
		})
	}
}

// faultALMAgents builds the ALM agents of a ring with quadratic objectives
// f_i(x) = (1/2)||x - c_i||^2, reporting their dual replicas.
func faultALMAgents(t testing.TB, g *graph.Graph, rounds int) ([]consensus.Agent, func(int) (consensus.Agent, error)) {
	t.Helper()
	const d = 3
	cfg := alm.Config{
		Steps:       alm.Steps{Eta: 0.5, Tau: 0.2, Rho: 0.5, Mu: 0.1, Beta: 0.1, My: math.Inf(1)},
		Safeguard:   alm.SafeguardNone,
		Seed:        3,
		Rounds:      rounds,
		ReportDuals: true,
	}
	proc := graph.Bernoulli{G: g, Seed: 3}
	build := func(i int) (consensus.Agent, error) {
		c := startValues(i, d)
		return alm.NewAgent(cfg, i, g, proc, objective.Quadratic(d, nil, c), objective.Box{Lo: -10, Hi: 10}, make([]float64, d))
	}
	agents := make([]consensus.Agent, g.N)
	for i := range agents {
		a, err := build(i)
		if err != nil {
			t.Fatal(err)
		}
		agents[i] = a
	}
	return agents, build
}

// finalReports returns the reports of the final statuses, by agent.
func finalReports(t testing.TB, res observed) []consensus.Report {
	t.Helper()
	reps := make([]consensus.Report, len(res.terminal))
	for i, s := range res.terminal {
		if s.Kind != StatusFinal {
			t.Fatalf("agent %d ended %s: %s", i, s.Kind, s.Err)
		}
		reps[i] = s.Report
	}
	return reps
}

// TestLossDualDrift: the ALM's edge dual has one writer (the lower
// endpoint), so no loss pattern forks it: the reader's copy is the
// owner's value or an older version of it, and the drift between equal
// versions is exactly 0 with no loss, with loss of both directions
// together, and with loss of one direction (which delays the reader's
// copy instead). The graph is a single edge: with more agents, an agent
// that waits out a deadline for a lost frame is late for its other
// neighbours, whose own deadlines may then drop its next frame on one
// side only (a real dropout).
func TestLossDualDrift(t *testing.T) {
	const n, rounds = 2, 60
	tests := []struct {
		name     string
		loss     Loss
		oneSided bool
	}{
		{"no loss", Loss{}, false},
		{"symmetric", Loss{Rate: 0.3, Symmetric: true}, false},
		{"one direction", Loss{Rate: 0.3, Edges: [][2]int{{0, 1}}}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := complete(t, n)
			agents, _ := faultALMAgents(t, g, rounds)
			opts := Options{Rounds: rounds, PhaseDeadline: 100 * time.Millisecond, Faults: Faults{Seed: 11, Loss: tc.loss}}
			res, err := runObserved(t, newTestTransport(t, TransportChan, n), agents, opts, nil)
			if err != nil {
				t.Fatal(err)
			}
			var lost, dropouts, late int64
			for _, s := range res.terminal {
				lost += s.Traffic.InjectedLoss
				dropouts += s.Traffic.Dropouts
				late += s.Traffic.Late
			}
			if !tc.oneSided && dropouts > lost && late > 0 {
				// A frame that was not lost arrived after its 100 ms
				// deadline: a loaded machine, not the runtime, made that
				// dropout, and the run says nothing about forks.
				t.Skipf("%d frames arrived after their deadline (a loaded machine): %d dropouts for %d lost frames", late, dropouts, lost)
			}
			if tc.loss.Rate > 0 && lost == 0 {
				t.Fatal("no frame lost: the test exercises nothing")
			}
			// Without one-sided loss both agents wait out the same
			// deadlines, so nothing but the lost frames goes missing. With
			// it, the agent that got its frame moves on first and may give
			// up on the other's next frame: more dropouts, one-sided too.
			if !tc.oneSided && dropouts != lost {
				t.Fatalf("%d dropouts for %d lost frames: a frame missed its deadline", dropouts, lost)
			}
			d, ok := measures.DualDrift(finalReports(t, res))
			if !ok || d.Edges+d.Lagging != 1 {
				t.Fatalf("drift over %d edges, %d lagging (ok %v), want 1 edge", d.Edges, d.Lagging, ok)
			}
			if d.Sum != 0 {
				t.Errorf("drift %v (max %v) after %d lost frames, want 0", d.Sum, d.Max, lost)
			}
		})
	}
}

// TestDelayStaleness: every data frame is delayed by 8 ms against a 5 ms
// deadline, so few arrive in their own phase and most within two rounds. With staleness S = 2 the
// missing messages are replaced by the latest earlier ones (StaleUsed),
// which changes the iterates; without it they are dropouts.
func TestDelayStaleness(t *testing.T) {
	const n, rounds = 4, 12
	g := ring(t, n)
	delay := Dist{Kind: DistFixed, Mean: 8 * time.Millisecond}
	run := func(f Faults) []Status {
		res, err := runObserved(t, newTestTransport(t, TransportChan, n), nullAgents(t, g, 2),
			Options{Rounds: rounds, PhaseDeadline: 5 * time.Millisecond, Faults: f}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return res.terminal
	}
	clean := run(Faults{})
	stale := run(Faults{Delay: delay, Staleness: 2})
	dropped := run(Faults{Delay: delay})
	var used, drop, delayed int64
	for i := range n {
		used += stale[i].Traffic.StaleUsed
		drop += dropped[i].Traffic.Dropouts
		delayed += dropped[i].Traffic.Delayed
		if dropped[i].Traffic.StaleUsed != 0 {
			t.Errorf("agent %d used %d stale messages without staleness", i, dropped[i].Traffic.StaleUsed)
		}
		if stale[i].Traffic.Late == 0 {
			t.Errorf("agent %d: no late frame under a delay beyond the deadline", i)
		}
	}
	if want := int64(n * 2 * rounds); delayed != want {
		t.Errorf("%d frames delayed, want all %d", delayed, want)
	}
	if drop < int64(n*2*rounds)/2 {
		t.Errorf("%d dropouts without staleness, want most of the %d messages", drop, n*2*rounds)
	}
	if used == 0 {
		t.Error("no stale message used with staleness 2")
	}
	if slices.Equal(stale[0].Report.X, clean[0].Report.X) || slices.Equal(stale[0].Report.X, dropped[0].Report.X) {
		t.Errorf("agent 0 with stale messages ends at %v: the same as without delay %v or without staleness %v",
			stale[0].Report.X, clean[0].Report.X, dropped[0].Report.X)
	}
}

// TestCrash: agent 1 of a ring crashes at round 5. Without a restart it
// publishes a departed status and the others finish with dropouts from
// it; with a restart after 4 rounds (state kept or lost) it rejoins and
// finishes the run.
func TestCrash(t *testing.T) {
	const n, rounds, at = 4, 20, 5
	tests := []struct {
		name  string
		crash Crash
	}{
		{"for good", Crash{Agent: 1, At: at}},
		{"restart with state", Crash{Agent: 1, At: at, RestartAfter: 4}},
		{"restart without state", Crash{Agent: 1, At: at, RestartAfter: 4, LoseState: true}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := ring(t, n)
			agents, build := faultALMAgents(t, g, rounds)
			opts := Options{Rounds: rounds, PhaseDeadline: 30 * time.Millisecond,
				Faults: Faults{Crashes: []Crash{tc.crash}, Rebuild: build}}
			tr := newTestTransport(t, TransportChan, n)
			obs, err := tr.Observer()
			if err != nil {
				t.Fatal(err)
			}
			defer obs.Close()
			done := make(chan error, 1)
			go func() { done <- RunAll(t.Context(), agents, tr, opts) }()
			if err := StartWhenReady(t.Context(), obs, n); err != nil {
				t.Fatal(err)
			}
			end := make([]Status, n)
			for left := n; left > 0; {
				s, err := DecodeStatus(<-obs.Statuses())
				if err != nil {
					t.Fatal(err)
				}
				switch s.Kind {
				case StatusFinal, StatusFailed, StatusDeparted:
					end[s.ID] = s
					left--
				}
			}
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			for i, s := range end {
				want, round := StatusFinal, rounds
				if i == 1 && tc.crash.RestartAfter == 0 {
					want, round = StatusDeparted, at
				}
				if s.Kind != want || s.Report.Round != round {
					t.Errorf("agent %d: %s after round %d (%s), want %s after %d", i, s.Kind, s.Report.Round, s.Err, want, round)
				}
			}
			for _, peer := range []int{0, 2} {
				if end[peer].Traffic.DropoutsByPeer[1] == 0 {
					t.Errorf("agent %d saw no dropout from the crashed agent 1", peer)
				}
			}
			if tc.crash.RestartAfter > 0 && end[1].Traffic.DroppedWhileDown == 0 {
				t.Error("agent 1 discarded no frame while down")
			}
		})
	}
}

// TestCrashRestartNeedsRejoiner: a restart of an agent that cannot rejoin
// fails before the start.
func TestCrashRestartNeedsRejoiner(t *testing.T) {
	g := ring(t, 3)
	tr := newTestTransport(t, TransportChan, 3)
	ep, err := tr.Endpoint(0)
	if err != nil {
		t.Fatal(err)
	}
	err = Run(t.Context(), nullAgents(t, g, 1)[0], ep, Options{N: 3, Rounds: 5,
		Faults: Faults{Crashes: []Crash{{Agent: 0, At: 1, RestartAfter: 1}}}})
	if err == nil {
		t.Fatal("restart of a null agent: no error")
	}
}

// TestStragglers: agent 0 computes 25 ms per round against a 5 ms
// deadline, so its neighbours count dropouts from it; with no straggler
// nobody does.
func TestStragglers(t *testing.T) {
	const n, rounds = 4, 8
	g := ring(t, n)
	for _, slow := range []bool{false, true} {
		f := Faults{}
		if slow {
			f.Stragglers = Stragglers{Dist: Dist{Kind: DistUniform, Min: 25 * time.Millisecond, Max: 30 * time.Millisecond}, Agents: []int{0}}
		}
		res, err := runObserved(t, newTestTransport(t, TransportChan, n), nullAgents(t, g, 2),
			Options{Rounds: rounds, PhaseDeadline: 5 * time.Millisecond, Faults: f}, nil)
		if err != nil {
			t.Fatal(err)
		}
		got := res.terminal[1].Traffic.DropoutsByPeer[0] + res.terminal[3].Traffic.DropoutsByPeer[0]
		if slow && got == 0 {
			t.Error("straggler: its neighbours saw no dropout from it")
		}
		if !slow && got > rounds {
			t.Errorf("no straggler: %d dropouts from agent 0", got)
		}
	}
}

func TestFaultsValidate(t *testing.T) {
	tests := []struct {
		name string
		f    Faults
	}{
		{"rate above 1", Faults{Loss: Loss{Rate: 1.5}}},
		{"self edge", Faults{Loss: Loss{Rate: 0.1, Edges: [][2]int{{2, 2}}}}},
		{"unknown dist", Faults{Delay: Dist{Kind: "gamma"}}},
		{"uniform reversed", Faults{Delay: Dist{Kind: DistUniform, Min: 2, Max: 1}}},
		{"fixed without mean", Faults{Stragglers: Stragglers{Dist: Dist{Kind: DistFixed}}}},
		{"negative staleness", Faults{Staleness: -1}},
		{"crash beyond rounds", Faults{Crashes: []Crash{{Agent: 0, At: 10}}}},
		{"lost state without rebuild", Faults{Crashes: []Crash{{Agent: 0, At: 1, RestartAfter: 2, LoseState: true}}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := (Options{N: 3, Rounds: 10, Faults: tc.f}).resolve(); err == nil {
				t.Error("no error")
			}
		})
	}
}

// BenchmarkStragglers compares the round rate of a ring without and with
// one agent computing 1 ms per round.
func BenchmarkStragglers(b *testing.B) {
	const n = 4
	for _, slow := range []bool{false, true} {
		name := "none"
		f := Faults{}
		if slow {
			name = "agent0_1ms"
			f.Stragglers = Stragglers{Dist: Dist{Kind: DistFixed, Mean: time.Millisecond}, Agents: []int{0}}
		}
		b.Run(name, func(b *testing.B) {
			g := ring(b, n)
			_, err := runObserved(b, newTestTransport(b, TransportChan, n), nullAgents(b, g, 2),
				Options{Rounds: b.N, PhaseDeadline: time.Second, Faults: f}, nil)
			if err != nil {
				b.Fatal(err)
			}
		})
	}
}

// oneWay is a one-phase agent that sends (t) to agent to every round and
// expects nothing.
type oneWay struct{ id, to int }

func (a oneWay) ID() int        { return a.id }
func (a oneWay) Phases(int) int { return 1 }
func (a oneWay) Send(t, ph int) consensus.Outbox {
	return consensus.Outbox{Msgs: []consensus.Msg{{From: a.id, To: a.to, Round: t, Phase: ph, Data: []float64{float64(t)}}}}
}
func (a oneWay) Receive(int, int, consensus.Inbox) error { return nil }
func (a oneWay) Report() consensus.Report                { return consensus.Report{ID: a.id} }

// TestDelayedFramesEndWithTheRun: agent 0 finishes its only round as soon
// as it has sent a delayed frame to agent 1 (which does not run). A delay
// shorter than the phase deadline is waited for, so the frame is in agent
// 1's inbox when Run returns; a longer one is discarded: its timer is
// stopped and the frame never arrives.
func TestDelayedFramesEndWithTheRun(t *testing.T) {
	tests := []struct {
		name            string
		delay, deadline time.Duration
		delivered       bool
	}{
		{"within the deadline", 20 * time.Millisecond, 5 * time.Second, true},
		{"beyond the deadline", 300 * time.Millisecond, 20 * time.Millisecond, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tr := newTestTransport(t, TransportChan, 2)
			obs, err := tr.Observer()
			if err != nil {
				t.Fatal(err)
			}
			defer obs.Close()
			eps := make([]Endpoint, 2)
			for i := range eps {
				if eps[i], err = tr.Endpoint(i); err != nil {
					t.Fatal(err)
				}
				defer eps[i].Close()
			}
			if err := obs.Control(EncodeControl(Control{Kind: ControlStart})); err != nil {
				t.Fatal(err)
			}
			opts := Options{N: 2, Rounds: 1, PhaseDeadline: tc.deadline,
				Faults: Faults{Delay: Dist{Kind: DistFixed, Mean: tc.delay}}}
			if err := Run(t.Context(), oneWay{0, 1}, eps[0], opts); err != nil {
				t.Fatal(err)
			}
			in := eps[1].(Batcher)
			if !tc.delivered {
				time.Sleep(2 * tc.delay) // past the delay: the timer would have fired
			}
			frames, _ := in.TakeInbox(nil)
			if got := len(frames) == 1; got != tc.delivered || len(frames) > 1 {
				t.Errorf("agent 1 holds %d frames after the run, want delivered = %v", len(frames), tc.delivered)
			}
		})
	}
}

// rejoining is a one-phase agent that exchanges nothing, counts the
// rounds it runs and can rejoin.
type rejoining struct {
	ran, next int
	rejoined  []int
}

func (a *rejoining) ID() int                        { return 0 }
func (a *rejoining) Phases(int) int                 { return 1 }
func (a *rejoining) Send(int, int) consensus.Outbox { return consensus.Outbox{} }
func (a *rejoining) Report() consensus.Report       { return consensus.Report{ID: 0, Round: a.next} }
func (a *rejoining) Rejoin(t int) error             { a.rejoined = append(a.rejoined, t); a.next = t; return nil }
func (a *rejoining) Receive(t, _ int, _ consensus.Inbox) error {
	a.ran++
	a.next = t + 1
	return nil
}

// TestCrashRestartAlone: a single agent crashes at round 2 with a restart
// after 3 rounds. No peer's frame can show that round 5 was reached, so
// after the bounded wait it rejoins at round 5 and finishes the run.
func TestCrashRestartAlone(t *testing.T) {
	const rounds, at, after = 10, 2, 3
	tr := newTestTransport(t, TransportChan, 1)
	obs, err := tr.Observer()
	if err != nil {
		t.Fatal(err)
	}
	defer obs.Close()
	ep, err := tr.Endpoint(0)
	if err != nil {
		t.Fatal(err)
	}
	defer ep.Close()
	if err := obs.Control(EncodeControl(Control{Kind: ControlStart})); err != nil {
		t.Fatal(err)
	}
	a := &rejoining{}
	err = Run(t.Context(), a, ep, Options{N: 1, Rounds: rounds, PhaseDeadline: 10 * time.Millisecond,
		Faults: Faults{Crashes: []Crash{{Agent: 0, At: at, RestartAfter: after}}}})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(a.rejoined, []int{at + after}) || a.ran != rounds-after || a.next != rounds {
		t.Errorf("rejoined at %v, ran %d rounds up to round %d; want a rejoin at %d, %d rounds up to %d",
			a.rejoined, a.ran, a.next, at+after, rounds-after, rounds)
	}
}

// TestFaultDrawsGolden pins the fault models' draws to the draw values
// they had before the stream registry (loss 2^35+1, delay 2^35+2, phase
// stride 16, straggle 2^35+3): a run with the same seed must lose, delay
// and slow the same frames and agents as before.
func TestFaultDrawsGolden(t *testing.T) {
	f := Faults{
		Seed:       2024,
		Loss:       Loss{Rate: 0.5},
		Delay:      Dist{Kind: DistUniform, Min: time.Millisecond, Max: 9 * time.Millisecond},
		Stragglers: Stragglers{Dist: Dist{Kind: DistExponential, Mean: time.Millisecond}},
	}
	lost, delayed := 0, 0
	for tr := 0; tr < 20; tr++ {
		for ph := 0; ph < 4; ph++ {
			for i := 0; i < 3; i++ {
				for j := 0; j < 3; j++ {
					u := graph.Uniform(2024, uint64(tr), 1<<35+1+16*uint64(ph), uint64(i), uint64(j))
					if got, want := f.Lost(tr, ph, i, j), u < 0.5; got != want {
						t.Fatalf("lost(%d, %d, %d, %d) = %v, want %v", tr, ph, i, j, got, want)
					}
					if u < 0.5 {
						lost++
					}
					v := graph.Uniform(2024, uint64(tr), 1<<35+2+16*uint64(ph), uint64(i), uint64(j))
					if got, want := f.delay(tr, ph, i, j), f.Delay.sample(v); got != want {
						t.Fatalf("delay(%d, %d, %d, %d) = %v, want %v", tr, ph, i, j, got, want)
					}
					if f.Delay.sample(v) > 5*time.Millisecond {
						delayed++
					}
				}
			}
		}
		for i := 0; i < 3; i++ {
			w := graph.Uniform(2024, uint64(tr), 1<<35+3, uint64(i), 0)
			if got, want := f.straggle(tr, i), f.Stragglers.sample(w); got != want {
				t.Fatalf("straggle(%d, %d) = %v, want %v", tr, i, got, want)
			}
		}
	}
	// The draws must vary: 720 frames at rate 1/2.
	if lost < 300 || lost > 420 || delayed < 300 || delayed > 420 {
		t.Errorf("%d lost and %d delayed beyond 5ms of 720 frames, want about 360 each", lost, delayed)
	}
}
