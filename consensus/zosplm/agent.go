package zosplm

import (
	"fmt"
	"math"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/objective"
)

// Method is what every zeroth-order method of this package offers beyond
// consensus.Agent: its iterate and the multiplier its KKT point is
// measured with.
type Method interface {
	consensus.Agent
	// Name is the method's name in tables ("ZO-SPLM", "ZO-ALM",
	// "ZO-ConEX").
	Name() string
	// X is the current primal iterate (read-only view).
	X() []float64
	// MeasureDual writes into y the multiplier the method pairs with its
	// current X, given h(X) (exact values, computed by the measurement).
	MeasureDual(hx, y []float64)
	// Evals is the number of oracle calls made so far: k + 1 per
	// iteration.
	Evals() int64
}

// method is the per-method part of a round.
type method interface {
	// point is x_t, where both phases evaluate.
	point() []float64
	// values consumes [f(x_t), h(x_t)] (the value phase).
	values(t int, v []float64) error
	// spec gives the chunk requests' operation, composite parameters
	// (OpComposite only) and w = x - z (nil when the proximal term, if
	// any, is exact).
	spec() (op int, yrho, w []float64)
	// step consumes the estimates: the reduced, scaled chunk sums.
	step(t int, g []float64) error
}

// core is the round structure shared by the methods. Round t has two
// phases:
//
//	phase 0: one OpValue request at x_t  -> [f(x_t), h(x_t)], dual updates
//	phase 1: ceil(k/chunk) chunk requests at x_t with the base values of
//	         phase 0  -> the estimates of eq. (3), primal step
//
// so an iteration makes exactly k + 1 oracle calls with one shared base
// value.
type core struct {
	id     int
	n, m   int
	seed   uint64
	box    objective.Box
	est    Estimator
	reqs   *requests
	v0     []float64
	meth   method
	rounds int
	evals  int64
	withW  bool
	op     int
	dualSq func() float64
}

func newCore(id, n, m int, box objective.Box, est Estimator, seed uint64) (*core, error) {
	if err := est.Validate(); err != nil {
		return nil, err
	}
	switch {
	case id < 0:
		return nil, fmt.Errorf("zosplm: agent id %d, want >= 0", id)
	case n < 1 || m < 1:
		return nil, fmt.Errorf("zosplm: n = %d, m = %d, want both >= 1", n, m)
	case math.IsNaN(box.Lo) || math.IsNaN(box.Hi) || !(box.Lo < box.Hi):
		return nil, fmt.Errorf("zosplm: box [%g, %g], want Lo < Hi", box.Lo, box.Hi)
	}
	return &core{id: id, n: n, m: m, seed: seed, box: box, est: est, reqs: newRequests(est, n, m), v0: make([]float64, 1+m)}, nil
}

// ID implements consensus.Agent.
func (c *core) ID() int { return c.id }

// Phases implements consensus.Agent: a value phase and a chunk phase.
func (c *core) Phases(int) int { return 2 }

// Evals is the number of oracle calls made so far.
func (c *core) Evals() int64 { return c.evals }

// Send implements consensus.Agent.
func (c *core) Send(t, ph int) consensus.Outbox {
	if ph == 0 {
		return consensus.Outbox{Evals: c.reqs.value(c.meth.point())}
	}
	op, yrho, w := c.meth.spec()
	c.op, c.withW = op, w != nil
	return consensus.Outbox{Evals: c.reqs.chunks(op, RoundKey(c.seed, t), c.v0, yrho, c.meth.point(), w)}
}

// Receive implements consensus.Agent.
func (c *core) Receive(t, ph int, in consensus.Inbox) error {
	if ph == 0 {
		v, err := baseValues(in, c.m)
		if err != nil {
			return fmt.Errorf("zosplm: agent %d: round %d: %w", c.id, t, err)
		}
		copy(c.v0, v)
		return c.meth.values(t, c.v0)
	}
	width := c.n
	if c.op == OpSums {
		width = (1 + c.m) * c.n
	}
	if c.withW {
		width += c.n
	}
	g, err := c.reqs.reduce(in.Evals, width)
	if err != nil {
		return fmt.Errorf("zosplm: agent %d: round %d: chunk phase: %w", c.id, t, err)
	}
	for _, v := range g {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("zosplm: agent %d: round %d: non-finite gradient estimate", c.id, t)
		}
	}
	if err := c.meth.step(t, g); err != nil {
		return err
	}
	c.rounds = t + 1
	c.evals += int64(c.est.K) + 1
	return nil
}

// Report implements consensus.Agent: X, the round count, the oracle calls
// (in GradEvals: function-value calls, k + 1 per iteration) and, for the
// methods with a multiplier, the Measure ||y||^2 (see AgentMeasures). KKT
// measures need exact gradients and are computed by the measurement
// (qcqp.QCQP.Measure), not by the agent.
func (c *core) Report() consensus.Report {
	r := consensus.Report{ID: c.id, Round: c.rounds, X: append([]float64(nil), c.meth.point()...), GradEvals: c.evals}
	if c.dualSq != nil {
		r.Measures = []float64{c.dualSq()}
	}
	return r
}

// AgentMeasures declares what the agents of the methods with a multiplier
// report in consensus.Report.Measures: dual_norm = ||y||.
func AgentMeasures() []consensus.Measure {
	return []consensus.Measure{{Name: consensus.MeasureDualNorm, Reduce: consensus.ReduceNorm, Doc: "||y||, the multiplier"}}
}

// project writes proj_X(x) into x.
func (c *core) project(x []float64) { c.box.Project(x) }

func clip(v, lo, hi float64) float64 { return math.Min(math.Max(v, lo), hi) }

func sumSq(v []float64) float64 {
	var s float64
	for _, x := range v {
		s += x * x
	}
	return s
}

func checkX0(x0 []float64, box objective.Box) error {
	for i, v := range x0 {
		if math.IsNaN(v) || v < box.Lo || v > box.Hi {
			return fmt.Errorf("zosplm: x0[%d] = %g outside X = [%g, %g]", i, v, box.Lo, box.Hi)
		}
	}
	return nil
}
