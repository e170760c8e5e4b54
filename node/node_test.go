package node

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/graph"
	"github.com/consim/consim/internal/wallclock"
)

type makeAgents func(testing.TB, *graph.Graph) []consensus.Agent

var algorithms = []struct {
	name string
	make makeAgents
}{
	{"null", func(t testing.TB, g *graph.Graph) []consensus.Agent { return nullAgents(t, g, 3) }},
	{"averaging", func(_ testing.TB, g *graph.Graph) []consensus.Agent { return averagingAgents(g, 3) }},
}

// TestDeterministicAcrossTransports runs six agents on a ring under every
// transport, with and without a gate (one place), and checks that the
// final iterates equal, bit for bit, those of a single-goroutine lockstep
// run, and that nothing was lost.
func TestDeterministicAcrossTransports(t *testing.T) {
	const n, rounds = 6, 25
	g := ring(t, n)
	for _, alg := range algorithms {
		want := alg.make(t, g)
		lockstep(t, want, rounds)
		for _, kind := range TransportKinds {
			for _, gated := range []bool{false, true} {
				name := alg.name + "/" + string(kind)
				if gated {
					name += "/gated"
				}
				t.Run(name, func(t *testing.T) {
					if gated {
						// A gate of one place: each agent runs alone
						// between its waits (see gate).
						defer func(m, p int) { gateMin, gatePlaces = m, p }(gateMin, gatePlaces)
						gateMin, gatePlaces = 1, 1
					}
					deterministicRun(t, kind, alg.make(t, g), want, n, rounds)
				})
			}
		}
	}
}

// deterministicRun runs agents on a transport of the given kind and
// checks TestDeterministicAcrossTransports' claims against the lockstep
// agents want.
func deterministicRun(t *testing.T, kind TransportKind, agents, want []consensus.Agent, n, rounds int) {
	t.Helper()
	res, err := runObserved(t, newTestTransport(t, kind, n), agents, Options{Rounds: rounds, ReportEvery: 10}, nil)
	if err != nil {
		t.Fatal(err)
	}
	sameBits(t, agents, want)
	if res.progress != 3*n {
		t.Errorf("%d progress statuses, want %d (rounds 0, 10 and 20 of %d agents)", res.progress, 3*n, n)
	}
	for i, s := range res.terminal {
		tr := s.Traffic
		if s.Kind != StatusFinal || s.Report.Round != rounds {
			t.Errorf("agent %d: status %s after round %d, want final after %d", i, s.Kind, s.Report.Round, rounds)
		}
		if tr.Dropouts != 0 || tr.ReduceMissing != 0 || tr.Malformed != 0 || tr.Unexpected != 0 {
			t.Errorf("agent %d: losses in a lossless run: %+v", i, tr)
		}
		if tr.MsgsRecv == 0 || tr.BytesSent == 0 {
			t.Errorf("agent %d: traffic not counted: %+v", i, tr)
		}
		for k, v := range s.Report.X {
			if v != want[i].Report().X[k] {
				t.Errorf("agent %d: reported x = %v, want %v", i, s.Report.X, want[i].Report().X)
				break
			}
		}
	}
}

// TestSilentPeerIsADropout: agent 2 of a ring never sends. Its neighbours
// 1 and 3 count one dropout per round on the edge to 2, nobody else counts
// any on that edge, and every agent finishes. (Other edges may lose
// messages too: a neighbour that waited out its own deadline is late by
// as much, so the iterates are not compared.)
func TestSilentPeerIsADropout(t *testing.T) {
	const n, rounds, quiet = 6, 5, 2
	g := ring(t, n)
	for _, kind := range TransportKinds {
		t.Run(string(kind), func(t *testing.T) {
			agents := nullAgents(t, g, 2)
			agents[quiet] = silent{agents[quiet]}
			res, err := runObserved(t, newTestTransport(t, kind, n), agents, Options{Rounds: rounds, PhaseDeadline: 50 * time.Millisecond}, nil)
			if err != nil {
				t.Fatal(err)
			}
			for i, s := range res.terminal {
				if s.Kind != StatusFinal || s.Report.Round != rounds {
					t.Errorf("agent %d: %s after round %d, want final after %d", i, s.Kind, s.Report.Round, rounds)
				}
				var want int64
				if i == quiet-1 || i == quiet+1 {
					want = rounds
				}
				if got := s.Traffic.DropoutsByPeer[quiet]; got != want {
					t.Errorf("agent %d: %d dropouts from agent %d, want %d", i, got, quiet, want)
				}
				if s.Traffic.Dropouts < want {
					t.Errorf("agent %d: %d dropouts in all, fewer than the %d from agent %d", i, s.Traffic.Dropouts, want, quiet)
				}
			}
		})
	}
}

// TestBadFramesAreCountedAndDropped injects malformed and stray frames
// for agent 0, each published by the agent it names as its sender (on
// NATS a frame must come from its sender's subject), before the run
// starts: each is counted, none changes the iterates. On NATS the frames
// whose routing header does not decode, or whose sender is not the
// publisher, are counted by the bus (BusMalformed); on channels the
// empty frame is refused by Publish.
func TestBadFramesAreCountedAndDropped(t *testing.T) {
	const n, rounds = 6, 4
	g := ring(t, n)
	want := averagingAgents(g, 2)
	lockstep(t, want, rounds)
	to0 := []int{0}
	good := mustFrameTo(t, FrameData, 1, to0, 0, 0, []float64{1, 2})
	truncated := good[:len(good)-3]
	unknown := append([]byte{FrameVersion, 9}, good[2:]...)
	stranger := mustFrameTo(t, FrameData, 3, to0, 0, 0, []float64{1, 2})    // 3 is no neighbour of 0
	beyond := mustFrameTo(t, FrameData, 1, to0, rounds, 0, []float64{1, 2}) // after the last round
	shortTerm := mustFrameTo(t, FrameReduce, 4, to0, 1, 1, []float64{1})    // reduce of the wrong length
	outsider := mustFrameTo(t, FrameData, n, to0, 0, 0, []float64{1, 2})    // sender id outside the run
	type injection struct {
		by    int // publishing agent
		frame []byte
	}
	inject := []injection{{1, truncated}, {1, unknown}, {3, stranger}, {1, beyond}, {4, shortTerm}, {5, outsider}, {5, []byte{}}}
	const wantUnexpected = 2
	for _, kind := range TransportKinds {
		t.Run(string(kind), func(t *testing.T) {
			wantMalformed, wantBus := 4, 0 // truncated, unknown, short term, outsider
			if kind != TransportChan {
				wantMalformed, wantBus = 3, 2 // the outsider and the empty frame fail routing
			}
			tr := newTestTransport(t, kind, n)
			agents := averagingAgents(g, 2)
			ctx := context.Background()
			obs, err := tr.Observer()
			if err != nil {
				t.Fatal(err)
			}
			defer obs.Close()
			eps := make([]Endpoint, n)
			for i := range eps {
				if eps[i], err = tr.Endpoint(i); err != nil {
					t.Fatal(err)
				}
				defer eps[i].Close()
			}
			for _, in := range inject {
				err := eps[in.by].Publish(in.frame)
				if empty := len(in.frame) == 0 && kind == TransportChan; empty != (err != nil) {
					t.Fatalf("publish %x: error %v", in.frame, err)
				}
			}
			errs := make(chan error, n)
			for i, a := range agents {
				go func() { errs <- Run(ctx, a, eps[i], Options{N: n, Rounds: rounds}) }()
			}
			res, err := observe(ctx, obs, n, nil)
			if err != nil {
				t.Fatal(err)
			}
			for range n {
				if err := <-errs; err != nil {
					t.Fatal(err)
				}
			}
			sameBits(t, agents, want)
			tr0 := res.terminal[0].Traffic
			if tr0.Malformed != int64(wantMalformed) || tr0.Unexpected != wantUnexpected || tr0.BusMalformed != int64(wantBus) {
				t.Errorf("agent 0: %d malformed, %d unexpected, %d malformed on the bus; want %d, %d and %d",
					tr0.Malformed, tr0.Unexpected, tr0.BusMalformed, wantMalformed, wantUnexpected, wantBus)
			}
		})
	}
}

// TestStopEndsEveryAgent sends stop after the first progress status past
// round 0 of a practically endless run: every agent ends with a final
// status that gives the stop's reason, and no error, well before the last
// round. An agent stops at the end of the round in which the stop reaches
// it, or within it if a frame of the round had not come (the peer that
// owes it stopped too and sends no leave frame). Agent i has done at least
// R - d rounds, where R is the reporting agent's round and d the ring
// distance between them: the reporter could not finish round R without
// round R-1 of its neighbours, and so on.
func TestStopEndsEveryAgent(t *testing.T) {
	const n, rounds = 6, 1 << 30
	g := ring(t, n)
	for _, kind := range TransportKinds {
		t.Run(string(kind), func(t *testing.T) {
			agents := averagingAgents(g, 2)
			stopped := false
			var by, at int
			stop := func(obs Observer, s Status) {
				if !stopped && s.Report.Round > 0 {
					stopped, by, at = true, s.ID, s.Report.Round
					if err := obs.Control(EncodeControl(Control{Kind: ControlStop, Reason: "test"})); err != nil {
						t.Error(err)
					}
				}
			}
			res, err := runObserved(t, newTestTransport(t, kind, n), agents, Options{Rounds: rounds, ReportEvery: 5}, stop)
			if err != nil {
				t.Fatal(err)
			}
			for i, s := range res.terminal {
				d := min((i-by+n)%n, (by-i+n)%n)
				if s.Kind != StatusFinal || s.Report.Round < at-d || s.Report.Round >= rounds || s.Stop != "test" {
					t.Errorf("agent %d: %s after round %d (stop %q), want final after round %d or later (agent %d reported round %d) with stop \"test\"",
						i, s.Kind, s.Report.Round, s.Stop, at-d, by, at)
				}
			}
		})
	}
}

// TestFailingAgent: agent 2 fails in round 3. It publishes a failed status
// with its error; its leave frame releases its neighbours, which would
// otherwise wait a minute per phase, and they count the rounds it missed.
func TestFailingAgent(t *testing.T) {
	const n, rounds, bad, at = 6, 8, 2, 3
	g := ring(t, n)
	for _, kind := range TransportKinds {
		t.Run(string(kind), func(t *testing.T) {
			agents := nullAgents(t, g, 2)
			agents[bad] = failing{agents[bad], at}
			res, err := runObserved(t, newTestTransport(t, kind, n), agents, Options{Rounds: rounds, PhaseDeadline: time.Minute}, nil)
			if !errors.Is(err, errBoom) {
				t.Fatalf("RunAll error %v, want %v", err, errBoom)
			}
			if s := res.terminal[bad]; s.Kind != StatusFailed || !strings.Contains(s.Err, errBoom.Error()) {
				t.Errorf("agent %d: status %s with error %q, want failed with %q", bad, s.Kind, s.Err, errBoom)
			}
			for _, i := range []int{bad - 1, bad + 1} {
				s := res.terminal[i]
				// Round 3's message arrived before the failure in Receive.
				if want := int64(rounds - at - 1); s.Kind != StatusFinal || s.Traffic.DropoutsByPeer[bad] != want {
					t.Errorf("agent %d: %s with %d dropouts from %d, want final with %d", i, s.Kind, s.Traffic.DropoutsByPeer[bad], bad, want)
				}
			}
		})
	}
}

// TestDepartedTermIsMissing: with the all-reduce, a failed agent's term
// is missing from every later reduce; the root (agent 0), which forms the
// sums, counts it, and the others receive the sum without it.
func TestDepartedTermIsMissing(t *testing.T) {
	const n, rounds, bad, at = 4, 5, 1, 2
	g := ring(t, n)
	agents := averagingAgents(g, 1)
	agents[bad] = failing{agents[bad], at}
	res, err := runObserved(t, newTestTransport(t, TransportChan, n), agents, Options{Rounds: rounds, PhaseDeadline: time.Minute}, nil)
	if !errors.Is(err, errBoom) {
		t.Fatalf("RunAll error %v, want %v", err, errBoom)
	}
	for i, s := range res.terminal {
		if i == bad {
			continue
		}
		// The failure is in round 2's phase 0; the reduces of rounds 2..4 miss it.
		want := int64(0)
		if i == 0 {
			want = rounds - at
		}
		if s.Traffic.ReduceMissing != want {
			t.Errorf("agent %d: %d reduce terms missing, want %d", i, s.Traffic.ReduceMissing, want)
		}
	}
}

func TestStartTimeoutFails(t *testing.T) {
	tr := newTestTransport(t, TransportChan, 1)
	obs, err := tr.Observer()
	if err != nil {
		t.Fatal(err)
	}
	ep, err := tr.Endpoint(0)
	if err != nil {
		t.Fatal(err)
	}
	a := nullAgents(t, ring(t, 1), 1)[0]
	err = Run(context.Background(), a, ep, Options{N: 1, Rounds: 1, StartTimeout: 20 * time.Millisecond})
	if err == nil || !strings.Contains(err.Error(), "no start") {
		t.Fatalf("error %v, want a start timeout", err)
	}
	kinds := []StatusKind{}
	for len(kinds) < 2 {
		s, err := DecodeStatus(<-obs.Statuses())
		if err != nil {
			t.Fatal(err)
		}
		kinds = append(kinds, s.Kind)
	}
	if kinds[0] != StatusReady || kinds[1] != StatusFailed {
		t.Fatalf("statuses %v, want [ready failed]", kinds)
	}
}

func TestStopBeforeStartIsFinal(t *testing.T) {
	tr := newTestTransport(t, TransportChan, 2)
	obs, err := tr.Observer()
	if err != nil {
		t.Fatal(err)
	}
	if err := obs.Control(EncodeControl(Control{Kind: ControlStop})); err != nil {
		t.Fatal(err)
	}
	err = RunAll(context.Background(), nullAgents(t, ring(t, 2), 1), tr, Options{Rounds: 10})
	if err != nil {
		t.Fatal(err)
	}
	finals := 0
	for finals < 2 {
		s, err := DecodeStatus(<-obs.Statuses())
		if err != nil {
			t.Fatal(err)
		}
		if s.Kind == StatusFinal {
			if s.Report.Round != 0 {
				t.Errorf("agent %d: final after round %d, want 0", s.ID, s.Report.Round)
			}
			finals++
		}
	}
}

// TestCancelEndsPromptly cancels the context of agent 0 while it waits,
// with a one-minute deadline, for agent 1, which never runs: Run returns
// at once.
func TestCancelEndsPromptly(t *testing.T) {
	for _, kind := range TransportKinds {
		t.Run(string(kind), func(t *testing.T) {
			tr := newTestTransport(t, kind, 2)
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
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() {
				done <- Run(ctx, nullAgents(t, ring(t, 2), 1)[0], eps[0], Options{N: 2, Rounds: 10, PhaseDeadline: time.Minute})
			}()
			<-eps[1].Inbox() // agent 0 has sent round 0 and now waits
			cancel()
			if err := <-done; !errors.Is(err, context.Canceled) { // blocked for good if the cancel did not end Run
				t.Fatalf("error %v, want context.Canceled", err)
			}
			// The peer learns that agent 0 left before round 0's phase 1.
			h, err := DecodeHeader(<-eps[1].Inbox())
			if err != nil || h.Kind != FrameLeave || h.From != 0 || h.Round != 0 || h.Phase != 1 {
				t.Fatalf("peer got %+v (%v), want a leave of agent 0 at round 0 phase 1", h, err)
			}
		})
	}
}

func TestUnreachableNATSFailsFast(t *testing.T) {
	begin := time.Now()
	_, err := NewNATSTransport(NATSOptions{RunID: "unreachable", URL: "nats://127.0.0.1:1"})
	if err == nil {
		t.Fatal("want an error for an unreachable server")
	}
	if !strings.Contains(err.Error(), "nats://127.0.0.1:1") {
		t.Errorf("error %q does not name the URL", err)
	}
	wallclock.Bound(t, "failing on an unreachable server", time.Since(begin), 5*time.Second)
}

func TestExternalURLTransport(t *testing.T) {
	srv := startTestServer(t, NATSServerOptions{Port: -1})
	if !strings.HasPrefix(srv.ClientURL(), "nats://127.0.0.1:") {
		t.Fatalf("server URL %q", srv.ClientURL())
	}
	tr, err := NewTransport(TransportConfig{Kind: TransportNATSTCP, RunID: "external", URL: srv.ClientURL()})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	g := ring(t, 3)
	want := nullAgents(t, g, 2)
	lockstep(t, want, 4)
	agents := nullAgents(t, g, 2)
	if _, err := runObserved(t, tr, agents, Options{Rounds: 4}, nil); err != nil {
		t.Fatal(err)
	}
	sameBits(t, agents, want)
}

func TestBadConfiguration(t *testing.T) {
	g := ring(t, 2)
	a := nullAgents(t, g, 1)[0]
	tests := []struct {
		name string
		run  func() error
	}{
		{"no agents", func() error { _, err := NewChanTransport(0); return err }},
		{"unknown transport", func() error { _, err := NewTransport(TransportConfig{Kind: "carrier-pigeon"}); return err }},
		{"run id with dot", func() error { _, err := NewNATSTransport(NATSOptions{RunID: "a.b"}); return err }},
		{"empty run id", func() error { _, err := NewNATSTransport(NATSOptions{}); return err }},
		{"in-process with URL", func() error {
			_, err := NewNATSTransport(NATSOptions{RunID: "x", URL: "nats://127.0.0.1:4222", InProcess: true})
			return err
		}},
		{"zero rounds", func() error { return Run(context.Background(), a, nil, Options{N: 2}) }},
		{"zero agents", func() error { return Run(context.Background(), a, nil, Options{Rounds: 1}) }},
		{"negative deadline", func() error {
			return Run(context.Background(), a, nil, Options{N: 2, Rounds: 1, PhaseDeadline: -1})
		}},
		{"id outside N", func() error {
			return Run(context.Background(), nullAgents(t, g, 1)[1], nil, Options{N: 1, Rounds: 1})
		}},
		{"nil endpoint", func() error { return Run(context.Background(), a, nil, Options{N: 2, Rounds: 1}) }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.run(); err == nil {
				t.Fatal("want an error")
			}
		})
	}
}

// TestReadyRepeat: with ReadyRepeat the ready status is published again
// until the start arrives (the observer starts after three); without it,
// once, however long the start takes.
func TestReadyRepeat(t *testing.T) {
	for _, repeat := range []time.Duration{0, 5 * time.Millisecond} {
		t.Run(repeat.String(), func(t *testing.T) {
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
			done := make(chan error, 1)
			a := nullAgents(t, ring(t, 1), 1)[0]
			go func() { done <- Run(t.Context(), a, ep, Options{N: 1, Rounds: 2, ReadyRepeat: repeat}) }()
			// ready reports whether a ready status arrives within wait
			// (0: however long it takes).
			ready := func(wait time.Duration) bool {
				var timeout <-chan time.Time
				if wait > 0 {
					timer := time.NewTimer(wait)
					defer timer.Stop()
					timeout = timer.C
				}
				select {
				case f := <-obs.Statuses():
					s, err := DecodeStatus(f)
					if err != nil || s.Kind != StatusReady {
						t.Fatalf("status %+v (%v) before the start, want ready", s, err)
					}
					return true
				case <-timeout:
					return false
				}
			}
			want := 1
			if repeat > 0 {
				want = 3
			}
			for range want {
				ready(0)
			}
			if repeat == 0 && ready(50*time.Millisecond) {
				t.Error("ready published twice without ReadyRepeat")
			}
			if err := obs.Control(EncodeControl(Control{Kind: ControlStart})); err != nil {
				t.Fatal(err)
			}
			if err := <-done; err != nil {
				t.Fatal(err)
			}
		})
	}
}
