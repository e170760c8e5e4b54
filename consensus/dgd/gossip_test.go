package dgd

import (
	"fmt"
	"math"
	"os"
	"testing"

	"github.com/consim/consim/graph"
)

// gossipCase is a topology and presence probability of the gossip tests.
type gossipCase struct {
	name string
	g    *graph.Graph
	p    float64
}

func gossipCases(t *testing.T, ps []float64) []gossipCase {
	t.Helper()
	ring, err := graph.Ring(16)
	if err != nil {
		t.Fatal(err)
	}
	torus, err := graph.Grid(4, 4, true)
	if err != nil {
		t.Fatal(err)
	}
	var cs []gossipCase
	for _, base := range []gossipCase{{name: "ring16", g: ring}, {name: "torus4x4", g: torus}} {
		for _, p := range ps {
			g, err := base.g.WithUniformP(p)
			if err != nil {
				t.Fatal(err)
			}
			cs = append(cs, gossipCase{name: fmt.Sprintf("%s p=%g", base.name, p), g: g, p: p})
		}
	}
	return cs
}

// observedMeanSquare runs pure-gossip DGD agents (no objective) in
// lockstep for the given seeds (edge process and initial point) and
// returns the fitted per-round factor (Contraction, DefaultWindow) of the
// squared disagreement sum_i ||x_i - xbar||^2 averaged over all seeds, and
// the standard deviation of the factors fitted on 10 batches of the seeds
// divided by sqrt(10), a rough standard error. Every run lasts the given
// number of rounds.
func observedMeanSquare(t *testing.T, g *graph.Graph, seeds, rounds int) (Fit, float64) {
	t.Helper()
	const n, batches = 2, 10
	mean := make([]float64, rounds+1)
	batch := make([][]float64, batches)
	for b := range batch {
		batch[b] = make([]float64, rounds+1)
	}
	for s := range seeds {
		x0 := startPoints(g.N, n, 1, uint64(1000+s))
		nw := newNetwork(t, DefaultParams(), g, graph.Bernoulli{G: g, Seed: uint64(s)}, nil, x0)
		sq := Disagreement(x0)
		mean[0] += sq / float64(seeds)
		batch[s%batches][0] += sq
		for r := range rounds {
			nw.round(t, r)
			sq = Disagreement(nw.xs())
			mean[r+1] += sq / float64(seeds)
			batch[s%batches][r+1] += sq
		}
	}
	fit, err := Contraction(mean, DefaultWindow)
	if err != nil {
		t.Fatal(err)
	}
	var m, m2 float64
	if seeds >= batches {
		for _, b := range batch {
			f, err := Contraction(b, DefaultWindow)
			if err != nil {
				t.Fatal(err)
			}
			m, m2 = m+f.Rate/batches, m2+f.Rate*f.Rate/batches
		}
	}
	return fit, math.Sqrt(math.Max(m2-m*m, 0) * batches / (batches - 1) / batches)
}

// roundsFor returns enough rounds for a mean-square factor rho to fall to
// 1e-22.
func roundsFor(rho float64) int {
	if rho <= 0 {
		return 10
	}
	return int(math.Ceil(math.Log(1e-22)/math.Log(rho))) + 10
}

// checkGossip compares the observed mean-square factor over the given
// number of seeds (0: 20 for p = 1, else by a budget of rounds) with the
// predicted one,
// graph.GossipRates with Metropolis-Hastings weights.
func checkGossip(t *testing.T, c gossipCase, seeds int, tol float64) {
	r, err := c.g.GossipRates(graph.Mixing{}, graph.GossipOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rounds := roundsFor(r.MeanSquare)
	switch {
	case seeds > 0:
	case c.p == 1: // W is deterministic: the seeds only vary x_0
		seeds = 20
	default: // a budget of about 3e5 rounds, at least 200 seeds
		seeds = min(max(300000/rounds, 200), 4000)
	}
	fit, se := observedMeanSquare(t, c.g, seeds, rounds)
	d := fit.Rate - r.MeanSquare
	t.Logf("%s: observed %.5f +- %.5f (rounds %d..%d, %d seeds), predicted rho2 %.5f, diff %+.5f; first^2 %.5f, worst %.5f",
		c.name, fit.Rate, se, fit.From, fit.To, seeds, r.MeanSquare, d, r.FirstMoment*r.FirstMoment, r.WorstStep)
	if math.Abs(d) > tol {
		t.Errorf("%s: observed mean-square factor %.5f, predicted %.5f: differ by %.5f > %v", c.name, fit.Rate, r.MeanSquare, d, tol)
	}
}

// TestGossipContraction is the cheap version of TestGossipContractionLong:
// the deterministic case p = 1 (one seed, tolerance 1e-4) and p = 0.7 with
// a few seeds.
func TestGossipContraction(t *testing.T) {
	for _, c := range gossipCases(t, []float64{1}) {
		checkGossip(t, c, 1, 1e-4)
	}
	for _, c := range gossipCases(t, []float64{0.7})[:1] {
		checkGossip(t, c, 20, 0.003)
	}
}

// TestGossipContractionLong checks that DGD with zero gradient contracts
// the disagreement at the mean-square factor graph predicts, within
// +-0.003, on a ring of 16 and a 4x4 torus with p in {1, 0.7, 0.3}, over
// 200 to 4000 seeds for p < 1 (a budget of about 3e5 rounds per case), 20
// for p = 1: the average of
// ||e_t||^2 over seeds is dominated by rare slow runs as t grows, so the
// fast-mixing cases need many seeds for their mean to settle.
func TestGossipContractionLong(t *testing.T) {
	if os.Getenv("CONSIM_LONG") != "1" {
		t.Skip("long: set CONSIM_LONG=1")
	}
	for _, c := range gossipCases(t, []float64{1, 0.7, 0.3}) {
		checkGossip(t, c, 0, 0.003)
	}
}
