package regression

import (
	"fmt"
	"math"

	"github.com/consim/consim/dataset"
	"github.com/consim/consim/objective"
	"github.com/consim/consim/problems/datafile"
)

// Export writes agent i's generated rows as shard i and states f (rows
// weighting; every agent holds the same number of rows, so it is also the
// mean of the agents' means) with the optimum of Central.
func (g *generated) Export(e *datafile.Export) error {
	shards := make([]*dataset.Dataset, len(g.locals))
	for i := range shards {
		var err error
		if shards[i], err = g.DataShard(i); err != nil {
			return err
		}
	}
	return exportRows(e, g.p.Kind, objective.WeightRows, g.p.Reg, g.p.scale(), g.Box(), shards, g.Central)
}

// Export writes agent i's rows as read from the file as shard i and
// states f under the block's weighting with the optimum of Central.
func (g *fromData) Export(e *datafile.Export) error {
	w := g.opt.Weighting
	if w == "" {
		w = objective.WeightRows
	}
	return exportRows(e, g.kind, w, g.opt.Reg, g.opt.Scale, g.Box(), g.shards, g.Central)
}

// exportRows writes the shards as agent-<i> files and fills the manifest:
// the objective of kind under weighting in the files' terms, its
// constants, the box, and the optimum central computes.
func exportRows(e *datafile.Export, kind, weighting string, reg, scale float64, box objective.Box, shards []*dataset.Dataset, central func() (*objective.Problem, error)) error {
	prob, err := central()
	if err != nil {
		return err
	}
	m := &e.Manifest
	for i, d := range shards {
		name, err := e.WriteRows(fmt.Sprintf("agent-%d", i), d)
		if err != nil {
			return err
		}
		m.Shards = append(m.Shards, name)
	}
	m.Dim = prob.Dim()
	m.Weighting = weighting
	m.Objective = Objective(kind, weighting)
	m.Constants = map[string]float64{"reg": reg}
	if kind == objective.KindNonconvex {
		m.Constants["c"] = scale
	}
	m.Box = datafile.BoxOf(box.Lo, box.Hi)
	m.FStar, m.XStar, m.Convex = datafile.Value(prob.FStar), prob.XStar, prob.Convex
	m.Notes = append(m.Notes, "shards: agent i's rows S_i are the rows of shards[i], the label (target b_k) first")
	switch kind {
	case objective.KindLeastSquares:
		m.Notes = append(m.Notes, "f_star: the minimizer over X of the normal equations (an active-set solve when the box binds)")
	case objective.KindLogistic:
		m.Notes = append(m.Notes, "f_star: the minimizer over X by accelerated proximal gradient with a Newton polish")
	case objective.KindNonconvex:
		m.Notes = append(m.Notes, "f_star: the lowest value that a multistart of local solves over X found (the second start x_true for generated data, the ridge least-squares fit for a file; the others uniform in the box): not a certified global optimum")
	}
	if math.IsInf(box.Lo, 0) && math.IsInf(box.Hi, 0) {
		m.Notes = append(m.Notes, "box: X = R^n")
	}
	return nil
}

// Objective states f of a regression kind under a weighting (objective's
// WeightRows or WeightAgents) in terms of the exported rows (a_k, b_k):
// S_i holds agent i's m_i rows, M = sum_i m_i, N the agents, and reg and
// c the manifest's constants.
func Objective(kind, weighting string) string {
	var loss, r string
	switch kind {
	case objective.KindLeastSquares:
		loss, r = "(a_k^T x - b_k)^2 / 2", "(reg/2) ||x||^2"
	case objective.KindLogistic:
		loss, r = "log(1 + exp(-b_k a_k^T x))", "(reg/2) ||x||^2"
	case objective.KindNonconvex:
		loss, r = "(c^2/2) log(1 + ((a_k^T x - b_k)/c)^2)", "reg sum_j x_j^2 / (1 + x_j^2)"
	default:
		return ""
	}
	if weighting == objective.WeightAgents {
		return fmt.Sprintf("min over x in X of f(x) = (1/N) sum_i f_i(x), f_i(x) = (1/m_i) sum_{k in S_i} %s + %s (weighting agents: every agent counts alike)", loss, r)
	}
	return fmt.Sprintf("min over x in X of f(x) = (1/M) sum_{k=1..M} %s + %s = (1/N) sum_i f_i(x), f_i(x) = (N m_i / M) (1/m_i) sum_{k in S_i} %s + %s (weighting rows: every row counts alike)", loss, r, loss, r)
}
