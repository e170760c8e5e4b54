package radmm

import (
	"math"
	"strings"
	"testing"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/consensus/lockstep"
	"github.com/consim/consim/consensus/registry"
	"github.com/consim/consim/graph"
	"github.com/consim/consim/objective"
	"github.com/consim/consim/problems/regression"
)

// TestSingleAgent shows what the methods are with N = 1 (no edges, no
// duals): the linearized method is SGD x^{k+1} = x^k - tau G(x^k, xi_k) on
// the same samples, and the exact method keeps x^0 (its subproblem
// argmin f has no prox form).
func TestSingleAgent(t *testing.T) {
	g, err := graph.New(1, nil)
	if err != nil {
		t.Fatal(err)
	}
	proc := graph.Bernoulli{G: g}
	d, c := []float64{2, 0.5, 3}, []float64{1, -2, 0.5}
	f := objective.QuadraticNoisy(d, c, 0.3)
	x0 := []float64{3, 1, -1}
	tests := []struct {
		name string
		cfg  Config
		want func(k int, x []float64)
	}{
		{"exact: x stays", Config{}, func(int, []float64) {}},
		{"linearized: SGD", Config{Method: MethodLinearized, Tau: 0.2, Seed: 5}, func(k int, x []float64) {
			rng := graph.StreamSample.Rand(5, uint64(k), 0)
			gr := make([]float64, len(x))
			f.StochGrad(x, gr, rng)
			for l := range x {
				x[l] -= 0.2 * gr[l]
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a, err := NewAgent(tc.cfg, 0, g, proc, f, x0)
			if err != nil {
				t.Fatal(err)
			}
			drv, err := lockstep.New([]consensus.Agent{a})
			if err != nil {
				t.Fatal(err)
			}
			want := append([]float64(nil), x0...)
			var moved float64
			for k := range 40 {
				if err := drv.Round(k); err != nil {
					t.Fatal(err)
				}
				tc.want(k, want)
				if dd := dist(a.X(), want); dd > 1e-14*math.Max(1, norm(want)) {
					t.Fatalf("round %d: x = %v, single-agent method gives %v", k, a.X(), want)
				}
				moved = math.Max(moved, dist(want, x0))
			}
			if tc.cfg.Method == MethodLinearized && moved < 0.1 {
				t.Errorf("SGD moved only %.3g: the comparison is vacuous", moved)
			}
		})
	}
}

// TestReport checks the report's fields against their definitions.
func TestReport(t *testing.T) {
	const N, n, rounds = 5, 3, 17
	p := quadProblem(t, N, n, 0.5, 0.2, 13)
	g := randomGraph(t, N, 0.5, 0.6, 5)
	proc := graph.Bernoulli{G: g, Seed: 1}
	nw := newNetwork(t, Config{Method: MethodLinearized, Seed: 2}, g, proc, p, startPoints(N, n, 2, 6))
	nw.run(t, 0, rounds)
	var idle int64 // agent-rounds without a present edge
	for i, a := range nw.agents {
		r := a.Report()
		x, lam := a.X(), a.Lambda()
		gr := make([]float64, n)
		p.Locals[i].Grad(x, gr)
		var kkt, dsq float64
		for l := range gr {
			v := gr[l]/N + lam[l]
			kkt += v * v
		}
		var steps int64
		for rr := range rounds {
			for _, j := range g.Neighbors(i) {
				if proc.Active(rr, graph.DrawDual, min(i, j), max(i, j)) {
					steps++
					break
				}
			}
		}
		for _, j := range g.Neighbors(i) {
			y := a.EdgeY(j)
			dsq += norm(y) * norm(y)
		}
		switch {
		case r.ID != i || r.Round != rounds:
			t.Errorf("agent %d: ID %d, Round %d; want %d, %d", i, r.ID, r.Round, i, rounds)
		case dist(r.X, x) != 0:
			t.Errorf("agent %d: X = %v, want %v", i, r.X, x)
		case len(r.Measures) != len(Measures()):
			t.Errorf("agent %d: %d measures, %d declared", i, len(r.Measures), len(Measures()))
		case math.Abs(r.Measures[0]-kkt) > 1e-14*(1+kkt):
			t.Errorf("agent %d: kkt share = %v, want %v", i, r.Measures[0], kkt)
		case math.Abs(r.Measures[1]-dsq) > 1e-14*(1+dsq):
			t.Errorf("agent %d: dual share = %v, want sum_e ||y_e||^2 = %v", i, r.Measures[1], dsq)
		case r.GradEvals != steps:
			t.Errorf("agent %d: GradEvals = %d, want one sample per round with a present edge, %d", i, r.GradEvals, steps)
		case r.EdgeDuals != nil:
			t.Errorf("agent %d: EdgeDuals = %v; want none without ReportDuals", i, r.EdgeDuals)
		}
		if dsq == 0 {
			t.Errorf("agent %d: sum ||y_e||^2 = 0: the DualSq check is vacuous", i)
		}
		idle += rounds - steps
	}
	if idle == 0 {
		t.Errorf("every agent had a present edge in every round: the GradEvals check is vacuous")
	}
}

// TestDefaultTau checks tau_i = N / L_i when Config.Tau is 0.
func TestDefaultTau(t *testing.T) {
	g := randomGraph(t, 4, 0, 1, 1)
	f := objective.Quadratic(2, []float64{3, 8}, nil)
	a, err := NewAgent(Config{Method: MethodLinearized}, 1, g, graph.Bernoulli{G: g}, f, []float64{0, 0})
	if err != nil {
		t.Fatal(err)
	}
	if got := a.Tau(); got != 4.0/8 {
		t.Errorf("default tau = %v, want N/L = 0.5", got)
	}
}

func TestNewAgentErrors(t *testing.T) {
	g := randomGraph(t, 3, 0, 1, 1)
	proc := graph.Bernoulli{G: g}
	f := objective.Quadratic(2, nil, nil)
	logit, err := regression.New(regression.Params{Kind: objective.KindLogistic, Dim: 2, SamplesPerAgent: 4, Batch: 1, Reg: 0.1, Box: regression.Unbounded}, 3, 1)
	if err != nil {
		t.Fatal(err)
	}
	x0 := []float64{0, 0}
	cases := []struct {
		name string
		cfg  Config
		id   int
		g    *graph.Graph
		f    objective.Local
		x0   []float64
		want string
	}{
		{"bad method", Config{Method: "gauss"}, 0, g, f, x0, `method "gauss"`},
		{"negative rho", Config{Rho: -1}, 0, g, f, x0, "rho = -1"},
		{"NaN rho", Config{Rho: math.NaN()}, 0, g, f, x0, "rho = NaN"},
		{"infinite tau", Config{Method: MethodLinearized, Tau: math.Inf(1)}, 0, g, f, x0, "tau = +Inf"},
		{"id out of range", Config{}, 3, g, f, x0, "agent id 3"},
		{"negative id", Config{}, -1, g, f, x0, "agent id -1"},
		{"nil graph", Config{}, 0, nil, f, x0, "graph, edge process and objective are required"},
		{"nil objective", Config{}, 0, g, nil, x0, "graph, edge process and objective are required"},
		{"short x0", Config{}, 0, g, f, []float64{1}, "initial point has length 1"},
		{"exact without prox", Config{}, 0, g, logit.Locals[0], x0, "no exact proximal operator"},
		{"default tau without smoothness", Config{Method: MethodLinearized}, 0, g, objective.Quadratic(2, []float64{0, 0}, nil), x0, "default tau"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewAgent(tc.cfg, tc.id, tc.g, proc, tc.f, tc.x0)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("NewAgent: error %v, want one containing %q", err, tc.want)
			}
		})
	}
	if _, err := NewAgent(Config{Method: MethodLinearized, Tau: 1}, 0, g, proc, logit.Locals[0], x0); err != nil {
		t.Errorf("linearized with a logistic local: %v", err)
	}
}

// TestProtocolErrors checks that Receive rejects calls out of order and
// messages that do not belong to the round, and that a repeated Send of
// the due round does not step twice.
func TestProtocolErrors(t *testing.T) {
	g := randomGraph(t, 3, 0, 1, 1)
	proc := graph.Bernoulli{G: g}
	f := objective.Quadratic(2, []float64{1, 1}, []float64{1, -1})
	newA := func() *Agent {
		a, err := NewAgent(Config{Method: MethodLinearized, Tau: 0.3}, 0, g, proc, f, []float64{1, 1})
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	msg := func(from, round int, data []float64) consensus.Msg {
		return consensus.Msg{From: from, To: 0, Round: round, Data: data}
	}
	cases := []struct {
		name string
		send bool
		in   consensus.Inbox
		want string
	}{
		{"receive without send", false, consensus.Inbox{}, "after its send"},
		{"unexpected sender", true, consensus.Inbox{Msgs: []consensus.Msg{msg(0, 0, make([]float64, 2))}}, "not expected"},
		{"wrong round", true, consensus.Inbox{Msgs: []consensus.Msg{msg(1, 4, make([]float64, 2))}}, "round 4"},
		{"wrong length", true, consensus.Inbox{Msgs: []consensus.Msg{msg(1, 0, []float64{0, 0, 0, 0})}}, "4 values, want n = 2"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := newA()
			if tc.send {
				if out := a.Send(0, 0); len(out.Expect) != 2 || len(out.Msgs) != 2 || len(out.Msgs[0].Data) != 2 {
					t.Fatalf("outbox %+v, want x_i to both neighbours on a complete static graph", out)
				}
			}
			err := a.Receive(0, 0, tc.in)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Receive: error %v, want one containing %q", err, tc.want)
			}
		})
	}
	// Phase 1: agent 0 owns both of its edges; it sends one payload,
	// (z_01, y_01, version; z_02, y_02, version), to both and expects each
	// reader's payload back: agent 1's is (version of its copy of {0,1};
	// z_12, y_12, version), 6 values; agent 2's is its two copies'
	// versions, 2 values.
	edgeMsg := func(from int, data ...float64) consensus.Msg {
		return consensus.Msg{From: from, To: 0, Round: 0, Phase: 1, Data: data}
	}
	phase1 := []struct {
		name string
		in   consensus.Inbox
		want string
	}{
		{"ok", consensus.Inbox{Msgs: []consensus.Msg{edgeMsg(1, 0, 0, 0, 0, 0, 0), edgeMsg(2, 1, 0)}}, ""},
		{"lost", consensus.Inbox{Missing: []int{1, 2}}, ""},
		{"short payload", consensus.Inbox{Msgs: []consensus.Msg{edgeMsg(1, 0, 0, 0, 0, 1)}}, "5 values, want 6"},
		{"future version", consensus.Inbox{Msgs: []consensus.Msg{edgeMsg(1, 2, 0, 0, 0, 0, 0)}}, "version"},
		{"fractional version", consensus.Inbox{Msgs: []consensus.Msg{edgeMsg(1, 0.5, 0, 0, 0, 0, 0)}}, "version"},
	}
	for _, tc := range phase1 {
		t.Run("phase 1, "+tc.name, func(t *testing.T) {
			a := newA()
			a.Send(0, 0)
			if err := a.Receive(0, 0, consensus.Inbox{Msgs: []consensus.Msg{msg(1, 0, []float64{0, 0}), msg(2, 0, []float64{0, 0})}}); err != nil {
				t.Fatal(err)
			}
			out := a.Send(0, 1)
			if len(out.Msgs) != 2 || len(out.Msgs[0].Data) != 10 || &out.Msgs[0].Data[0] != &out.Msgs[1].Data[0] ||
				out.Msgs[0].Data[4] != 1 || out.Msgs[0].Data[9] != 1 || len(out.Expect) != 2 {
				t.Fatalf("phase-1 outbox %+v, want one payload (z_e, y_e, version 1) x 2 to both readers", out)
			}
			err := a.Receive(0, 1, tc.in)
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
	a := newA()
	if out := a.Send(1, 0); len(out.Msgs) != 0 || len(out.Expect) != 0 {
		t.Errorf("Send of a future round: %+v, want an empty outbox", out)
	}
	a.Send(0, 0)
	x1 := a.X()
	a.Send(0, 0)
	if dist(a.X(), x1) != 0 || dist(x1, []float64{1, 1}) == 0 {
		t.Errorf("x after one Send %v, after a repeated Send %v: want one step, taken once", x1, a.X())
	}
}

// TestParams checks the registry parameters: defaults validate, bad
// values and a misplaced step are named by key.
func TestParams(t *testing.T) {
	tau := func(v float64) *float64 { return &v }
	tests := []struct {
		alg  func() registry.Algorithm
		rho  float64
		tau  *float64
		want string
	}{
		{Exact, DefaultRho, nil, ""},
		{Linearized, 0.5, tau(0.1), ""},
		{Exact, 0, nil, "penalty: must be a finite number > 0, got 0"},
		{Exact, math.Inf(1), nil, "penalty"},
		{Exact, 1, tau(0.1), "step: only applies to radmm_linearized"},
		{Linearized, 1, tau(-1), "step: must be a finite number > 0, got -1"},
	}
	for _, tc := range tests {
		a := tc.alg()
		s := a.New().(*Params)
		if err := s.Validate(); err != nil {
			t.Errorf("%s: defaults: %v", a.Name, err)
		}
		s.Penalty, s.Step = tc.rho, tc.tau
		err := s.Validate()
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s rho %v: %v", a.Name, tc.rho, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s rho %v: error %v, want %q", a.Name, tc.rho, err, tc.want)
		}
	}
}
