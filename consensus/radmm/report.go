package radmm

import (
	"github.com/consim/consim/consensus"
	"github.com/consim/consim/consensus/edgeadmm"
)

// Report implements consensus.Agent: X = x_i, the Measures ||(1/N) grad
// f_i(x_i) + Lambda_i||^2 (with the full local gradient) and sum_{e at i}
// ||y_e^(i)||^2 (agent i's half of ||lambda||^2), GradEvals the stochastic
// gradient samples drawn so far, and with Config.ReportDuals the edge
// duals y_e^(i) (the owner's value or the reader's copy) with their
// versions, ascending by peer.
func (a *Agent) Report() consensus.Report {
	rep := consensus.Report{
		ID:        a.id,
		Round:     a.round,
		X:         a.X(),
		GradEvals: a.l.GradEvals,
		Measures:  []float64{a.kktSq(), edgeadmm.Sq(a.y)},
	}
	if a.cfg.ReportDuals {
		rep.EdgeDuals = make([]consensus.EdgeDual, len(a.nb))
		for k := range a.nb {
			rep.EdgeDuals[k] = consensus.EdgeDual{Peer: a.nb[k].j, Y: append([]float64(nil), a.y[k*a.n:(k+1)*a.n]...), Version: a.ver[k]}
		}
	}
	return rep
}

// Measures declares what the agents report in consensus.Report.Measures:
// kkt = sqrt(sum_i ||(1/N) grad f_i(x_i) + Lambda_i||^2) and dual_norm =
// ||lambda|| / sqrt(2) = sqrt(sum_e ||y_e||^2).
func Measures() []consensus.Measure {
	return []consensus.Measure{
		{Name: consensus.MeasureKKT, Reduce: consensus.ReduceNorm, Doc: "norm of the stationarity residual"},
		{Name: consensus.MeasureDualNorm, Reduce: consensus.ReduceNorm, Doc: "sqrt(sum_e ||y_e||^2)"},
	}
}

// kktSq returns ||(1/N) grad f_i(x_i) + Lambda_i||^2.
func (a *Agent) kktSq() float64 {
	a.lambda(a.v)
	return a.l.KKTSq(a.x, a.v, a.kg)
}
