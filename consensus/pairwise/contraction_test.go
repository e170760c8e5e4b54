package pairwise

import (
	"fmt"
	"math"
	"testing"

	"github.com/consim/consim/async"
	"github.com/consim/consim/consensus/internal/agenttest"
	"github.com/consim/consim/graph"
	"github.com/consim/consim/observe"
)

// rateCase is a topology and presence probability of the rate tests.
type rateCase struct {
	name string
	g    *graph.Graph
	p    float64
}

func rateCases(t *testing.T, ps []float64) []rateCase {
	t.Helper()
	ring, err := graph.Ring(16)
	if err != nil {
		t.Fatal(err)
	}
	torus, err := graph.Grid(4, 4, true)
	if err != nil {
		t.Fatal(err)
	}
	er, err := graph.ErdosRenyi(16, 0.25, 1)
	if err != nil {
		t.Fatal(err)
	}
	var cs []rateCase
	for _, base := range []rateCase{{name: "ring16", g: ring}, {name: "torus4x4", g: torus}, {name: "er16(q=0.25,seed=1)", g: er}} {
		for _, p := range ps {
			g, err := base.g.WithUniformP(p)
			if err != nil {
				t.Fatal(err)
			}
			cs = append(cs, rateCase{name: fmt.Sprintf("%s p=%g", base.name, p), g: g, p: p})
		}
	}
	return cs
}

// disagreement returns sum_i ||x_i - xbar||^2.
func disagreement(agents []*Agent) float64 {
	n := len(agents[0].X())
	mean := make([]float64, n)
	for _, a := range agents {
		for l, v := range a.X() {
			mean[l] += v
		}
	}
	for l := range mean {
		mean[l] /= float64(len(agents))
	}
	var s float64
	for _, a := range agents {
		for l, v := range a.X() {
			d := v - mean[l]
			s += d * d
		}
	}
	return s
}

// observedPerTick runs gossip in simulated time with zero latency and
// unit Poisson clocks for the given seeds (clocks, neighbour draws, links
// and initial point) and returns the per-tick factor of the squared
// disagreement averaged over the seeds, fitted by observe.FitBeforeFloor
// on the window from 1e-8 of the start to the detected float floor, with
// its 95% interval from 10 batches of the seeds. sq[k] is taken at the
// network's k-th tick, before its exchange: after k ticks.
func observedPerTick(t *testing.T, g *graph.Graph, seeds, ticks int) observe.FloorFit {
	t.Helper()
	const batches = 10
	mean := make([]float64, ticks+1)
	batch := make([][]float64, batches)
	for b := range batch {
		batch[b] = make([]float64, ticks+1)
	}
	for s := range seeds {
		seed := uint64(s)
		x0 := agenttest.StartPoints(g.N, 2, 1, 1000+seed)
		var agents []*Agent
		k := 0
		observe := func(r async.Record) {
			if r.Event != async.EventTick || k > ticks {
				return
			}
			sq := disagreement(agents)
			mean[k] += sq / float64(seeds)
			batch[s%batches][k] += sq
			k++
		}
		eng, as := newEngine(t, g, seed, x0, netOptions(g, seed, async.Dist{Kind: async.DistNone}, nil, observe))
		agents = as
		// N ticks per unit time; run in steps until the curve is full.
		for step := 1; k <= ticks; step++ {
			if err := eng.Run(float64(step*ticks/g.N + step)); err != nil {
				t.Fatal(err)
			}
		}
	}
	for b := range batch {
		for k := range batch[b] {
			batch[b][k] /= float64((seeds - b + batches - 1) / batches)
		}
	}
	fit, err := observe.FitBeforeFloor(mean, batch, observe.FloorOptions{Start: 1e-8})
	if err != nil {
		t.Fatal(err)
	}
	return fit
}

// checkPerTick compares the observed mean-square factor per tick with
// graph.PairwiseGossipRates: the difference must be within tol, and the
// estimate's standard error, from the batches' 95% interval, within
// tol/4.
func checkPerTick(t *testing.T, c rateCase, seeds int, tol float64) {
	r, err := c.g.PairwiseGossipRates(nil)
	if err != nil {
		t.Fatal(err)
	}
	ticks := int(math.Ceil(math.Log(1e-40)/math.Log(r.MeanSquare))) + 20
	if seeds == 0 { // a budget of about 1.2e6 ticks, at least 20 seeds
		seeds = min(max(1200000/ticks, 20), 400)
	}
	fit := observedPerTick(t, c.g, seeds, ticks)
	d := fit.Rate - r.MeanSquare
	se := (fit.Hi - fit.Lo) / (2 * 2.262) // t_{0.975, 9}
	t.Logf("%s: observed %.5f [%.5f, %.5f] (se %.5f, ticks %d..%d, floor from %d, %d seeds); exact rho2 %.5f, diff %+.5f; lambda_2(E[W]) %.5f",
		c.name, fit.Rate, fit.Lo, fit.Hi, se, fit.From, fit.To, fit.FloorStart, seeds, r.MeanSquare, d, r.Lambda2)
	if !fit.Floor {
		t.Errorf("%s: no float floor detected in %d ticks", c.name, ticks)
	}
	if math.Abs(d) > tol {
		t.Errorf("%s: observed per-tick factor %.5f, exact %.5f: differ by %.5f > %v", c.name, fit.Rate, r.MeanSquare, d, tol)
	}
	if !(se <= tol/4) {
		t.Errorf("%s: standard error %.5f of the estimate is not well below the tolerance %v", c.name, se, tol)
	}
}

// TestContractionPerTick checks that randomized pairwise gossip in
// simulated time (zero latency, unit Poisson clocks) contracts the
// disagreement per tick of the network at the exact mean-square factor of
// graph.PairwiseGossipRates, within +-0.003 and with a standard error
// below 0.00075, on a ring of 16, a 4x4 torus and an Erdos-Renyi graph of
// 16 (q = 0.25, seed 1), each with p in {1, 0.7, 0.3}, over up to 400
// seeds (a budget of about 1.2e6 ticks per case, 20 seeds at least).
// With -short it checks the ring with p = 1 and 0.5 over 40 seeds.
func TestContractionPerTick(t *testing.T) {
	if testing.Short() {
		for _, c := range rateCases(t, []float64{1, 0.5})[:2] {
			checkPerTick(t, c, 40, 0.003)
		}
		return
	}
	for _, c := range rateCases(t, []float64{1, 0.7, 0.3}) {
		checkPerTick(t, c, 0, 0.003)
	}
}
