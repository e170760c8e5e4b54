package pushpull

import (
	"fmt"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/graph"
	"github.com/consim/consim/objective"
)

// arcDraw is the draw of the arc process that gives the arcs of a round.
const arcDraw = 0

// Agent is agent i of the push-pull method: it holds x_i, the tracker y_i
// and its last gradient g_i, and runs one exchange phase per round.
type Agent struct {
	p         Params
	id, round int
	arcs      graph.AgentArcs
	f         objective.Local
	n         int
	x, y, g   []float64
	msg       []float64 // [v_i, C_ii y_i]: what i sends and keeps
	gnew      []float64
	evals     int64
	outbox    consensus.Outbox
}

var _ consensus.Agent = (*Agent)(nil)

// NewAgent returns agent id of a run on the digraph d with arc process
// arcs, local objective f and initial point x0 (copied); y_i(0) = g_i(0) =
// grad f(x0).
func NewAgent(p Params, id int, d *graph.Digraph, arcs graph.ArcProcess, f objective.Local, x0 []float64) (*Agent, error) {
	if err := check(p, id, d, arcs, f, x0); err != nil {
		return nil, fmt.Errorf("pushpull: agent %d: %w", id, err)
	}
	n := len(x0)
	a := &Agent{p: p, id: id, arcs: graph.AgentArcs{D: d, Arcs: arcs, I: id}, f: f, n: n, x: append([]float64(nil), x0...),
		y: make([]float64, n), g: make([]float64, n), msg: make([]float64, 2*n), gnew: make([]float64, n)}
	f.Grad(a.x, a.g)
	a.evals++
	copy(a.y, a.g)
	return a, nil
}

// check validates the arguments of NewAgent and NewReference's agents.
func check(p Params, id int, d *graph.Digraph, arcs graph.ArcProcess, f objective.Local, x0 []float64) error {
	switch {
	case d == nil || arcs == nil || f == nil:
		return fmt.Errorf("digraph, arc process and objective are required")
	case id < 0 || id >= d.N:
		return fmt.Errorf("id must be in [0, %d)", d.N)
	case len(x0) == 0 || f.Dim() != len(x0):
		return fmt.Errorf("initial point has length %d, objective dimension is %d", len(x0), f.Dim())
	}
	return p.Validate()
}

// ID implements consensus.Agent.
func (a *Agent) ID() int { return a.id }

// Phases implements consensus.Agent: one exchange per round.
func (a *Agent) Phases(int) int { return 1 }

// Send implements consensus.Agent: it draws the arcs of round k at agent
// i and sends [v_i, C_ji y_i], C_ji = 1/(1 + d_out_i(k)), to every
// out-neighbour j it reaches, expecting the in-neighbours that reach it.
func (a *Agent) Send(k, _ int) consensus.Outbox {
	a.arcs.Draw(k, arcDraw)
	v, cy := a.msg[:a.n], a.msg[a.n:]
	c := a.arcs.PushWeight()
	for l := range v {
		v[l] = a.x[l]
		if a.p.Form == FormPushPull {
			v[l] -= float64(a.p.Step * a.y[l])
		}
		cy[l] = float64(c * a.y[l])
	}
	a.outbox.Broadcast(a.id, k, a.arcs.Out, a.msg, a.arcs.In)
	return a.outbox
}

// Receive implements consensus.Agent: with r = 1/(1 + d_in_i(k)),
//
//	x_i <- sum_j r v_j                      (push-pull; AB: - alpha y_i after the sum)
//	y_i <- sum_j C_ij y_j + g_i(x_i new) - g_i(x_i old),
//
// over i itself and its in-neighbours in ascending j, v_i standing in for
// a missing v_j and a missing C_ij y_j left out. Products are rounded
// before they are added, so that no platform fuses them.
func (a *Agent) Receive(k, _ int, in consensus.Inbox) error {
	if k != a.round {
		return fmt.Errorf("pushpull: agent %d: receive of round %d, expected round %d", a.id, k, a.round)
	}
	r := a.arcs.PullWeight()
	if a.p.Form == FormAB {
		for l, y := range a.y { // the step uses y_i(k), which the mix overwrites
			a.gnew[l] = float64(a.p.Step * y)
		}
	}
	x, y := a.x, a.y
	clear(x)
	clear(y)
	err := in.Ascending(a.id, a.msg, a.arcs.In, 2*a.n, func(_ int, m []float64) {
		pushed := m != nil
		if !pushed {
			m = a.msg // v_i for the missing v_j; its C_ij y_j is lost
		}
		for l, v := range m[:a.n] {
			x[l] += float64(r * v)
		}
		if pushed {
			for l, v := range m[a.n:] {
				y[l] += v
			}
		}
	})
	if err != nil {
		return fmt.Errorf("pushpull: agent %d: round %d: %w", a.id, k, err)
	}
	if a.p.Form == FormAB {
		for l, s := range a.gnew {
			x[l] -= s
		}
	}
	a.f.Grad(x, a.gnew)
	a.evals++
	for l := range y {
		y[l] = y[l] + a.gnew[l] - a.g[l]
	}
	a.g, a.gnew = a.gnew, a.g
	a.round++
	return nil
}

// X returns a copy of x_i.
func (a *Agent) X() []float64 { return append([]float64(nil), a.x...) }

// Y returns a copy of y_i.
func (a *Agent) Y() []float64 { return append([]float64(nil), a.y...) }

// Report implements consensus.Agent: the round count, a copy of x_i and
// the gradient calls, including the one of y_i(0).
func (a *Agent) Report() consensus.Report {
	return consensus.Report{ID: a.id, Round: a.round, X: a.X(), GradEvals: a.evals}
}
