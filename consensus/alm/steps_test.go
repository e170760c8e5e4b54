package alm

import (
	"math"
	"strings"
	"testing"

	"github.com/consim/consim/graph"
	"github.com/consim/consim/objective"
)

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-12*math.Max(math.Abs(a), math.Abs(b)) }

func TestPresets(t *testing.T) {
	cases := []struct {
		name string
		got  Steps
		want Steps
	}{
		{
			// mu = 2, L_K = 0.5 + 4 + 2 = 6.5, tau = 1/(2 L_K) = 1/13.
			name: "practical, short horizon",
			got:  Practical(Constants{Lf: 0.5, NormA: 2}, 100),
			want: Steps{Eta: 0.005408653846153846, Tau: 0.07692307692307693, Rho: 1, Mu: 2, Beta: 0.15384615384615385, My: DefaultMy, TauSchedule: TauConstant},
		},
		{
			// tau = 10 / (6.5 * 100).
			name: "practical, long horizon",
			got:  Practical(Constants{Lf: 0.5, NormA: 2}, 10000),
			want: Steps{Eta: 0.0010817307692307692, Tau: 0.015384615384615385, Rho: 1, Mu: 2, Beta: 0.03076923076923077, My: DefaultMy, TauSchedule: TauConstant},
		},
		{
			// No edges: no dual step; mu = 4, L_K = 5, tau = 1/10.
			name: "practical, single agent",
			got:  Practical(Constants{Lf: 1}, 1),
			want: Steps{Eta: 0, Tau: 0.1, Rho: 1, Mu: 4, Beta: 0.4, My: DefaultMy, TauSchedule: TauConstant},
		},
		{
			// mu = 4, L_K = 6, tau = 1/(6 * 36 * 10), eta = tau/200,
			// beta = eta/(36 mu).
			name: "theory",
			got:  Theory(Constants{Lf: 1, NormA: 1}, 100),
			want: Steps{Eta: 2.3148148148148148e-06, Tau: 0.000462962962962963, Rho: 1, Mu: 4, Beta: 1.607510288065844e-08, My: DefaultMy, TauSchedule: TauConstant},
		},
	}
	for _, tc := range cases {
		g, w := tc.got, tc.want
		if !near(g.Eta, w.Eta) || !near(g.Tau, w.Tau) || !near(g.Rho, w.Rho) || !near(g.Mu, w.Mu) ||
			!near(g.Beta, w.Beta) || g.My != w.My || g.TauSchedule != w.TauSchedule {
			t.Errorf("%s:\n got %+v\nwant %+v", tc.name, g, w)
		}
	}
}

func TestTauSchedule(t *testing.T) {
	p := Steps{Tau: 0.3}
	if p.tauAt(8) != 0.3 {
		t.Errorf("constant: tau_8 = %v", p.tauAt(8))
	}
	p.TauSchedule = TauSqrt
	if !near(p.tauAt(8), 0.1) || p.tauAt(0) != 0.3 {
		t.Errorf("sqrt: tau_0 = %v, tau_8 = %v, want 0.3, 0.1", p.tauAt(0), p.tauAt(8))
	}
}

func TestNormEW(t *testing.T) {
	complete := func(n int, p float64) []graph.Edge {
		var es []graph.Edge
		for i := 0; i < n; i++ {
			for j := i + 1; j < n; j++ {
				es = append(es, graph.Edge{I: i, J: j, P: p})
			}
		}
		return es
	}
	cases := []struct {
		name  string
		n     int
		edges []graph.Edge
		want  float64
	}{
		{"no edges", 1, nil, 0},
		{"single edge p=0.5", 2, []graph.Edge{{I: 0, J: 1, P: 0.5}}, 0.5 * math.Sqrt2},
		{"complete K5 p=0.3", 5, complete(5, 0.3), 0.3 * math.Sqrt(5)},
		{"ring C4", 4, []graph.Edge{{I: 0, J: 1, P: 1}, {I: 1, J: 2, P: 1}, {I: 2, J: 3, P: 1}, {I: 0, J: 3, P: 1}}, 2},
		// Star S3 with weights w1 = 0.25, w2 = 1: lambda_max of
		// [[1.25,-0.25,-1],[-0.25,0.25,0],[-1,0,1]] is (2.5 + sqrt(2.5^2 - 4*0.75))/2.
		{"star, mixed p", 3, []graph.Edge{{I: 0, J: 1, P: 0.5}, {I: 0, J: 2, P: 1}}, math.Sqrt((2.5 + math.Sqrt(6.25-3)) / 2)},
	}
	for _, tc := range cases {
		g, err := graph.New(tc.n, tc.edges)
		if err != nil {
			t.Fatal(err)
		}
		locals := make([]objective.Local, tc.n)
		for i := range locals {
			locals[i] = quad(1, []float64{0}, 0)
		}
		c, err := ConstantsFor(g, locals)
		if err != nil {
			t.Fatal(err)
		}
		if got := c.NormA; math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("%s: ||E[W]|| = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestConstantsFor(t *testing.T) {
	g, err := graph.New(2, []graph.Edge{{I: 0, J: 1, P: 0.5}})
	if err != nil {
		t.Fatal(err)
	}
	locals := []objective.Local{quad(3, []float64{0}, 0), quad(1, []float64{0}, 0)}
	c, err := ConstantsFor(g, locals)
	if err != nil {
		t.Fatal(err)
	}
	if c.Lf != 1.5 || math.Abs(c.NormA-0.5*math.Sqrt2) > 1e-12 {
		t.Errorf("got %+v, want Lf 1.5, NormA %v", c, 0.5*math.Sqrt2)
	}
	// L_p = 0.5 [[1,-1],[-1,1]] has lambda_max 1 > ||E[W]||^2 = 0.5.
	if math.Abs(c.SecondMoment-1) > 1e-12 {
		t.Errorf("SecondMoment = %v, want 1", c.SecondMoment)
	}
	p := Practical(c, 100)
	if lk := c.Lf + 1*c.SecondMoment + p.Mu; math.Abs(p.Tau-math.Min(1/(2*lk), PracticalCTau/(lk*10))) > 1e-15 {
		t.Errorf("Practical tau = %v does not use L_K = L_f + rho M_2 + mu = %v", p.Tau, lk)
	}
	if _, err := ConstantsFor(g, locals[:1]); err == nil || !strings.Contains(err.Error(), "objectives") {
		t.Errorf("one objective for two agents: error %v", err)
	}
	if _, err := ConstantsFor(nil, locals); err == nil {
		t.Errorf("nil graph: no error")
	}
}
