package portfolio

import (
	"fmt"
	"math"
	"strconv"

	"github.com/consim/consim/problems/datafile"
)

// Export writes agent i's rewards, the periods r_t of its shard (one row
// per period, one column per asset), as returns-<i>.csv, and states the
// consensus objective of Central with its exact optimum.
func (p *instance) Export(e *datafile.Export) error {
	prob, err := p.Central()
	if err != nil {
		return err
	}
	assets := p.cfg.Assets
	header := make([]string, assets)
	for k := range header {
		header[k] = "asset" + strconv.Itoa(k+1)
	}
	m := &e.Manifest
	for i, s := range p.shards {
		name := fmt.Sprintf("returns-%d.csv", i)
		if err := e.WriteCSV(name, header, s.Rewards()); err != nil {
			return err
		}
		m.Shards = append(m.Shards, name)
	}
	m.Dim = assets
	m.Objective = "min over x in R^n of f(x) = (1/N) sum_i P_i(x), P_i(x) = -rbar_i^T x + x^T S_i x + (mu/2) ||x||^2, " +
		"rbar_i = (1/n_i) sum_{t in T_i} r_t and S_i = (1/n_i) sum_{t in T_i} (r_t - rbar_i)(r_t - rbar_i)^T the mean and covariance " +
		"of agent i's n_i periods T_i (the rows r_t of shards[i])"
	m.Constants = map[string]float64{"mu": p.cfg.Mu}
	m.Box = datafile.BoxOf(math.Inf(-1), math.Inf(1))
	m.FStar, m.XStar, m.Convex = datafile.Value(prob.FStar), prob.XStar, true
	m.Notes = append(m.Notes,
		"shards: the rewards were drawn from the seed and split by periods, contiguously, over the agents (the first periods mod N shards one period more)",
		"f_star: the minimizer of the quadratic, (1/N) sum_i (2 S_i + mu I) x = (1/N) sum_i rbar_i, by Cholesky")
	return nil
}
