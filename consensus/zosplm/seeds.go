package zosplm

import (
	"github.com/consim/consim/graph"
	"github.com/consim/consim/problems/qcqp"
)

// TrialSeeds returns the seeds of trial of an experiment keyed by seed:
// its instance's, qcqp.New(n, m, problem) with problem =
// graph.Hash(seed, trial, drawProblem, 2, 0), and its methods' run seed
// of the directions, graph.Hash(seed, trial, drawDirection, 2, 0). The
// registered problem and algorithm draw trial 0 of the run seed.
func TrialSeeds(seed uint64, trial int) (problem, directions uint64) {
	return graph.Hash(seed, uint64(trial), qcqp.DrawProblem, 2, 0), graph.Hash(seed, uint64(trial), drawDirection, 2, 0)
}
