package pushsum

import (
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/consensus/lockstep"
	"github.com/consim/consim/graph"
	"github.com/consim/consim/objective"
)

// TestAgentsMatchReference steps the agents in lockstep and the matrix
// form [X, y] <- C(t) [X, y] (with the gradient step for subgradient-push)
// on the same arc draws, with arcs dropping out, and checks that every
// estimate z_i and weight y_i has the reference's bits in every round.
func TestAgentsMatchReference(t *testing.T) {
	const rounds = 150
	d := randomDigraph(t, 10, 0.25, 0.5, 3)
	kout, err := graph.KOut(12, 3, 4)
	if err != nil {
		t.Fatal(err)
	}
	if kout, err = kout.WithRandomP(0.3, 0.9, 8); err != nil {
		t.Fatal(err)
	}
	seq, err := graph.SplitSequence(randomDigraph(t, 10, 0.3, 0.8, 5), 3, 6)
	if err != nil {
		t.Fatal(err)
	}
	ring, err := graph.Ring(10)
	if err != nil {
		t.Fatal(err)
	}
	if ring, err = ring.WithUniformP(0.6); err != nil {
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
		{"push-sum random digraph p=0.5", Params{}, d, graph.ArcBernoulli{D: d, Seed: 21}, nil},
		{"push-sum k-out random p", Params{}, kout, graph.ArcBernoulli{D: kout, Seed: 22}, nil},
		{"push-sum sequence of period 3", Params{}, seq.Union(), graph.SequenceArcs{S: seq, Seed: 23}, nil},
		{"push-sum undirected ring", Params{}, graph.Symmetric(ring), graph.SymmetricArcs{G: ring, Edges: graph.Bernoulli{G: ring, Seed: 24}}, nil},
		{"subgradient-push sqrt least squares", Params{Step: 0.5, Schedule: ScheduleSqrt}, d, graph.ArcBernoulli{D: d, Seed: 25}, ls.Locals},
		{"subgradient-push inverse logistic", Params{Step: 2, Schedule: ScheduleInverse}, d, graph.ArcBernoulli{D: d, Seed: 26}, logit.Locals},
		{"subgradient-push constant sequence", Params{Step: 0.05, Schedule: ScheduleConstant}, seq.Union(), graph.SequenceArcs{S: seq, Seed: 27}, ls.Locals},
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
					z, want := a.Z(), ref.Z(i)
					for l := range z {
						if math.Float64bits(z[l]) != math.Float64bits(want[l]) {
							t.Fatalf("round %d agent %d: z[%d] = %v, reference %v", r, i, l, z[l], want[l])
						}
					}
					if math.Float64bits(a.Y()) != math.Float64bits(ref.Y(i)) {
						t.Fatalf("round %d agent %d: y = %v, reference %v", r, i, a.Y(), ref.Y(i))
					}
					moved = math.Max(moved, maxAbsDiff(z, x0[i]))
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
			if evals != ref.GradEvals() || (tc.locals != nil) != (evals > 0) {
				t.Errorf("gradient calls: agents %d, reference %d", evals, ref.GradEvals())
			}
		})
	}
}

// TestPushSumAverage: on a random strongly connected digraph of 64 agents
// whose arcs are each up in half the rounds, every estimate reaches the
// exact average of the initial points to 1e-12, sum_i x_i and sum_i y_i = N
// are kept, and the weights y_i end far from 1 (the digraph is
// unbalanced: without the ratio, plain mixing would be wrong).
func TestPushSumAverage(t *testing.T) {
	const N, rounds = 64, 400
	d := randomDigraph(t, N, 0.05, 0.5, 1)
	x0 := startPoints(N, 3, 5, 2)
	nw := newNetwork(t, Params{}, d, graph.ArcBernoulli{D: d, Seed: 7}, nil, x0)
	avg := mean(x0)
	for r := range rounds {
		nw.round(t, r)
	}
	var worst, ysum, ymin, ymax float64
	ymin = math.Inf(1)
	xsum := make([]float64, 3)
	for _, a := range nw.agents {
		worst = math.Max(worst, maxAbsDiff(a.Z(), avg))
		ysum += a.Y()
		ymin, ymax = math.Min(ymin, a.Y()), math.Max(ymax, a.Y())
		for l := range xsum {
			xsum[l] += a.xy[l]
		}
	}
	if worst > 1e-12 {
		t.Errorf("after %d rounds the estimates are %.3g from the average", rounds, worst)
	}
	for l := range xsum {
		xsum[l] /= N
	}
	if math.Abs(ysum-N) > 1e-11 || maxAbsDiff(xsum, avg) > 1e-12 {
		t.Errorf("sums not kept: sum y = %v, sum x / N = %v, average %v", ysum, xsum, avg)
	}
	if ymax/ymin < 1.5 {
		t.Errorf("weights in [%.3g, %.3g]: the digraph is balanced and the test shows nothing", ymin, ymax)
	}
	t.Logf("max_i ||z_i - xbar(0)||_inf = %.3g after %d rounds; y_i in [%.3g, %.3g]", worst, rounds, ymin, ymax)
}

// TestMissingMessageLosesMass drops one message and checks the update by
// hand: the recipient sums what arrived, so the dropped share of x_j and
// y_j is lost from the sums, and its estimate is the ratio of the rest.
func TestMissingMessageLosesMass(t *testing.T) {
	d := randomDigraph(t, 6, 0.4, 1, 2)
	arcs := graph.ArcBernoulli{D: d, Seed: 1}
	x0 := startPoints(6, 2, 1, 3)
	const to = 3
	from := d.In(to)[0]
	nw := newNetwork(t, Params{}, d, arcs, nil, x0, lockstep.WithDrop(func(t, ph, i, j int) bool { return i == from && j == to }))
	nw.round(t, 0)
	want := make([]float64, 3)
	for _, j := range append(append([]int(nil), d.In(to)...), to) {
		if j == from {
			continue
		}
		c := graph.StochasticWeight(d.OutDegree(j))
		for l := range 2 {
			want[l] += c * x0[j][l]
		}
		want[2] += c
	}
	z := nw.agents[to].Z()
	for l := range 2 {
		if math.Abs(z[l]-want[l]/want[2]) > 1e-15 {
			t.Errorf("z_%d = %v, want %v", to, z, []float64{want[0] / want[2], want[1] / want[2]})
		}
	}
	var ysum float64
	for _, a := range nw.agents {
		ysum += a.Y()
	}
	if lost := graph.StochasticWeight(d.OutDegree(from)); math.Abs(ysum-(6-lost)) > 1e-14 {
		t.Errorf("sum y = %v, want 6 - %v", ysum, lost)
	}
}

// TestReceiveErrors: a round out of order, a message of the wrong length
// and a message from an agent not expected are errors.
func TestReceiveErrors(t *testing.T) {
	d := randomDigraph(t, 4, 0.5, 1, 1)
	a, err := NewAgent(Params{}, 0, d, graph.ArcBernoulli{D: d, Seed: 1}, nil, []float64{1, 2})
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
	j := out.Expect[0]
	if err := a.Receive(0, 0, consensus.Inbox{Msgs: []consensus.Msg{{From: j, To: 0, Data: []float64{1}}}}); err == nil || !strings.Contains(err.Error(), "message from agent "+strconv.Itoa(j)+" has 1 values, want 3") {
		t.Errorf("short message: %v", err)
	}
	b, _ := NewAgent(Params{}, 0, d, graph.ArcBernoulli{D: d, Seed: 1}, nil, []float64{1, 2})
	b.Send(0, 0)
	if err := b.Receive(0, 0, consensus.Inbox{Msgs: []consensus.Msg{{From: 99, To: 0, Data: []float64{1, 2, 3}}}}); err == nil || !strings.Contains(err.Error(), "unexpected message from agent 99") {
		t.Errorf("unexpected sender: %v", err)
	}
	for _, bad := range []struct {
		name string
		f    func() error
	}{
		{"id", func() error {
			_, err := NewAgent(Params{}, 4, d, graph.ArcBernoulli{D: d}, nil, []float64{1})
			return err
		}},
		{"empty", func() error { _, err := NewAgent(Params{}, 0, d, graph.ArcBernoulli{D: d}, nil, nil); return err }},
		{"no digraph", func() error {
			_, err := NewAgent(Params{}, 0, nil, graph.ArcBernoulli{D: d}, nil, []float64{1})
			return err
		}},
		{"bad step", func() error {
			_, err := NewAgent(Params{Step: -1, Schedule: ScheduleSqrt}, 0, d, graph.ArcBernoulli{D: d}, problem(t, objective.KindLeastSquares, 4, 1, 5, 1).Locals[0], []float64{1})
			return err
		}},
	} {
		if err := bad.f(); err == nil {
			t.Errorf("%s: no error", bad.name)
		}
	}
}

func TestParams(t *testing.T) {
	if err := DefaultParams().Validate(); err != nil {
		t.Fatal(err)
	}
	err := Params{Step: 0, Schedule: "linear"}.Validate()
	if err == nil || !strings.Contains(err.Error(), "step: must be a finite number > 0") || !strings.Contains(err.Error(), `schedule: "linear" is not one of sqrt, inverse, constant`) {
		t.Errorf("bad params: %v", err)
	}
	for _, tc := range []struct {
		p    Params
		t    int
		want float64
	}{
		{Params{Step: 2, Schedule: ScheduleSqrt}, 4, 1},
		{Params{Step: 2, Schedule: ScheduleInverse}, 4, 0.5},
		{Params{Step: 2, Schedule: ScheduleConstant}, 4, 2},
	} {
		if got := tc.p.StepAt(tc.t); got != tc.want {
			t.Errorf("%s: alpha(%d) = %v, want %v", tc.p.Schedule, tc.t, got, tc.want)
		}
	}
}
