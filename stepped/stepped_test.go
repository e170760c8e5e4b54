package stepped_test

import (
	"math"
	"strings"
	"testing"

	_ "github.com/consim/consim/catalog"
	"github.com/consim/consim/consensus"
	"github.com/consim/consim/consensus/lockstep"
	"github.com/consim/consim/observe"
	"github.com/consim/consim/scenarios"
	"github.com/consim/consim/stepped"
)

// setup builds a small ALM run on a 6 x 6 torus whose edges are each up
// with probability 0.7, with the global safeguard's reduce every 10
// rounds.
func setup(t *testing.T, sets ...string) *scenarios.Setup {
	t.Helper()
	sets = append([]string{"agents=36", "graph.rows=6", "graph.cols=6", "graph.p=0.7", "rounds=60", "runtime.transport=chan"}, sets...)
	s, err := scenarios.LoadWith("../scenarios/scale_10k.yaml", sets...)
	if err != nil {
		t.Fatal(err)
	}
	st, err := s.Build()
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func agents(t *testing.T, st *scenarios.Setup) []consensus.Agent {
	t.Helper()
	as, err := st.Agents()
	if err != nil {
		t.Fatal(err)
	}
	return as
}

// TestSteppedMatchesLockstep runs the same agents under consensus/lockstep
// (single-threaded) and under the engine with 1, 2, 3 and 7 workers, and
// compares every agent's x_i bit for bit after every round.
func TestSteppedMatchesLockstep(t *testing.T) {
	st := setup(t)
	ref := agents(t, st)
	d, err := lockstep.New(ref, lockstep.Symmetric())
	if err != nil {
		t.Fatal(err)
	}
	var engines []*stepped.Engine
	for _, w := range []int{1, 2, 3, 7} {
		e, err := stepped.New(agents(t, st), stepped.Options{Workers: w})
		if err != nil {
			t.Fatal(err)
		}
		engines = append(engines, e)
	}
	for r := range 60 {
		if err := d.Round(r); err != nil {
			t.Fatal(err)
		}
		for _, e := range engines {
			if err := e.Round(r); err != nil {
				t.Fatalf("%d workers: %v", e.Workers(), err)
			}
			for i, a := range e.Agents() {
				got, want := a.Report().X, ref[i].Report().X
				for k := range want {
					if math.Float64bits(got[k]) != math.Float64bits(want[k]) {
						t.Fatalf("%d workers, round %d, agent %d: x[%d] = %v, lockstep %v", e.Workers(), r, i, k, got[k], want[k])
					}
				}
			}
		}
	}
	if tr := engines[0].Traffic(); tr.Msgs != d.Traffic().Sent {
		t.Errorf("engine delivered %d messages, lockstep routed %d", tr.Msgs, d.Traffic().Sent)
	}
}

// TestMeasureMatchesMetrics compares the workers' measures with
// observe.Measure and observe.ReduceMeasures over all reports, bit for
// bit.
func TestMeasureMatchesMetrics(t *testing.T) {
	st := setup(t, "problem.init.kind=random")
	e, err := stepped.New(agents(t, st), stepped.Options{Workers: 3})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Run(0, 25); err != nil {
		t.Fatal(err)
	}
	prob, err := st.Problem()
	if err != nil {
		t.Fatal(err)
	}
	decls := st.Run.(interface{ Measures() []consensus.Measure }).Measures()
	got, err := e.Measure(stepped.Measures{Graph: st.Graph, Problem: prob, Decls: decls})
	if err != nil {
		t.Fatal(err)
	}
	reps := make([]consensus.Report, len(e.Agents()))
	for i, a := range e.Agents() {
		reps[i] = a.Report()
	}
	want, err := observe.Measure(prob, st.Graph, reps)
	if err != nil {
		t.Fatal(err)
	}
	extra, err := observe.ReduceMeasures(decls, reps)
	if err != nil {
		t.Fatal(err)
	}
	close := func(name string, a, b float64) {
		if math.Float64bits(a) != math.Float64bits(b) {
			t.Errorf("%s = %.17g, observe %.17g", name, a, b)
		}
	}
	if got.Round != want.Round || got.GradEvals != want.GradEvals {
		t.Errorf("round %d grad evals %d, metrics round %d grad evals %d", got.Round, got.GradEvals, want.Round, want.GradEvals)
	}
	close("consensus_err", got.ConsensusErr, want.ConsensusErr)
	close("consensus_err_rel", got.ConsensusErrRel, want.ConsensusErrRel)
	close("feasibility", got.Feasibility, want.Feasibility)
	close("obj_value", got.ObjValue, want.ObjValue)
	close("opt_gap", got.OptGap, want.OptGap)
	close("dist_to_opt", got.DistToOpt, want.DistToOpt)
	if len(got.Extra) != len(extra) {
		t.Fatalf("%d declared measures, metrics %d", len(got.Extra), len(extra))
	}
	for k := range extra {
		close(extra[k].Name, got.Extra[k].Value, extra[k].Value)
	}
	if want.ConsensusErr == 0 || want.Feasibility == 0 {
		t.Errorf("degenerate comparison: consensus error %v, feasibility %v", want.ConsensusErr, want.Feasibility)
	}
}

// TestMisrouted checks that a message to an agent that does not expect it
// is an error naming both agents.
func TestMisrouted(t *testing.T) {
	as := []consensus.Agent{&rogue{id: 0, to: 1}, &rogue{id: 1, to: -1}}
	e, err := stepped.New(as, stepped.Options{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	err = e.Round(0)
	if err == nil || !strings.Contains(err.Error(), "agent 0 sends to agent 1, which does not expect it") {
		t.Errorf("Round = %v, want an error naming the misrouted message", err)
	}
}

// rogue sends one message to agent to (if >= 0) and expects nothing.
type rogue struct{ id, to int }

func (r *rogue) ID() int                                 { return r.id }
func (r *rogue) Phases(int) int                          { return 1 }
func (r *rogue) Report() consensus.Report                { return consensus.Report{ID: r.id, X: []float64{0}} }
func (r *rogue) Receive(int, int, consensus.Inbox) error { return nil }
func (r *rogue) Send(t, ph int) consensus.Outbox {
	if r.to < 0 {
		return consensus.Outbox{}
	}
	return consensus.Outbox{Msgs: []consensus.Msg{{From: r.id, To: r.to, Round: t, Phase: ph, Data: []float64{1}}}}
}
