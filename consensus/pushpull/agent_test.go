package pushpull

import (
	"math"
	"strings"
	"testing"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/consensus/lockstep"
	"github.com/consim/consim/graph"
	"github.com/consim/consim/objective"
)

// TestAgentsMatchReference steps the agents in lockstep and the matrix
// form X <- R(k)(X - alpha Y), Y <- C(k) Y + G(k+1) - G(k) (and the AB
// form) on the same arc draws, with arcs dropping out, and checks that
// every x_i and y_i has the reference's bits in every round.
func TestAgentsMatchReference(t *testing.T) {
	const rounds = 150
	d := randomDigraph(t, 10, 0.25, 0.5, 3)
	kout, err := graph.KOut(9, 2, 4)
	if err != nil {
		t.Fatal(err)
	}
	if kout, err = kout.WithRandomP(0.3, 0.9, 8); err != nil {
		t.Fatal(err)
	}
	seq, err := graph.SplitSequence(randomDigraph(t, 10, 0.3, 0.8, 5), 4, 6)
	if err != nil {
		t.Fatal(err)
	}
	torus, err := graph.Grid(3, 3, true)
	if err != nil {
		t.Fatal(err)
	}
	if torus, err = torus.WithUniformP(0.6); err != nil {
		t.Fatal(err)
	}
	ls := problem(t, objective.KindLeastSquares, 10, 4, 20, 2)
	logit := problem(t, objective.KindLogistic, 10, 4, 20, 3)
	tests := []struct {
		name   string
		p      Params
		d      *graph.Digraph
		arcs   graph.ArcProcess
		locals []objective.Local
	}{
		{"push-pull random digraph p=0.5 least squares", Params{Step: 0.2, Form: FormPushPull}, d, graph.ArcBernoulli{D: d, Seed: 21}, ls.Locals},
		{"push-pull k-out logistic", Params{Step: 0.5, Form: FormPushPull}, kout, graph.ArcBernoulli{D: kout, Seed: 22}, logit.Locals[:9]},
		{"ab random digraph logistic", Params{Step: 0.5, Form: FormAB}, d, graph.ArcBernoulli{D: d, Seed: 23}, logit.Locals},
		{"ab sequence of period 4", Params{Step: 0.1, Form: FormAB}, seq.Union(), graph.SequenceArcs{S: seq, Seed: 24}, ls.Locals},
		{"push-pull undirected torus", Params{Step: 0.2, Form: FormPushPull}, graph.Symmetric(torus), graph.SymmetricArcs{G: torus, Edges: graph.Bernoulli{G: torus, Seed: 25}}, ls.Locals[:9]},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			x0 := startPoints(tc.d.N, 4, 2, 9)
			nw := newNetwork(t, tc.p, tc.d, tc.arcs, tc.locals, x0)
			ref, err := NewReference(tc.p, tc.d, tc.arcs, tc.locals, x0)
			if err != nil {
				t.Fatal(err)
			}
			var moved float64
			down := 0
			for r := range rounds {
				nw.round(t, r)
				ref.Step(r)
				for i, a := range nw.agents {
					for _, v := range []struct {
						name      string
						got, want []float64
					}{{"x", a.X(), ref.X(i)}, {"y", a.Y(), ref.Y(i)}} {
						for l := range v.got {
							if math.Float64bits(v.got[l]) != math.Float64bits(v.want[l]) {
								t.Fatalf("round %d agent %d: %s[%d] = %v, reference %v", r, i, v.name, l, v.got[l], v.want[l])
							}
						}
					}
					moved = math.Max(moved, maxAbsDiff(a.X(), x0[i]))
					down += tc.d.OutDegree(i) - len(graph.OutUp(tc.d, tc.arcs, r, arcDraw, i, nil))
				}
			}
			if moved < 0.1 || down == 0 {
				t.Fatalf("iterates moved %.3g, %d arcs down: the comparison is vacuous", moved, down)
			}
			var evals int64
			for _, a := range nw.agents {
				evals += a.Report().GradEvals
			}
			if want := int64(tc.d.N * (rounds + 1)); evals != ref.GradEvals() || evals != want {
				t.Errorf("gradient calls: agents %d, reference %d, want %d", evals, ref.GradEvals(), want)
			}
		})
	}
}

// TestTracking: in every round sum_i y_i = sum_i grad f_i(x_i) (C is
// column-stochastic), to rounding, with arcs dropping out; and after a
// lost message the sum misses the lost share while x_i still averages
// (v_i stands in for the missing v_j).
func TestTracking(t *testing.T) {
	d := randomDigraph(t, 8, 0.3, 0.5, 2)
	pr := problem(t, objective.KindLogistic, 8, 3, 20, 4)
	x0 := startPoints(8, 3, 1, 5)
	nw := newNetwork(t, Params{Step: 0.3, Form: FormPushPull}, d, graph.ArcBernoulli{D: d, Seed: 3}, pr.Locals, x0)
	g := make([]float64, 3)
	for r := range 100 {
		nw.round(t, r)
		sy, sg := make([]float64, 3), make([]float64, 3)
		for i, a := range nw.agents {
			pr.Locals[i].Grad(a.X(), g)
			for l := range 3 {
				sy[l] += a.y[l]
				sg[l] += g[l]
			}
		}
		if e := maxAbsDiff(sy, sg); e > 1e-13 {
			t.Fatalf("round %d: sum y - sum grad = %.3g", r, e)
		}
	}

	full := randomDigraph(t, 5, 0.5, 1, 3)
	const to = 2
	from := full.In(to)[0]
	lossy := newNetwork(t, Params{Step: 0.3, Form: FormPushPull}, full, graph.ArcBernoulli{D: full, Seed: 1}, pr.Locals[:5], x0[:5],
		lockstep.WithDrop(func(k, ph, i, j int) bool { return i == from && j == to }))
	ref, _ := NewReference(Params{Step: 0.3, Form: FormPushPull}, full, graph.ArcBernoulli{D: full, Seed: 1}, pr.Locals[:5], x0[:5])
	v := func(i int) []float64 { // v_i = x_i - alpha y_i at round 0
		out := make([]float64, 3)
		for l := range out {
			out[l] = ref.X(i)[l] - 0.3*ref.Y(i)[l]
		}
		return out
	}
	want := make([]float64, 3)
	srcs := append(append([]int(nil), full.In(to)...), to)
	for _, j := range srcs {
		src := v(j)
		if j == from {
			src = v(to)
		}
		for l := range want {
			want[l] += src[l] / float64(len(srcs))
		}
	}
	lossy.round(t, 0)
	if e := maxAbsDiff(lossy.agents[to].X(), want); e > 1e-15 {
		t.Errorf("x_%d after a lost message = %v, want %v", to, lossy.agents[to].X(), want)
	}
}

// TestConverges: on logistic regression over 10 agents on a random
// digraph whose arcs are each up in half the rounds, both forms bring
// every x_i to the minimizer x* of package objective's central solver to
// 1e-9 (a constant step and exact limit, unlike DGD and subgradient-push).
func TestConverges(t *testing.T) {
	pr := problem(t, objective.KindLogistic, 10, 4, 30, 7)
	d := randomDigraph(t, 10, 0.2, 0.5, 8)
	for _, p := range []Params{{Step: 1, Form: FormPushPull}, {Step: 1, Form: FormAB}} {
		nw := newNetwork(t, p, d, graph.ArcBernoulli{D: d, Seed: 9}, pr.Locals, startPoints(10, 4, 1, 2))
		rounds := 0
		var worst float64
		for rounds = 0; rounds < 20000; rounds++ {
			nw.round(t, rounds)
			if rounds%100 == 99 {
				worst = 0
				for _, a := range nw.agents {
					worst = math.Max(worst, maxAbsDiff(a.X(), pr.XStar))
				}
				if worst < 1e-9 {
					break
				}
			}
		}
		if worst >= 1e-9 {
			t.Errorf("%s: max_i ||x_i - x*||_inf = %.3g after %d rounds", p.Form, worst, rounds)
		} else {
			t.Logf("%s: max_i ||x_i - x*||_inf = %.3g after %d rounds", p.Form, worst, rounds+1)
		}
	}
}

// TestReceiveErrors: a round out of order, a message of the wrong length
// and an unexpected sender are errors; so are bad arguments.
func TestReceiveErrors(t *testing.T) {
	d := randomDigraph(t, 4, 0.5, 1, 1)
	f := problem(t, objective.KindLeastSquares, 4, 2, 5, 1).Locals[0]
	a, err := NewAgent(DefaultParams(), 0, d, graph.ArcBernoulli{D: d, Seed: 1}, f, []float64{1, 2})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Receive(3, 0, consensus.Inbox{}); err == nil || !strings.Contains(err.Error(), "expected round 0") {
		t.Errorf("round out of order: %v", err)
	}
	out := a.Send(0, 0)
	if len(out.Expect) == 0 {
		t.Fatal("agent 0 expects no one")
	}
	if err := a.Receive(0, 0, consensus.Inbox{Msgs: []consensus.Msg{{From: out.Expect[0], To: 0, Data: []float64{1}}}}); err == nil || !strings.Contains(err.Error(), "has 1 values, want 4") {
		t.Errorf("short message: %v", err)
	}
	b, _ := NewAgent(DefaultParams(), 0, d, graph.ArcBernoulli{D: d, Seed: 1}, f, []float64{1, 2})
	b.Send(0, 0)
	if err := b.Receive(0, 0, consensus.Inbox{Msgs: []consensus.Msg{{From: 99, To: 0, Data: make([]float64, 4)}}}); err == nil || !strings.Contains(err.Error(), "unexpected message from agent 99") {
		t.Errorf("unexpected sender: %v", err)
	}
	if _, err := NewAgent(DefaultParams(), 0, d, graph.ArcBernoulli{D: d}, nil, []float64{1, 2}); err == nil {
		t.Error("no objective: no error")
	}
	if _, err := NewAgent(DefaultParams(), 0, d, graph.ArcBernoulli{D: d}, f, []float64{1}); err == nil {
		t.Error("wrong dimension: no error")
	}
	if err := (Params{Step: math.Inf(1), Form: "pull_push"}).Validate(); err == nil ||
		!strings.Contains(err.Error(), "step: must be a finite number > 0, got .inf") || !strings.Contains(err.Error(), `form: "pull_push" is not one of push_pull, ab`) {
		t.Errorf("bad params: %v", err)
	}
}
