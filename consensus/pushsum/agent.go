package pushsum

import (
	"fmt"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/graph"
	"github.com/consim/consim/objective"
)

// arcDraw is the draw of the arc process that gives the arcs of a round.
const arcDraw = 0

// Agent is agent i of push-sum (no objective) or subgradient-push: it
// holds [x_i, y_i] and the estimate z_i, and runs one exchange phase per
// round.
type Agent struct {
	id, round int
	arcs      graph.AgentArcs
	f         objective.Local // nil: push-sum
	p         Params
	n         int
	xy        []float64 // [x_i, y_i]
	push      []float64 // C_ji [x_i, y_i], what i sends and keeps
	z, g      []float64 // z_i and grad f_i(z_i)
	evals     int64
	outbox    consensus.Outbox
}

var _ consensus.Agent = (*Agent)(nil)

// NewAgent returns agent id of a run on the digraph d with arc process
// arcs, starting from x0 (copied) and y_i(0) = 1. With f nil it is
// push-sum and p is not used; otherwise it is subgradient-push on f with
// the steps of p.
func NewAgent(p Params, id int, d *graph.Digraph, arcs graph.ArcProcess, f objective.Local, x0 []float64) (*Agent, error) {
	if err := check(p, id, d, arcs, f, x0); err != nil {
		return nil, fmt.Errorf("pushsum: agent %d: %w", id, err)
	}
	n := len(x0)
	a := &Agent{id: id, arcs: graph.AgentArcs{D: d, Arcs: arcs, I: id}, f: f, p: p, n: n, xy: make([]float64, n+1),
		push: make([]float64, n+1), z: append([]float64(nil), x0...), g: make([]float64, n)}
	copy(a.xy, x0)
	a.xy[n] = 1
	return a, nil
}

// check validates the arguments of NewAgent and NewReference's agents.
func check(p Params, id int, d *graph.Digraph, arcs graph.ArcProcess, f objective.Local, x0 []float64) error {
	switch {
	case d == nil || arcs == nil:
		return fmt.Errorf("digraph and arc process are required")
	case id < 0 || id >= d.N:
		return fmt.Errorf("id must be in [0, %d)", d.N)
	case len(x0) == 0:
		return fmt.Errorf("empty initial point")
	case f != nil && f.Dim() != len(x0):
		return fmt.Errorf("initial point has length %d, objective dimension is %d", len(x0), f.Dim())
	}
	if f != nil {
		return p.Validate()
	}
	return nil
}

// ID implements consensus.Agent.
func (a *Agent) ID() int { return a.id }

// Phases implements consensus.Agent: one exchange per round.
func (a *Agent) Phases(int) int { return 1 }

// Send implements consensus.Agent: it draws the arcs of round t at agent
// i, sends C_ji [x_i, y_i] with C_ji = 1/(1 + d_out_i(t)) to every
// out-neighbour j it reaches, and expects the in-neighbours that reach it.
func (a *Agent) Send(t, _ int) consensus.Outbox {
	a.arcs.Draw(t, arcDraw)
	c := a.arcs.PushWeight()
	for l, v := range a.xy {
		a.push[l] = float64(c * v)
	}
	a.outbox.Broadcast(a.id, t, a.arcs.Out, a.push, a.arcs.In)
	return a.outbox
}

// Receive implements consensus.Agent: [x_i, y_i] <- sum_j C_ij [x_j, y_j]
// over i itself and the in-neighbours whose message arrived, summed in
// ascending j; z_i = x_i / y_i; and under subgradient-push the step
// x_i <- x_i - alpha(t+1) grad f_i(z_i).
func (a *Agent) Receive(t, _ int, in consensus.Inbox) error {
	if t != a.round {
		return fmt.Errorf("pushsum: agent %d: receive of round %d, expected round %d", a.id, t, a.round)
	}
	mixed := a.xy
	clear(mixed)
	err := in.Ascending(a.id, a.push, a.arcs.In, a.n+1, func(_ int, v []float64) {
		for l, u := range v { // v is nil for a missing message: its mass is lost
			mixed[l] += u
		}
	})
	if err != nil {
		return fmt.Errorf("pushsum: agent %d: round %d: %w", a.id, t, err)
	}
	y := mixed[a.n]
	for l := range a.z {
		a.z[l] = mixed[l] / y
	}
	if a.f != nil {
		a.f.Grad(a.z, a.g)
		a.evals++
		alpha := a.p.StepAt(t + 1)
		for l, g := range a.g {
			mixed[l] -= float64(alpha * g)
		}
	}
	a.round++
	return nil
}

// Z returns a copy of the estimate z_i.
func (a *Agent) Z() []float64 { return append([]float64(nil), a.z...) }

// Y returns the weight y_i.
func (a *Agent) Y() float64 { return a.xy[a.n] }

// Report implements consensus.Agent: the round count, a copy of the
// estimate z_i as X (x_i itself is not an estimate of anything), and the
// gradient calls.
func (a *Agent) Report() consensus.Report {
	return consensus.Report{ID: a.id, Round: a.round, X: a.Z(), GradEvals: a.evals}
}
