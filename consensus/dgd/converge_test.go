package dgd

import (
	"math"
	"testing"

	"github.com/consim/consim/graph"
)

// TestConstantStepBias runs DGD with full gradients and a constant step on
// a least-squares problem over a random graph with p < 1, until the
// iterates settle, and checks the known behaviour against x*, the optimum
// package objective computes independently: the agents stop at a distance
// proportional to alpha (quartering alpha quarters it, within a factor
// 2.5..6), while the diminishing step alpha/sqrt(t+1) keeps approaching x*.
func TestConstantStepBias(t *testing.T) {
	p := lsProblem(t, 6, 3, 20, 1, 4)
	g := randomGraph(t, 6, 0.2, 0.7, 3)
	proc := graph.Bernoulli{G: g, Seed: 8}
	x0 := startPoints(6, 3, 1, 5)
	bias := func(par Params, rounds int) float64 {
		nw := newNetwork(t, par, g, proc, p.Locals, x0)
		for r := range rounds {
			nw.round(t, r)
		}
		var d float64
		for _, x := range nw.xs() {
			d = math.Max(d, dist(x, p.XStar))
		}
		return d
	}
	const alpha = 0.1
	b1 := bias(Params{Step: alpha, Gradient: GradientFull}, 3000)
	b4 := bias(Params{Step: alpha / 4, Gradient: GradientFull}, 12000)
	t.Logf("max_i ||x_i - x*||: %.4g at alpha = %g, %.4g at alpha/4: ratio %.3f", b1, alpha, b4, b1/b4)
	if !(b1 > 1e-4 && b1/b4 > 2.5 && b1/b4 < 6) {
		t.Errorf("bias %.3g at alpha, %.3g at alpha/4: want it proportional to alpha", b1, b4)
	}
	s1 := bias(Params{Step: alpha, Gradient: GradientFull, Schedule: ScheduleSqrt}, 1000)
	s2 := bias(Params{Step: alpha, Gradient: GradientFull, Schedule: ScheduleSqrt}, 8000)
	t.Logf("diminishing step: %.4g after 1000 rounds, %.4g after 8000", s1, s2)
	if !(s2 < s1/1.5) {
		t.Errorf("diminishing step: distance %.3g after 1000 rounds, %.3g after 8000: not approaching x*", s1, s2)
	}
}
