package lockstep

import (
	"strings"
	"testing"

	"github.com/consim/consim/consensus"
)

// groupAgent reduces its id+1 over its group and asks for two
// evaluations of its id.
type groupAgent struct {
	id    int
	group []int
	in    consensus.Inbox
}

func (a *groupAgent) ID() int        { return a.id }
func (a *groupAgent) Phases(int) int { return 1 }
func (a *groupAgent) Send(int, int) consensus.Outbox {
	x := float64(a.id)
	return consensus.Outbox{Reduce: []float64{x + 1}, Group: a.group,
		Evals: []consensus.EvalRequest{{Op: 1, Arg: []float64{x}}, {Op: 2, Arg: []float64{x}}}}
}
func (a *groupAgent) Receive(_, _ int, in consensus.Inbox) error { a.in = in; return nil }
func (a *groupAgent) Report() consensus.Report                   { return consensus.Report{ID: a.id} }

// opOracle returns op * arg.
type opOracle struct{}

func (opOracle) Evaluate(req consensus.EvalRequest, out []float64) ([]float64, error) {
	return append(out, float64(req.Op)*req.Arg[0]), nil
}

func TestGroupReduceAndEvals(t *testing.T) {
	g01, g23 := []int{0, 1}, []int{2, 3}
	as := []*groupAgent{{id: 0, group: g01}, {id: 1, group: g01}, {id: 2, group: g23}, {id: 3, group: g23}, {id: 4}}
	agents := make([]consensus.Agent, len(as))
	for i, a := range as {
		agents[i] = a
	}
	d, err := New(agents, WithOracle(opOracle{}))
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Round(0); err != nil {
		t.Fatal(err)
	}
	want := []float64{3, 3, 7, 7, 5} // 1+2, 1+2, 3+4, 3+4, and agent 4 alone
	for i, a := range as {
		if len(a.in.Reduce) != 1 || a.in.Reduce[0] != want[i] {
			t.Errorf("agent %d: reduce %v, want %v", i, a.in.Reduce, want[i])
		}
		if e := a.in.Evals; len(e) != 2 || e[0][0] != float64(i) || e[1][0] != 2*float64(i) {
			t.Errorf("agent %d: evals %v, want [[%d] [%d]]", i, e, i, 2*i)
		}
	}

	as[1].group = []int{1, 2}
	if err := d.Round(1); err == nil || !strings.Contains(err.Error(), "is in group") {
		t.Errorf("inconsistent groups: %v", err)
	}
	as[1].group = g01
	d2, _ := New(agents)
	if err := d2.Round(0); err == nil || !strings.Contains(err.Error(), "WithOracle") {
		t.Errorf("evaluations without an oracle: %v", err)
	}
}
