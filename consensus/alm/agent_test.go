package alm

import (
	"math"
	"strings"
	"testing"

	"github.com/consim/consim/consensus"
	driver "github.com/consim/consim/consensus/lockstep"
	"github.com/consim/consim/graph"
	"github.com/consim/consim/objective"
)

// TestSingleAgent checks that with N = 1 (no edges, A empty) the agent is
// the single-agent Algorithm 1, x <- proj_X(x - tau (G(x, xi) + mu (x - z))),
// z <- z + beta (x_old - z), written out here on the same samples, and that
// with exact gradients it reaches the box-constrained minimizer. The
// reference, whose A has no rows, must agree as well.
func TestSingleAgent(t *testing.T) {
	g, err := graph.New(1, nil)
	if err != nil {
		t.Fatal(err)
	}
	box := objective.Box{Lo: -1, Hi: 0.5}
	for _, sigma := range []float64{0.5, 0} {
		inst := newQuadInstance(1, 4, 1, sigma, 1, box, 2)
		cfg := Config{Steps: Steps{Tau: 0.2, Mu: 2, Beta: 0.1, My: 1}, Seed: 9}
		ls, err := newLockstep(cfg, g, graph.Bernoulli{G: g}, inst)
		if err != nil {
			t.Fatal(err)
		}
		ref, err := NewReference(cfg, g, graph.Bernoulli{G: g}, inst.locals, box, inst.x0)
		if err != nil {
			t.Fatal(err)
		}
		f := inst.locals[0]
		x := append([]float64(nil), inst.x0[0]...)
		z := append([]float64(nil), x...)
		gr := make([]float64, len(x))
		for r := 0; r < 2000; r++ {
			if err := ls.round(r); err != nil {
				t.Fatal(err)
			}
			rng := graph.StreamSample.Rand(cfg.Seed, uint64(r), 0)
			f.StochGrad(x, gr, rng)
			for k := range x {
				gk := gr[k] + cfg.Mu*(x[k]-z[k])
				z[k] += cfg.Beta * (x[k] - z[k])
				x[k] = math.Min(math.Max(x[k]-cfg.Tau*gk, box.Lo), box.Hi)
			}
			if d := dist(ls.agents[0].X(), x); d > 1e-12*math.Max(1, norm(x)) {
				t.Fatalf("sigma %v round %d: agent deviates from Algorithm 1 by %.3g", sigma, r, d)
			}
			if err := ref.Step(r); err != nil {
				t.Fatal(err)
			}
			if d := dist(ref.X(0), x); d > 1e-12*math.Max(1, norm(x)) {
				t.Fatalf("sigma %v round %d: reference deviates from Algorithm 1 by %.3g", sigma, r, d)
			}
		}
		if ls.agents[0].Phases(0) != 2 {
			t.Errorf("global safeguard: Phases = %d, want 2", ls.agents[0].Phases(0))
		}
		if sigma == 0 {
			if d := dist(x, inst.xstar); d > 1e-12 {
				t.Errorf("exact gradients: ||x - x*|| = %.3g", d)
			}
			if kkt := ls.agents[0].Report().Measures[0]; kkt > 1e-24 {
				t.Errorf("exact gradients: KKT^2 = %.3g", kkt)
			}
		}
	}
}

func TestNewAgentErrors(t *testing.T) {
	g, err := graph.New(3, []graph.Edge{{I: 0, J: 1, P: 1}, {I: 1, J: 2, P: 0.5}})
	if err != nil {
		t.Fatal(err)
	}
	proc := graph.Bernoulli{G: g}
	f := quad(1, []float64{0, 0}, 0)
	box := objective.Box{Lo: -1, Hi: 1}
	good := Config{Steps: Steps{Eta: 0.1, Tau: 0.1, Rho: 1, Mu: 2, Beta: 0.1, My: 10}}
	with := func(mod func(*Config)) Config { c := good; mod(&c); return c }
	cases := []struct {
		name string
		cfg  Config
		id   int
		g    *graph.Graph
		f    objective.Local
		box  objective.Box
		x0   []float64
		want string
	}{
		{name: "ok", cfg: good, g: g, f: f, box: box, x0: []float64{0, 0}},
		{name: "zero tau", cfg: with(func(c *Config) { c.Tau = 0 }), g: g, f: f, box: box, x0: []float64{0, 0}, want: "tau"},
		{name: "NaN eta", cfg: with(func(c *Config) { c.Eta = math.NaN() }), g: g, f: f, box: box, x0: []float64{0, 0}, want: "eta"},
		{name: "negative rho", cfg: with(func(c *Config) { c.Rho = -1 }), g: g, f: f, box: box, x0: []float64{0, 0}, want: "rho"},
		{name: "beta above 1", cfg: with(func(c *Config) { c.Beta = 2 }), g: g, f: f, box: box, x0: []float64{0, 0}, want: "beta"},
		{name: "zero M_y", cfg: with(func(c *Config) { c.My = 0 }), g: g, f: f, box: box, x0: []float64{0, 0}, want: "M_y"},
		{name: "schedule", cfg: with(func(c *Config) { c.TauSchedule = "linear" }), g: g, f: f, box: box, x0: []float64{0, 0}, want: "schedule"},
		{name: "safeguard", cfg: with(func(c *Config) { c.Safeguard = "local" }), g: g, f: f, box: box, x0: []float64{0, 0}, want: "safeguard"},
		{name: "safeguard period", cfg: with(func(c *Config) { c.SafeguardEvery = -2 }), g: g, f: f, box: box, x0: []float64{0, 0}, want: "period"},
		{name: "id", cfg: good, id: 3, g: g, f: f, box: box, x0: []float64{0, 0}, want: "id"},
		{name: "nil graph", cfg: good, f: f, box: box, x0: []float64{0, 0}, want: "required"},
		{name: "nil objective", cfg: good, g: g, box: box, x0: []float64{0, 0}, want: "required"},
		{name: "length", cfg: good, g: g, f: f, box: box, x0: []float64{0}, want: "length"},
		{name: "outside box", cfg: good, g: g, f: f, box: box, x0: []float64{0, 2}, want: "outside"},
		{name: "empty box", cfg: good, g: g, f: f, box: objective.Box{Lo: 1, Hi: -1}, x0: []float64{0, 0}, want: "box"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var p graph.EdgeProcess
			if tc.g != nil {
				p = proc
			}
			var f objective.Local
			if tc.f != nil {
				f = tc.f
			}
			_, err := NewAgent(tc.cfg, tc.id, tc.g, p, f, tc.box, tc.x0)
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("error %v, want one mentioning %q", err, tc.want)
			}
		})
	}
}

// TestReceiveErrors feeds the agent inboxes that break the protocol.
func TestReceiveErrors(t *testing.T) {
	g, err := graph.New(3, []graph.Edge{{I: 0, J: 1, P: 1}, {I: 1, J: 2, P: 1}})
	if err != nil {
		t.Fatal(err)
	}
	newAgent := func(t *testing.T, sg string) *Agent {
		cfg := Config{Steps: Steps{Eta: 0.1, Tau: 0.1, Rho: 1, Mu: 2, Beta: 0.1, My: 10}, Safeguard: sg, Rounds: 1}
		a, err := NewAgent(cfg, 1, g, graph.Bernoulli{G: g}, quad(1, []float64{0, 0}, 0), objective.Box{Lo: -1, Hi: 1}, []float64{0, 0})
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	msg := func(from, round int, data ...float64) consensus.Msg {
		return consensus.Msg{From: from, To: 1, Round: round, Data: data}
	}
	cases := []struct {
		name  string
		sg    string
		send  bool
		round int
		in    consensus.Inbox
		want  string
	}{
		{name: "ok", sg: SafeguardNone, send: true, in: consensus.Inbox{Msgs: []consensus.Msg{msg(0, 0, 1, 1), msg(2, 0, 1, 1)}}},
		{name: "ok with dropout", sg: SafeguardNone, send: true, in: consensus.Inbox{Msgs: []consensus.Msg{msg(2, 0, 1, 1)}, Missing: []int{0}}},
		{name: "no send", sg: SafeguardNone, in: consensus.Inbox{}, want: "after its send"},
		{name: "wrong round", sg: SafeguardNone, send: true, round: 1, in: consensus.Inbox{}, want: "round 1"},
		{name: "unexpected sender", sg: SafeguardNone, send: true, in: consensus.Inbox{Msgs: []consensus.Msg{msg(3, 0, 1, 1)}}, want: "not expected"},
		{name: "out of order", sg: SafeguardNone, send: true, in: consensus.Inbox{Msgs: []consensus.Msg{msg(2, 0, 1, 1), msg(0, 0, 1, 1)}}, want: "not expected"},
		{name: "stale message", sg: SafeguardNone, send: true, in: consensus.Inbox{Msgs: []consensus.Msg{msg(0, 5, 1, 1)}}, want: "round 5"},
		{name: "short data", sg: SafeguardNone, send: true, in: consensus.Inbox{Msgs: []consensus.Msg{msg(0, 0, 1)}}, want: "values"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := newAgent(t, tc.sg)
			if tc.send {
				a.Send(0, 0)
			}
			err := a.Receive(tc.round, 0, tc.in)
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("error %v, want one mentioning %q", err, tc.want)
			}
		})
	}
	t.Run("reduce length", func(t *testing.T) {
		a := newAgent(t, SafeguardGlobal)
		a.Send(0, 0)
		if err := a.Receive(0, 0, consensus.Inbox{Msgs: []consensus.Msg{msg(0, 0, 1, 1), msg(2, 0, 1, 1)}}); err != nil {
			t.Fatal(err)
		}
		// Agent 1 reads {0,1} (it sends its copy's version to 0 and
		// expects y_01 back) and owns {1,2} (it sends y_12 and its
		// version to 2 and expects 2's version back).
		out := a.Send(0, 1)
		// One payload for both: (version of the copy of y_01; y_12,
		// version of y_12) = (0; y_12, 1).
		if len(out.Reduce) != 1 || len(out.Msgs) != 2 || out.Msgs[0].To != 0 || out.Msgs[1].To != 2 ||
			len(out.Msgs[0].Data) != 4 || &out.Msgs[0].Data[0] != &out.Msgs[1].Data[0] || out.Msgs[0].Data[0] != 0 || out.Msgs[0].Data[3] != 1 ||
			len(out.Expect) != 2 || out.Expect[0] != 0 || out.Expect[1] != 2 {
			t.Fatalf("dual phase outbox %+v", out)
		}
		if err := a.Receive(0, 1, consensus.Inbox{}); err == nil || !strings.Contains(err.Error(), "reduce") {
			t.Fatalf("error %v, want a reduce length error", err)
		}
	})
	t.Run("horizon", func(t *testing.T) {
		a := newAgent(t, SafeguardNone)
		a.Send(0, 0)
		if err := a.Receive(0, 0, consensus.Inbox{Msgs: []consensus.Msg{msg(0, 0, 1, 1), msg(2, 0, 1, 1)}}); err != nil {
			t.Fatal(err)
		}
		a.Send(0, 1)
		if err := a.Receive(0, 1, consensus.Inbox{Missing: []int{0, 2}}); err != nil {
			t.Fatal(err)
		}
		a.Send(1, 0)
		if err := a.Receive(1, 0, consensus.Inbox{}); err == nil || !strings.Contains(err.Error(), "horizon") {
			t.Fatalf("error %v, want a horizon error", err)
		}
	})
	dual := func(from, round int, data ...float64) consensus.Msg {
		return consensus.Msg{From: from, To: 1, Round: round, Phase: 1, Data: data}
	}
	dualCases := []struct {
		name string
		in   consensus.Inbox
		want string
	}{
		{name: "ok", in: consensus.Inbox{Msgs: []consensus.Msg{dual(0, 0, 0.5, -0.5, 1), dual(2, 0, 0)}}},
		{name: "copy lost", in: consensus.Inbox{Msgs: []consensus.Msg{dual(2, 0, 0)}, Missing: []int{0}}},
		{name: "reader sends a dual", in: consensus.Inbox{Msgs: []consensus.Msg{dual(2, 0, 0.5, -0.5, 1)}}, want: "values"},
		{name: "out of order", in: consensus.Inbox{Msgs: []consensus.Msg{dual(2, 0, 0), dual(0, 0, 0.5, -0.5, 1)}}, want: "not expected"},
		{name: "reader's version in the future", in: consensus.Inbox{Msgs: []consensus.Msg{dual(2, 0, 3)}}, want: "version"},
		{name: "wrong round", in: consensus.Inbox{Msgs: []consensus.Msg{dual(0, 3, 0.5, -0.5, 1)}}, want: "round 3"},
		{name: "no version", in: consensus.Inbox{Msgs: []consensus.Msg{dual(0, 0, 0.5, -0.5)}}, want: "values"},
		{name: "future version", in: consensus.Inbox{Msgs: []consensus.Msg{dual(0, 0, 0.5, -0.5, 2)}}, want: "version"},
		{name: "fractional version", in: consensus.Inbox{Msgs: []consensus.Msg{dual(0, 0, 0.5, -0.5, 0.5)}}, want: "version"},
		{name: "NaN version", in: consensus.Inbox{Msgs: []consensus.Msg{dual(0, 0, 0.5, -0.5, math.NaN())}}, want: "version"},
	}
	for _, tc := range dualCases {
		t.Run("dual phase, "+tc.name, func(t *testing.T) {
			a := newAgent(t, SafeguardNone)
			a.Send(0, 0)
			if err := a.Receive(0, 0, consensus.Inbox{Msgs: []consensus.Msg{msg(0, 0, 1, 1), msg(2, 0, 1, 1)}}); err != nil {
				t.Fatal(err)
			}
			a.Send(0, 1)
			err := a.Receive(0, 1, tc.in)
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("error %v, want one mentioning %q", err, tc.want)
			}
			if tc.name == "ok" {
				if y, _ := a.Dual(0); y[0] != 0.5 || y[1] != -0.5 || a.ver[0] != 1 {
					t.Errorf("copy of y_01 = %v version %d, want the owner's [0.5 -0.5] version 1", y, a.ver[0])
				}
			}
		})
	}
}

// TestPhases: with an edge in the graph every round has the dual phase;
// without one (N = 1) only the rounds that check the global safeguard
// have a second phase.
func TestPhases(t *testing.T) {
	pair, err := graph.New(2, []graph.Edge{{I: 0, J: 1, P: 1}})
	if err != nil {
		t.Fatal(err)
	}
	single, err := graph.New(1, nil)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		g     *graph.Graph
		sg    string
		every int
		want  []int // Phases(0..5)
	}{
		{pair, SafeguardGlobal, 0, []int{2, 2, 2, 2, 2, 2}},
		{pair, SafeguardGlobal, 3, []int{2, 2, 2, 2, 2, 2}},
		{pair, SafeguardEdge, 1, []int{2, 2, 2, 2, 2, 2}},
		{pair, SafeguardNone, 1, []int{2, 2, 2, 2, 2, 2}},
		{single, SafeguardGlobal, 0, []int{2, 2, 2, 2, 2, 2}},
		{single, SafeguardGlobal, 3, []int{2, 1, 1, 2, 1, 1}},
		{single, SafeguardEdge, 1, []int{1, 1, 1, 1, 1, 1}},
		{single, SafeguardNone, 1, []int{1, 1, 1, 1, 1, 1}},
	}
	for _, tc := range cases {
		g := tc.g
		cfg := Config{Steps: Steps{Tau: 0.1, My: 1}, Safeguard: tc.sg, SafeguardEvery: tc.every}
		a, err := NewAgent(cfg, 0, g, graph.Bernoulli{G: g}, quad(1, []float64{0}, 0), objective.Box{Lo: -1, Hi: 1}, []float64{0})
		if err != nil {
			t.Fatal(err)
		}
		for r, w := range tc.want {
			if got := a.Phases(r); got != w {
				t.Errorf("N = %d, %s every %d: Phases(%d) = %d, want %d", g.N, tc.sg, tc.every, r, got, w)
			}
		}
	}
}

func TestBoxResidualSq(t *testing.T) {
	cases := []struct {
		name   string
		x, g   []float64
		lo, hi float64
		want   float64
	}{
		{"interior", []float64{0, 0.5}, []float64{3, -4}, -1, 1, 25},
		{"at lower, pushing out", []float64{-1}, []float64{2}, -1, 1, 0},
		{"at lower, pulling in", []float64{-1}, []float64{-2}, -1, 1, 4},
		{"at upper, pushing out", []float64{1}, []float64{-2}, -1, 1, 0},
		{"at upper, pulling in", []float64{1}, []float64{3}, -1, 1, 9},
		{"degenerate box", []float64{0}, []float64{7}, 0, 0, 0},
		{"unbounded", []float64{5}, []float64{2}, math.Inf(-1), math.Inf(1), 4},
	}
	for _, tc := range cases {
		if got := boxResidualSq(tc.x, tc.g, tc.lo, tc.hi); got != tc.want {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestScaleReportsInUnitsOfF: with sigma != 1 the agents iterate on
// sigma f, and their reports give the duals, dual norm and KKT residual of
// f itself: y/sigma. Two agents on one edge, one round with known values.
func TestScaleReportsInUnitsOfF(t *testing.T) {
	g, err := graph.New(2, []graph.Edge{{I: 0, J: 1, P: 1}})
	if err != nil {
		t.Fatal(err)
	}
	proc := graph.Bernoulli{G: g, Seed: 1}
	box := objective.Box{Lo: math.Inf(-1), Hi: math.Inf(1)}
	reports := func(scale float64) [2]consensus.Report {
		p := Steps{Eta: 1, Tau: 0.1, Rho: 0, Mu: 0, Beta: 0, My: math.Inf(1)}
		cfg := Config{Steps: p, Safeguard: SafeguardNone, Seed: 3, Scale: scale}
		var as [2]*Agent
		for i := range as {
			a, err := NewAgent(cfg, i, g, proc, objective.Quadratic(1, []float64{1}, []float64{0}), box, []float64{float64(2 * i)})
			if err != nil {
				t.Fatal(err)
			}
			as[i] = a
		}
		if err := driver.Round([]consensus.Agent{as[0], as[1]}, 0); err != nil {
			t.Fatal(err)
		}
		return [2]consensus.Report{as[0].Report(), as[1].Report()}
	}
	// Round 0: y_01 = eta (x_0 - x_1) = -2 whatever sigma is; in units of f
	// it is -2/sigma, so ||y||^2 shares scale by 1/sigma^2.
	one, seven := reports(1), reports(7)
	for i := range one {
		if got, want := seven[i].Measures[1], one[i].Measures[1]/49; math.Abs(got-want) > 1e-15 {
			t.Errorf("agent %d: DualSq at sigma = 7 is %v, want %v (sigma = 1 value / 49)", i, got, want)
		}
	}
	// The owner (agent 0) counts y_01^2 = 4, the reader nothing.
	if one[0].Measures[1] != 4 || one[1].Measures[1] != 0 {
		t.Errorf("DualSq shares at sigma = 1 are %v and %v, want 4 and 0", one[0].Measures[1], one[1].Measures[1])
	}
}
