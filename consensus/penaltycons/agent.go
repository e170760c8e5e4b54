package penaltycons

import (
	"fmt"
	"math/rand/v2"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/consensus/penalty"
	"github.com/consim/consim/graph"
	"github.com/consim/consim/objective"
)

// Penalty rules of Config.Rule.
const (
	// RuleConstant is Theorem 1: rho = K^{3/2}, b_k = (k+1)/2,
	// gamma_k = (k+1)/(4 (L_f + rho L_c2)).
	RuleConstant = "constant"
	// RuleGrowing is Theorem 2: rho_k = (k+4)^{3/2}, b_k = (k+4)/5,
	// gamma_k = (k+4)/(10 (L_f + rho_k L_c2)).
	RuleGrowing = "growing"
)

// Config is shared by the agents of a run.
type Config struct {
	// Rule is RuleConstant or RuleGrowing.
	Rule string
	// K is the horizon (the constant rule's rho = K^{3/2}); >= 2.
	K int
	// Lf is L_f = max_i L_i / N and Lc2 = lambda_max(L_p).
	Lf, Lc2 float64
	// Seed keys the samples (graph.SeedSample(Seed, t, i)).
	Seed uint64
}

func (c Config) rule() (penalty.Rule1, error) {
	switch c.Rule {
	case RuleConstant:
		if c.K < 2 {
			return 0, fmt.Errorf("rule constant: horizon K = %d, want >= 2", c.K)
		}
		return penalty.Thm1, nil
	case RuleGrowing:
		return penalty.Thm2, nil
	}
	return 0, fmt.Errorf("rule %q: want %q or %q", c.Rule, RuleConstant, RuleGrowing)
}

// Step returns (rho_k, b_k, gamma_k) of round t (iteration k = t + 1).
func (c Config) Step(t int) (penalty.Step1, error) {
	r, err := c.rule()
	if err != nil {
		return penalty.Step1{}, err
	}
	return penalty.Params1(r, c.K, t+1, c.Lf, c.Lc2)
}

// Agent is agent i, holding x_i, z_i and the round's y_i.
type Agent struct {
	cfg   Config
	id    int
	round int
	g     *graph.Graph
	proc  graph.EdgeProcess
	f     objective.Local
	box   objective.Box
	inv   float64

	x, z, y, gr, sg []float64
	on              []bool // neighbour k present in the round's draw
	out             consensus.Outbox
	pcg             rand.PCG
	rng             *rand.Rand
	evals           int64
}

var _ consensus.Agent = (*Agent)(nil)

// NewAgent returns agent id with objective f on box, x_0 = z_0 = x0.
func NewAgent(cfg Config, id int, g *graph.Graph, proc graph.EdgeProcess, f objective.Local, box objective.Box, x0 []float64) (*Agent, error) {
	if _, err := cfg.rule(); err != nil {
		return nil, fmt.Errorf("penaltycons: agent %d: %w", id, err)
	}
	switch {
	case g == nil || proc == nil || f == nil:
		return nil, fmt.Errorf("penaltycons: agent %d: graph, edge process and objective are required", id)
	case id < 0 || id >= g.N:
		return nil, fmt.Errorf("penaltycons: agent id %d: must be in [0, %d)", id, g.N)
	case len(x0) != f.Dim():
		return nil, fmt.Errorf("penaltycons: agent %d: initial point has length %d, objective dimension is %d", id, len(x0), f.Dim())
	}
	n := f.Dim()
	a := &Agent{cfg: cfg, id: id, g: g, proc: proc, f: f, box: box, inv: 1 / float64(g.N),
		x: append([]float64(nil), x0...), z: append([]float64(nil), x0...),
		y: make([]float64, n), gr: make([]float64, n), sg: make([]float64, n), on: make([]bool, len(g.Neighbors(id)))}
	a.rng = rand.New(&a.pcg)
	return a, nil
}

// ID implements consensus.Agent.
func (a *Agent) ID() int { return a.id }

// Phases implements consensus.Agent: one exchange per round.
func (a *Agent) Phases(int) int { return 1 }

// Send computes y_i and sends it to the neighbours present in the round's
// draw.
func (a *Agent) Send(t, _ int) consensus.Outbox {
	a.out.Msgs, a.out.Expect = a.out.Msgs[:0], a.out.Expect[:0]
	st, err := a.cfg.Step(t)
	if err != nil {
		return a.out
	}
	ib := 1 / st.Beta
	for l := range a.y {
		a.y[l] = float64((1-ib)*a.x[l]) + float64(ib*a.z[l])
	}
	for k, j := range a.g.Neighbors(a.id) {
		a.on[k] = a.proc.Active(t, int(graph.DrawDual), min(a.id, j), max(a.id, j))
		if a.on[k] {
			a.out.Msgs = append(a.out.Msgs, consensus.Msg{From: a.id, To: j, Round: t, Data: a.y})
			a.out.Expect = append(a.out.Expect, j)
		}
	}
	return a.out
}

// Receive takes the penalized accelerated step with the arrived y_j.
func (a *Agent) Receive(t, _ int, in consensus.Inbox) error {
	if t != a.round {
		return fmt.Errorf("penaltycons: agent %d: receive of round %d, expected round %d", a.id, t, a.round)
	}
	st, err := a.cfg.Step(t)
	if err != nil {
		return fmt.Errorf("penaltycons: agent %d: round %d: %w", a.id, t, err)
	}
	graph.SeedSample(&a.pcg, a.cfg.Seed, t, a.id)
	a.evals += int64(a.f.StochGrad(a.y, a.sg, a.rng))
	for l := range a.gr {
		a.gr[l] = float64(a.inv * a.sg[l])
	}
	for k, j := range a.g.Neighbors(a.id) {
		if !a.on[k] {
			continue
		}
		if len(in.Msgs) == 0 || in.Msgs[0].From != j {
			continue // missing at the deadline: skip the edge
		}
		yj := in.Msgs[0].Data
		in.Msgs = in.Msgs[1:]
		if len(yj) != len(a.y) {
			return fmt.Errorf("penaltycons: agent %d: round %d: y_%d has %d values, want %d", a.id, t, j, len(yj), len(a.y))
		}
		for l := range a.gr {
			a.gr[l] += float64(st.Rho * (a.y[l] - yj[l]))
		}
	}
	if len(in.Msgs) > 0 {
		return fmt.Errorf("penaltycons: agent %d: round %d: unexpected message from agent %d", a.id, t, in.Msgs[0].From)
	}
	ib := 1 / st.Beta
	for l := range a.z {
		a.z[l] -= float64(st.Gamma * a.gr[l])
	}
	a.box.Project(a.z)
	for l := range a.x {
		a.x[l] = float64((1-ib)*a.x[l]) + float64(ib*a.z[l])
	}
	a.round++
	return nil
}

// Report implements consensus.Agent: x_i and the samples drawn.
func (a *Agent) Report() consensus.Report {
	return consensus.Report{ID: a.id, Round: a.round, X: append([]float64(nil), a.x...), GradEvals: a.evals}
}
