package registry

import (
	"errors"

	"github.com/consim/consim/consensus"
)

// Runs whose agents play roles.
//
// The coordinator's default measures assume a consensus run: every agent
// i holds a copy x_i of one common x, so that the consensus error
// (1/N) sum_i ||x_i - xbar||^2, the objective f(xbar) of the instance's
// Central problem and the feasibility of x_i = x_j describe the run. A run
// whose agents hold different things (a network node its own block of
// variables, a server the iterate and its workers nothing, an upper-level
// agent y and task agents blocks of x) declares its Roles and implements
// Evaluator instead: the coordinator then asks it for the measures of the
// reports, and the instance's Central is never called (it may return
// ErrNoCentral).

// ErrNoCentral is returned (wrapped) by the Central of an instance whose
// agents do not each hold a copy of one common x, so that the consensus
// form min (1/N) sum_i f_i(x) does not apply; the runs on it implement
// Evaluator.
var ErrNoCentral = errors.New("the problem has no consensus form: its agents hold different blocks or roles")

// Evaluator is implemented by a Run whose agents do not all hold a copy of
// one common x (blocks of different lengths, server and workers, a star of
// an upper-level agent and task agents). The coordinator measures such a
// run through it instead of through the instance's Central problem.
type Evaluator interface {
	// Optimum returns f*, the value the optimality gap is measured
	// against (NaN when it is not known), and whether the problem is
	// convex. It is called once before the run and may be costly (an LP,
	// a reference solve).
	Optimum() (fstar float64, convex bool, err error)
	// Evaluate returns the measures of the reports of one measured round:
	// reps[i] is agent i's report, and a report with a nil X stands for an
	// agent that has departed. It must be deterministic and must not keep
	// reps.
	Evaluate(reps []consensus.Report) (Evaluation, error)
}

// Evaluation is what an Evaluator makes of one round's reports. The
// coordinator writes the fields in the metric columns of the same names.
type Evaluation struct {
	// ConsensusErr is the disagreement of the agents that hold replicas of
	// the same variables, (1/N) sum_i ||x_i - xbar||^2 over them; 0 when
	// no two agents hold copies of the same variable (then none disagree).
	// The coordinator replaces it by NaN when a report holds a NaN or an
	// infinite value, so that such a round counts as divergence whatever
	// the Evaluator computed (observe.Evaluated). observe.Replicas
	// computes it for agents that hold replicas of one iterate.
	ConsensusErr float64
	// ObjValue is the run's objective at the point the agents hold
	// jointly; OptGap is ObjValue - f* (NaN when f* is unknown).
	ObjValue, OptGap float64
	// DistToOpt is the distance of that point to the optimum, NaN when
	// the optimum is not known.
	DistToOpt float64
	// Feasibility is the run's constraint violation (its own norm, stated
	// in the Evaluator's documentation); 0 for a problem without
	// constraints.
	Feasibility float64
	// Values are the values of the run's Evaluated measures (Measurer),
	// in declaration order.
	Values []float64
}

// Artefacter is implemented by a Run that adds files of its own to the
// results bundle, e.g. a picture of the final state: Artefacts makes them
// from the last report of every agent (reps[i] is agent i's; a nil X for
// one that never reported). It is called once, after the run.
type Artefacter interface {
	Artefacts(reps []consensus.Report) ([]File, error)
}

// File is one file of the results bundle: a plain file name (no
// directory) and its content.
type File struct {
	Name string
	Data []byte
}
