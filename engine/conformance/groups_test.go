package conformance_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/consim/consim/catalog"
	"github.com/consim/consim/consensus"
	"github.com/consim/consim/consensus/registry"
	"github.com/consim/consim/graph"
)

// registryWithGroups is the shipped registry and the test algorithm
// groups.
func registryWithGroups(t *testing.T) *registry.Registry {
	t.Helper()
	reg := catalog.Default()
	err := reg.RegisterAlgorithm(registry.Algorithm{
		Name:    "groups",
		Summary: "test agents that reduce over groups, sit reduces out and fan evaluations out",
		FansOut: true,
		New:     func() registry.Params { return &noParams{} },
		Build: func(_ registry.Params, env *registry.Env) (registry.Run, error) {
			return groupsRun{env}, nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

type noParams struct{}

func (*noParams) Validate() error { return nil }

// groupsRun builds the groups agents and their oracle.
type groupsRun struct{ env *registry.Env }

var _ registry.Oracles = groupsRun{}

func (r groupsRun) Agent(i int) (consensus.Agent, error) {
	x := r.env.Init(i)
	if len(x) == 0 {
		return nil, fmt.Errorf("groups: agent %d: empty initial point", i)
	}
	return &groupsAgent{id: i, n: r.env.N, g: r.env.Graph, proc: r.env.Process, x: x}, nil
}
func (groupsRun) Resolved() []registry.Value  { return nil }
func (groupsRun) Oracle(int) consensus.Oracle { return sinOracle{} }

// sinOracle evaluates sum_k sin(Arg_k) + Op Key.
type sinOracle struct{}

func (sinOracle) Evaluate(req consensus.EvalRequest, out []float64) ([]float64, error) {
	var s float64
	for _, v := range req.Arg {
		s += math.Sin(v)
	}
	return append(out, s+float64(req.Op)*float64(req.Key)), nil
}

// groupsAgent holds x_i and runs three phases a round, every one of which
// changes x_i by what its inbox holds, so that any difference in an
// inbox shows in the iterates:
//
//  0. x_i to the neighbours whose edge is present in the round (the edge
//     process's draw), x_i <- x_i + (1/4) sum_j (x_j - x_i) over the
//     messages, and 1/100 per missing sender on x_i[0];
//  1. the reduce over the groups {0, 1}, {2, 3}, ...: agent N-1 of an odd
//     N gives no term and must get a nil Inbox.Reduce; with a sum s,
//     x_i <- x_i/2 + s/4, without, x_i[0] += 1/2; odd agents ask for two
//     evaluations, added to x_i[0] and x_i[1] scaled by 1/1000;
//  2. the all-reduce: x_i <- x_i - (x_i - s/N)/10.
type groupsAgent struct {
	id, n int
	g     *graph.Graph
	proc  graph.EdgeProcess
	x     []float64
	round int

	nbrs  []int
	msgs  []consensus.Msg
	group [2]int
}

func (a *groupsAgent) ID() int        { return a.id }
func (a *groupsAgent) Phases(int) int { return 3 }

func (a *groupsAgent) Send(t, ph int) consensus.Outbox {
	switch ph {
	case 0:
		a.nbrs, a.msgs = a.nbrs[:0], a.msgs[:0]
		for _, j := range a.g.Neighbors(a.id) {
			if a.proc.Active(t, 0, a.id, j) {
				a.nbrs = append(a.nbrs, j)
				a.msgs = append(a.msgs, consensus.Msg{From: a.id, To: j, Round: t, Phase: ph, Data: a.x})
			}
		}
		return consensus.Outbox{Msgs: a.msgs, Expect: a.nbrs}
	case 1:
		out := consensus.Outbox{}
		if lo := a.id &^ 1; lo+1 < a.n {
			a.group = [2]int{lo, lo + 1}
			out.Reduce, out.Group = a.x, a.group[:]
		}
		if a.id%2 == 1 {
			out.Evals = []consensus.EvalRequest{{Op: 1, Key: uint64(t), Arg: a.x}, {Op: 2, Key: uint64(a.id), Arg: a.x}}
		}
		return out
	}
	return consensus.Outbox{Reduce: a.x}
}

func (a *groupsAgent) Receive(t, ph int, in consensus.Inbox) error {
	x := a.x
	switch ph {
	case 0:
		for _, m := range in.Msgs {
			for k := range x {
				x[k] += float64(0.25 * (m.Data[k] - x[k]))
			}
		}
		x[0] += 0.01 * float64(len(in.Missing))
	case 1:
		if in.Reduce != nil {
			for k := range x {
				x[k] = float64(0.5*x[k]) + float64(0.25*in.Reduce[k%len(in.Reduce)])
			}
		} else {
			x[0] += 0.5
		}
		for k, v := range in.Evals {
			x[k%len(x)] += float64(1e-3 * v[0])
		}
	case 2:
		for k := range x {
			x[k] -= float64(0.1 * (x[k] - in.Reduce[k]/float64(a.n)))
		}
		a.round = t + 1
	}
	return nil
}

func (a *groupsAgent) Report() consensus.Report {
	return consensus.Report{ID: a.id, Round: a.round, X: append([]float64(nil), a.x...)}
}
