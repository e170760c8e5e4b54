package penalty

import (
	"fmt"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/problems/constrlogistic"
)

// AgentConfig configures the data-parallel form of Algorithm 2: N agents,
// agent a holding the components Bounds[a] <= i < Bounds[a+1] of fbar.
type AgentConfig struct {
	Rule Rule2
	// K is the run length of the constant rules.
	K int
	// X0 is x^0 (copied by every agent).
	X0 []float64
	// Seed keys the samples as in Alg2Config; every agent draws the same
	// i_t.
	Seed uint64
	// Bounds are the shard boundaries 0 = b_0 < ... < b_N = s.
	Bounds []int
	// Lip holds L_1..L_s of all components (common knowledge: the
	// sampling distribution q_i = L_i / sum_j L_j needs them all).
	Lip []float64
	// Lf overrides L_grad_fbar of (20) when positive.
	Lf float64
	// Cons and Psi are the deterministic constraints and psi, replicated at
	// every agent.
	Cons constrlogistic.Constraints
	Psi  constrlogistic.Regularizer
}

// Agent is agent a of the data-parallel Algorithm 2. Every agent keeps a
// replica of the whole iterate (x~, z~, x_t, z_t, y_t) and executes the
// same arithmetic; data are split. Round t is outer iteration k = t+1 of
// the rounds it has run (the first round it runs is k = 1) and has 1 + T_k
// phases:
//
//   - phase 0: every agent contributes sum_{i in its shard} grad f_i(x~_k)
//     to the all-reduce; the sum, taken in agent order, divided by s is
//     g~_k = grad fbar(x~_k);
//   - phase t = 1..T_k: every agent draws the same i_t (common randomness);
//     the agent holding i_t contributes grad f_i(y_t) - grad f_i(x~_k),
//     the others zeros, so the reduce delivers it exactly; every agent then
//     takes the step of vr.finish.
//
// The iterates are bit-identical to RunAlg2 with Alg2Config.Shards =
// Bounds: the full gradient is summed in the same blocks in the same
// order, and adding exact zeros does not round.
type Agent struct {
	id     int
	shard  constrlogistic.FiniteSum
	lo, hi int
	s      int
	v      *vr
	part   []float64
	d      []float64
	rounds int
	evals  int64

	phasesOf int // t+1 of the round phases was computed for, 0 for none
	phases   int
}

// NewAgents builds the N = len(cfg.Bounds)-1 agents; shard(a) returns agent
// a's components Bounds[a]..Bounds[a+1]-1 as a FiniteSum (e.g.
// Logistic.Slice).
func NewAgents(cfg AgentConfig, shard func(a int) constrlogistic.FiniteSum) ([]*Agent, error) {
	if err := validShards(cfg.Bounds, len(cfg.Lip)); err != nil {
		return nil, err
	}
	if cfg.Bounds == nil {
		return nil, fmt.Errorf("penalty: agents: no shard bounds")
	}
	out := make([]*Agent, len(cfg.Bounds)-1)
	for a := range out {
		ag, err := NewAgent(a, shard(a), cfg)
		if err != nil {
			return nil, err
		}
		out[a] = ag
	}
	return out, nil
}

// NewAgent builds agent id from its shard.
func NewAgent(id int, shard constrlogistic.FiniteSum, cfg AgentConfig) (*Agent, error) {
	s := len(cfg.Lip)
	if err := validShards(cfg.Bounds, s); err != nil {
		return nil, err
	}
	if id < 0 || id+1 >= len(cfg.Bounds) {
		return nil, fmt.Errorf("penalty: agent id %d, want 0 <= id < %d", id, len(cfg.Bounds)-1)
	}
	lo, hi := cfg.Bounds[id], cfg.Bounds[id+1]
	if shard.Len() != hi-lo || shard.Dim() != len(cfg.X0) {
		return nil, fmt.Errorf("penalty: agent %d: shard has %d components of dimension %d, want %d of %d", id, shard.Len(), shard.Dim(), hi-lo, len(cfg.X0))
	}
	for i := range hi - lo {
		if shard.Lip(i) != cfg.Lip[lo+i] {
			return nil, fmt.Errorf("penalty: agent %d: L of component %d is %g in the shard, %g in Lip", id, lo+i, shard.Lip(i), cfg.Lip[lo+i])
		}
	}
	v, err := newVR(cfg.Rule, cfg.K, cfg.Lip, cfg.Lf, cfg.Cons, cfg.Psi, cfg.X0, cfg.Seed)
	if err != nil {
		return nil, fmt.Errorf("penalty: agent %d: %w", id, err)
	}
	n := len(cfg.X0)
	return &Agent{id: id, shard: shard, lo: lo, hi: hi, s: s, v: v,
		part: make([]float64, n), d: make([]float64, n)}, nil
}

// ID implements consensus.Agent.
func (a *Agent) ID() int { return a.id }

// outer returns the outer iteration k of the next or current round.
func (a *Agent) outer() int { return a.rounds + 1 }

// Phases implements consensus.Agent: 1 + T_k, with k the outer iteration
// the round t runs. The count is fixed when a round is first asked about:
// the runtime asks again after every phase, also after the last one has
// completed the outer iteration.
func (a *Agent) Phases(t int) int {
	if a.phasesOf != t+1 {
		a.phases = 0
		if st, err := Params2(a.v.rule, a.s, a.v.bigK, a.outer(), 1, 1); err == nil {
			a.phases = 1 + st.T
		}
		a.phasesOf = t + 1
	}
	return a.phases
}

// Send implements consensus.Agent.
func (a *Agent) Send(_, ph int) consensus.Outbox {
	if ph == 0 {
		clear(a.part)
		for i := range a.hi - a.lo {
			a.shard.AddGrad(i, a.v.xt, 1, a.part)
		}
		a.evals += int64(a.hi - a.lo)
		return consensus.Outbox{Reduce: a.part}
	}
	clear(a.d)
	if i := a.v.i; i >= a.lo && i < a.hi {
		a.shard.AddGrad(i-a.lo, a.v.y, 1, a.d)
		a.shard.AddGrad(i-a.lo, a.v.xt, -1, a.d)
		a.evals += 2
	}
	return consensus.Outbox{Reduce: a.d}
}

// Receive implements consensus.Agent.
func (a *Agent) Receive(t, ph int, in consensus.Inbox) error {
	if len(in.Reduce) != len(a.part) {
		return fmt.Errorf("penalty: agent %d round %d phase %d: reduce of length %d, want %d", a.id, t, ph, len(in.Reduce), len(a.part))
	}
	if ph == 0 {
		inv := 1 / float64(a.s)
		for j, v := range in.Reduce {
			a.part[j] = v * inv
		}
		return a.v.begin(a.outer(), a.part)
	}
	if ph != a.v.t+1 {
		return fmt.Errorf("penalty: agent %d round %d: phase %d after inner step %d", a.id, t, ph, a.v.t)
	}
	if a.v.finish(in.Reduce) {
		a.rounds++
	}
	return nil
}

// X returns a copy of x~_k, the output after the rounds completed so far.
func (a *Agent) X() []float64 { return append([]float64(nil), a.v.xt...) }

// Report implements consensus.Agent: X is x~, GradEvals counts the
// component gradients this agent evaluated (the sum over agents is the
// single-agent count).
func (a *Agent) Report() consensus.Report {
	return consensus.Report{ID: a.id, Round: a.rounds, X: a.X(), GradEvals: a.evals}
}

// Agent implements consensus.Agent.
var _ consensus.Agent = (*Agent)(nil)
