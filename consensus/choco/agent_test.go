package choco

import (
	"math"
	"testing"

	"github.com/consim/consim/consensus/compress"
	"github.com/consim/consim/consensus/gossip"
	"github.com/consim/consim/consensus/lockstep"
	"github.com/consim/consim/graph"
	"github.com/consim/consim/objective"
)

var (
	top10 = compress.Spec{Operator: compress.NameTopK, Fraction: 0.1}
	rand3 = compress.Spec{Operator: compress.NameRandK, Fraction: 0.3}
	qsgd4 = compress.Spec{Operator: compress.NameQSGD, Bits: 4}
	qsgd2 = compress.Spec{Operator: compress.NameQSGD, Bits: 2}
	none  = compress.Spec{Operator: compress.NameNone}
)

// TestAgentsMatchReference steps N agents with the lockstep driver and the
// matrix form on the same edge draws, samples and compression draws, and
// checks that every x_i equals the reference's bit for bit after every
// one of 150 rounds, for CHOCO-gossip and CHOCO-SGD, every operator,
// edges present with probability 0.6 (so that copies are reset by whole
// xhat messages), a Gilbert-Elliott process, and p = 1.
func TestAgentsMatchReference(t *testing.T) {
	const N, n, rounds = 9, 12, 150
	g := randomGraph(t, N, 0.3, 0.6, 7)
	full := randomGraph(t, N, 0.3, 1, 7)
	ge, err := graph.NewGilbertElliott(g, 9, 0.1, 0.3, 0.2)
	if err != nil {
		t.Fatal(err)
	}
	ls := problem(t, objective.KindLeastSquares, N, n, 30, 3, 2)
	lg := problem(t, objective.KindLogistic, N, n, 30, 3, 4)
	uniform := gossip.Mixing{Rule: graph.MixUniform, Weight: 0.9 / float64(g.MaxDegree())}
	tests := []struct {
		name   string
		gossip GossipParams
		sgd    *Params
		g      *graph.Graph
		proc   graph.EdgeProcess
		locals []objective.Local
	}{
		{"gossip top10 dropout", GossipParams{Gamma: 0.2, Compression: top10, Seed: 3}, nil, g, graph.Bernoulli{G: g, Seed: 21}, nil},
		{"gossip qsgd4 p=1", GossipParams{Gamma: 0.6, Compression: qsgd4, Seed: 3}, nil, full, graph.Bernoulli{G: full, Seed: 21}, nil},
		{"gossip rand30 uniform gilbert-elliott", GossipParams{Gamma: 0.3, Compression: rand3, Mixing: uniform, Seed: 5}, nil, g, ge, nil},
		{"sgd top10 stochastic dropout", GossipParams{}, &Params{Step: 0.05, GossipParams: GossipParams{Gamma: 0.2, Compression: top10, Seed: 3}}, g, graph.Bernoulli{G: g, Seed: 21}, ls.Locals},
		{"sgd qsgd2 full sqrt logistic", GossipParams{}, &Params{Step: 0.3, Schedule: ScheduleSqrt, Gradient: GradientFull, GossipParams: GossipParams{Gamma: 0.4, Compression: qsgd2, Seed: 6}}, g, graph.Bernoulli{G: g, Seed: 4}, lg.Locals},
		{"sgd none gamma 1 p=1", GossipParams{}, &Params{Step: 0.05, GossipParams: GossipParams{Gamma: 1, Compression: none, Seed: 1}}, full, graph.Bernoulli{G: full, Seed: 2}, ls.Locals},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			x0 := startPoints(N, n, 2, 8)
			nw := newNetwork(t, tc.gossip, tc.sgd, tc.g, tc.proc, tc.locals, x0, lockstep.Symmetric())
			var ref *Reference
			if tc.sgd == nil {
				ref, err = NewGossipReference(tc.gossip, tc.g, tc.proc, x0)
			} else {
				ref, err = NewReference(*tc.sgd, tc.g, tc.proc, tc.locals, x0)
			}
			if err != nil {
				t.Fatal(err)
			}
			var moved float64
			for r := range rounds {
				nw.round(t, r)
				ref.Step(r)
				for i, a := range nw.agents {
					x := a.Report().X
					if !sameBits(x, ref.X(i)) {
						t.Fatalf("round %d agent %d: x = %v, reference %v", r, i, x[:3], ref.X(i)[:3])
					}
					if !sameBits(a.xhat, ref.Xhat(i)) {
						t.Fatalf("round %d agent %d: xhat differs from the reference", r, i)
					}
					moved = math.Max(moved, dist(x, x0[i]))
				}
			}
			var evals int64
			for _, a := range nw.agents {
				evals += a.Report().GradEvals
			}
			if evals != ref.GradEvals() || (tc.sgd != nil) != (evals > 0) {
				t.Errorf("oracle calls: agents %d, reference %d", evals, ref.GradEvals())
			}
			if moved < 0.1 {
				t.Errorf("iterates moved only %.3g: the comparison is vacuous", moved)
			}
		})
	}
}

// TestCopiesStayExact: with edges dropping out, every copy hat_j that
// agent i holds of a present neighbour equals j's own xhat_j bit for bit
// after every round (whole copies reset those that fell behind), and
// whole copies were sent.
func TestCopiesStayExact(t *testing.T) {
	const N, n, rounds = 8, 10, 100
	g := randomGraph(t, N, 0.4, 0.5, 3)
	proc := graph.Bernoulli{G: g, Seed: 9}
	nw := newNetwork(t, GossipParams{Gamma: 0.3, Compression: top10, Seed: 2}, nil, g, proc, nil, startPoints(N, n, 1, 4), lockstep.Symmetric())
	resets := 0
	for r := range rounds {
		nw.round(t, r)
		for i, a := range nw.agents {
			for k, j := range a.nbrs {
				if a.sentWhole[k] {
					resets++
				}
				if a.w[k] == 0 {
					continue
				}
				if !a.mine[k] || !sameBits(a.hat[k], nw.agents[j].xhat) {
					t.Fatalf("round %d: agent %d's copy of xhat_%d (current: %v) differs from it", r, i, j, a.mine[k])
				}
			}
		}
	}
	if resets == 0 {
		t.Error("no whole copy was sent: the dropout path is not exercised")
	}
	t.Logf("%d whole copies over %d rounds", resets, rounds)
}

// TestLostMessageResets drops one message of a present edge (a fault, not
// the graph process) in each direction in turn: the receiver leaves the
// sender out of its mixing while its copy is stale, the edge is reset by
// whole copies, and after two more rounds every copy is exact again.
func TestLostMessageResets(t *testing.T) {
	const N, n, rounds = 6, 5, 12
	g := randomGraph(t, N, 0, 1, 1) // a ring, every edge always present
	proc := graph.Bernoulli{G: g, Seed: 1}
	for _, lost := range [][2]int{{1, 2}, {2, 1}} {
		drop := func(t, _, from, to int) bool { return t == 3 && from == lost[0] && to == lost[1] }
		nw := newNetwork(t, GossipParams{Gamma: 0.4, Compression: qsgd4, Seed: 2}, nil, g, proc, nil, startPoints(N, n, 1, 4), lockstep.WithDrop(drop))
		for r := range rounds {
			nw.round(t, r)
			recv := nw.agents[lost[1]]
			k := 0
			for recv.nbrs[k] != lost[0] {
				k++
			}
			if r == 3 && recv.mine[k] {
				t.Fatalf("lost %v: the receiver's copy is marked current after the loss", lost)
			}
			if r >= 6 {
				for i, a := range nw.agents {
					for k, j := range a.nbrs {
						if !a.mine[k] || !a.theirs[k] || !sameBits(a.hat[k], nw.agents[j].xhat) {
							t.Fatalf("lost %v, round %d: agent %d's copy of xhat_%d is not exact (mine %v theirs %v)", lost, r, i, j, a.mine[k], a.theirs[k])
						}
					}
				}
			}
		}
	}
}

// TestGossipAverages: CHOCO-gossip keeps the average of the x_i and
// drives the disagreement sum_i ||x_i - xbar||^2 down by twelve orders of
// magnitude in 3,000 rounds with top 10% and with 4-bit qsgd, on a
// random graph whose edges drop out.
func TestGossipAverages(t *testing.T) {
	const N, n, rounds = 10, 50, 3000
	g := randomGraph(t, N, 0.3, 0.7, 5)
	proc := graph.Bernoulli{G: g, Seed: 3}
	x0 := startPoints(N, n, 1, 6)
	for _, tc := range []struct {
		spec  compress.Spec
		gamma float64
	}{{top10, 0.05}, {qsgd4, 0.3}} {
		nw := newNetwork(t, GossipParams{Gamma: tc.gamma, Compression: tc.spec, Seed: 1}, nil, g, proc, nil, x0)
		d0, mean0 := disagreement(nw.xs())
		for r := range rounds {
			nw.round(t, r)
		}
		d, mean := disagreement(nw.xs())
		t.Logf("%s: disagreement %.3g -> %.3g after %d rounds; average moved %.3g", tc.spec.Operator, d0, d, rounds, dist(mean, mean0))
		if !(d < 1e-12*d0) {
			t.Errorf("%s: disagreement %.3g after %d rounds, from %.3g: want below 1e-12 of it", tc.spec.Operator, d, rounds, d0)
		}
		if e := dist(mean, mean0); e > 1e-12 {
			t.Errorf("%s: the average moved by %.3g", tc.spec.Operator, e)
		}
	}
}

// TestNoneWithGammaOneIsDGD: with no compression and gamma = 1, q_i =
// x_i^{t+1/2} - xhat_i, so xhat_i = x_i^{t+1/2} and CHOCO-SGD is
// adapt-then-combine DGD, x^{t+1} = W(zeta_t) (x^t - eta g^t), computed
// here directly from W's rows (to 1e-12: the summation order differs).
func TestNoneWithGammaOneIsDGD(t *testing.T) {
	const N, n, rounds = 7, 4, 60
	g := randomGraph(t, N, 0.3, 0.6, 2)
	proc := graph.Bernoulli{G: g, Seed: 5}
	ls := problem(t, objective.KindLeastSquares, N, n, 20, 2, 3)
	x0 := startPoints(N, n, 1, 1)
	p := Params{Step: 0.05, Gradient: GradientFull, GossipParams: GossipParams{Gamma: 1, Compression: none}}
	nw := newNetwork(t, GossipParams{}, &p, g, proc, ls.Locals, x0)
	x := make([][]float64, N)
	for i := range x {
		x[i] = append([]float64(nil), x0[i]...)
	}
	grad := make([]float64, n)
	for r := range rounds {
		nw.round(t, r)
		w := p.Mixing.Graph().Matrix(g, proc, r, gossip.EdgeDraw)
		half := make([][]float64, N)
		for i := range half {
			ls.Locals[i].Grad(x[i], grad)
			half[i] = make([]float64, n)
			for l := range half[i] {
				half[i][l] = x[i][l] - p.Step*grad[l]
			}
		}
		for i := range x {
			for l := range x[i] {
				x[i][l] = 0
				for j := range N {
					x[i][l] += w.At(i, j) * half[j][l]
				}
			}
		}
		for i, a := range nw.agents {
			if d := dist(a.Report().X, x[i]); d > 1e-12 {
				t.Fatalf("round %d agent %d: CHOCO-SGD and ATC-DGD differ by %.3g", r, i, d)
			}
		}
	}
}

// TestSGDReachesOptimum runs CHOCO-SGD with full gradients and top 10%
// compression on least squares over a random graph with dropout, and
// checks the behaviour of decentralized gradient methods against x*, the
// optimum package objective computes independently: with a constant step
// the agents stop at a distance proportional to eta (quartering eta
// quarters it, within a factor 2.5..6), and the diminishing step
// eta/sqrt(t+1) keeps approaching x*.
func TestSGDReachesOptimum(t *testing.T) {
	const N, n = 6, 20
	ls := problem(t, objective.KindLeastSquares, N, n, 40, 4, 7)
	g := randomGraph(t, N, 0.3, 0.8, 4)
	proc := graph.Bernoulli{G: g, Seed: 6}
	x0 := startPoints(N, n, 1, 2)
	worst := func(step float64, schedule string, rounds int) float64 {
		p := Params{Step: step, Schedule: schedule, Gradient: GradientFull, GossipParams: GossipParams{Gamma: 0.1, Compression: top10}}
		nw := newNetwork(t, GossipParams{}, &p, g, proc, ls.Locals, x0)
		for r := range rounds {
			nw.round(t, r)
		}
		var d float64
		for _, x := range nw.xs() {
			d = math.Max(d, dist(x, ls.XStar))
		}
		return d
	}
	const eta = 0.1
	b1, b4 := worst(eta, ScheduleConstant, 4000), worst(eta/4, ScheduleConstant, 16000)
	t.Logf("max_i ||x_i - x*||: %.4g at eta = %g, %.4g at eta/4: ratio %.3f", b1, eta, b4, b1/b4)
	if !(b1 > 1e-4 && b1/b4 > 2.5 && b1/b4 < 6) {
		t.Errorf("bias %.3g at eta, %.3g at eta/4: want it proportional to eta", b1, b4)
	}
	s1, s2 := worst(eta, ScheduleSqrt, 1000), worst(eta, ScheduleSqrt, 8000)
	t.Logf("diminishing step: %.4g after 1000 rounds, %.4g after 8000", s1, s2)
	if !(s2 < s1/1.5) {
		t.Errorf("diminishing step: distance %.3g after 1000 rounds, %.3g after 8000: not approaching x*", s1, s2)
	}
}
