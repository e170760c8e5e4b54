package slicing

import (
	"fmt"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/consensus/lockstep"
	"github.com/consim/consim/graph"
	problem "github.com/consim/consim/problems/slicing"
)

// Agents returns the agents of all nodes of md, in node order.
func Agents(cfg Config, md *problem.Model) ([]*Agent, error) {
	agents := make([]*Agent, md.Inst.Nodes)
	for i := range agents {
		a, err := NewAgent(cfg, md, i)
		if err != nil {
			return nil, err
		}
		agents[i] = a
	}
	return agents, nil
}

// LossDraw is the first draw index of the emulated message loss of Run:
// the message of phase ph of round t from node i to node j is lost iff
// graph.Uniform(seed, t, LossDraw+ph, i, j) < rate. It is far from the
// draw indices of package graph and of the runtime's fault models.
const LossDraw = 1 << 20

// BernoulliLoss returns the drop function of independent message loss at
// the given rate, a pure function of (seed, t, ph, from, to) (LossDraw).
func BernoulliLoss(seed uint64, rate float64) lockstep.DropFunc {
	return func(t, ph, from, to int) bool {
		return graph.Uniform(seed, uint64(t), uint64(LossDraw+ph), uint64(from), uint64(to)) < rate
	}
}

// RunOptions configure Run.
type RunOptions struct {
	// Rounds is the largest number of rounds.
	Rounds int
	// Loss is the emulated message loss rate in [0, 1) and LossSeed its
	// seed (BernoulliLoss).
	Loss     float64
	LossSeed uint64
	// Every is the period (in rounds) of the stopping test; 0 means never
	// stop early. The run stops after the first checked round outside the
	// final stage's passes at which w is binary with Violation <= Tol.
	Every int
	Tol   float64
}

// RunResult is the outcome of Run.
type RunResult struct {
	// W is the final point (Model order) and Measures its measures.
	W        []float64
	Measures problem.Measures
	// Relaxed and RelaxedMeasures are the ALM's point before the final
	// stage (Config.Stage; the final point if the run has no stage or
	// stopped before it).
	Relaxed         []float64
	RelaxedMeasures problem.Measures
	// Rounds is the number of rounds run.
	Rounds int
	// Stopped reports whether the stopping test ended the run.
	Stopped bool
	// Messages and Bytes count what the agents sent (Bytes: 8 per float64
	// payload value, no framing); Dropped the messages the loss removed.
	Messages, Bytes, Dropped int64
}

// Run runs the agents of cfg on md in lockstep (consensus/lockstep) for
// at most opt.Rounds rounds under the emulated loss, and returns the
// final point with its measures and the traffic.
func Run(cfg Config, md *problem.Model, opt RunOptions) (RunResult, error) {
	if opt.Rounds < 1 {
		return RunResult{}, fmt.Errorf("slicing: run: %d rounds, need at least 1", opt.Rounds)
	}
	if !(opt.Loss >= 0 && opt.Loss < 1) {
		return RunResult{}, fmt.Errorf("slicing: run: loss rate %v must be in [0, 1)", opt.Loss)
	}
	agents, err := Agents(cfg, md)
	if err != nil {
		return RunResult{}, err
	}
	as := make([]consensus.Agent, len(agents))
	for i, a := range agents {
		as[i] = a
	}
	var opts []lockstep.Option
	if opt.Loss > 0 {
		opts = append(opts, lockstep.WithDrop(BernoulliLoss(opt.LossSeed, opt.Loss)))
	}
	d, err := lockstep.New(as, opts...)
	if err != nil {
		return RunResult{}, fmt.Errorf("slicing: run: %w", err)
	}
	var res RunResult
	for t := 0; t < opt.Rounds; t++ {
		if err := d.Round(t); err != nil {
			return RunResult{}, fmt.Errorf("slicing: run: %w", err)
		}
		res.Rounds = t + 1
		if st := cfg.Stage.Start; st > 0 && t+1 == st {
			res.Relaxed = Gather(agents)
			if res.RelaxedMeasures, err = problem.Evaluate(md, res.Relaxed); err != nil {
				return RunResult{}, err
			}
		}
		if opt.Every > 0 && (t+1)%opt.Every == 0 && !cfg.Stage.running(t) {
			ms, err := problem.Evaluate(md, Gather(agents))
			if err != nil {
				return RunResult{}, err
			}
			if ms.Binary && ms.Violation <= opt.Tol {
				res.Stopped = true
				break
			}
		}
	}
	res.W = Gather(agents)
	if res.Measures, err = problem.Evaluate(md, res.W); err != nil {
		return RunResult{}, err
	}
	if res.Relaxed == nil {
		res.Relaxed, res.RelaxedMeasures = res.W, res.Measures
	}
	for _, a := range agents {
		m, v := a.Sent()
		res.Messages += m
		res.Bytes += 8 * v
	}
	res.Dropped = d.Traffic().Dropped
	return res, nil
}
