package fair

import (
	"fmt"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/problems/fairness"
)

// Agent is agent i of the data-parallel Algorithm 1: it holds the rows
// Bounds[i] <= k < Bounds[i+1] of the training data and a replica of the
// whole iterate (theta, s, y, z), and every agent executes the same
// arithmetic on the all-reduced sums:
//
//   - round 0, phase 0: the all-reduce of (sum_k z_k, rows) gives zbar;
//   - round 0, phase 1: the all-reduce of sum_k ((z_k - zbar)/n) x_k gives
//     the covariance vector a;
//   - last phase of every round t: every agent draws the same mini-batch
//     B_t (common randomness) and contributes the sums over the rows of B_t
//     it holds of V'(m_k) y_k x_k (and of (z_k - zbar) x_k in the sampled
//     form); with the sums every agent takes the step of Solve.
//
// The step sizes (Config after Resolve) are common knowledge given to
// every agent. The iterates are bit-identical to Solve with the same
// Config and shards = Bounds.
type Agent struct {
	id     int
	lo     int
	data   *fairness.Data
	loss   fairness.Loss
	p      Config
	n      int
	st     *state
	zbar   float64
	part   []float64
	rounds int
	evals  int64
}

// NewAgents builds the data-parallel agents over the shards Bounds of d,
// with p resolved on the whole of d (Resolve) as the common parameters.
func NewAgents(d *fairness.Data, loss fairness.Loss, p Config, bounds []int) ([]*Agent, error) {
	p, _, err := Resolve(d, loss, p)
	if err != nil {
		return nil, err
	}
	if err := validShards(bounds, d.Rows()); err != nil {
		return nil, err
	}
	out := make([]*Agent, len(bounds)-1)
	for i := range out {
		out[i] = &Agent{id: i, lo: bounds[i], data: d.Slice(bounds[i], bounds[i+1]), loss: loss, p: p, n: d.Rows()}
	}
	return out, nil
}

// ID implements consensus.Agent.
func (a *Agent) ID() int { return a.id }

// Phases implements consensus.Agent: 3 in round 0 (two setup reduces and
// the step), 1 afterwards.
func (a *Agent) Phases(t int) int {
	if t == 0 {
		return 3
	}
	return 1
}

// Send implements consensus.Agent.
func (a *Agent) Send(t, ph int) consensus.Outbox {
	switch {
	case t == 0 && ph == 0:
		s, c := a.data.ZSum()
		return consensus.Outbox{Reduce: []float64{s, c}}
	case t == 0 && ph == 1:
		part := make([]float64, a.data.Dim)
		a.data.CovPartial(a.zbar, float64(a.n), part)
		return consensus.Outbox{Reduce: part}
	}
	a.st.draw(t)
	clear(a.part)
	a.evals += a.st.partial(a.data, a.loss, a.lo, a.part)
	return consensus.Outbox{Reduce: a.part}
}

// Receive implements consensus.Agent.
func (a *Agent) Receive(t, ph int, in consensus.Inbox) error {
	switch {
	case t == 0 && ph == 0:
		if len(in.Reduce) != 2 || in.Reduce[1] != float64(a.n) {
			return fmt.Errorf("fair: agent %d: setup reduce %v, want (sum z, %d rows)", a.id, in.Reduce, a.n)
		}
		a.zbar = in.Reduce[0] / in.Reduce[1]
		return nil
	case t == 0 && ph == 1:
		if len(in.Reduce) != a.data.Dim {
			return fmt.Errorf("fair: agent %d: covariance reduce of length %d, want %d", a.id, len(in.Reduce), a.data.Dim)
		}
		a.st = newState(a.p, append([]float64(nil), in.Reduce...), a.zbar, a.n, a.data.Dim)
		a.part = make([]float64, a.st.reduceLen())
		return nil
	}
	if a.st == nil {
		return fmt.Errorf("fair: agent %d: round %d before the setup of round 0", a.id, t)
	}
	if len(in.Reduce) != len(a.part) {
		return fmt.Errorf("fair: agent %d round %d: reduce of length %d, want %d", a.id, t, len(in.Reduce), len(a.part))
	}
	if err := a.st.step(t, in.Reduce); err != nil {
		return fmt.Errorf("agent %d: %w", a.id, err)
	}
	a.rounds++
	return nil
}

// Report implements consensus.Agent: X is (theta, s), the start (0, 0)
// before the setup of round 0, and GradEvals counts the batch rows this
// agent evaluated.
func (a *Agent) Report() consensus.Report {
	x := make([]float64, 0, a.data.Dim+1)
	if a.st != nil {
		x = append(append(x, a.st.theta...), a.st.s)
	} else {
		x = x[:a.data.Dim+1]
	}
	return consensus.Report{ID: a.id, Round: a.rounds, X: x, GradEvals: a.evals}
}

var _ consensus.Agent = (*Agent)(nil)
