package dadmm

import (
	"math"
	"testing"

	"github.com/consim/consim/graph"
	"github.com/consim/consim/objective"
)

// TestExactConvergesLinearly runs exact DADMM on a static graph (p = 1) and
// on a random time-varying one, and checks the distance of every x_i to
// the known optimum x* of the centralized problem: below 1e-8 within the
// horizon, at a linear rate (see geometric).
func TestExactConvergesLinearly(t *testing.T) {
	tests := []struct {
		name   string
		cfg    Config
		p      func(t *testing.T) *objective.Problem
		edgeP  float64
		rounds int
	}{
		{"least squares, static", Config{C: 0.05},
			func(t *testing.T) *objective.Problem { return lsProblem(t, 6, 5, 30, 1, 0.05, 3) }, 1, 400},
		{"quadratic, static", Config{C: 1},
			func(t *testing.T) *objective.Problem { return quadProblem(t, 8, 4, 0, 4) }, 1, 300},
		{"quadratic, time-varying p = 0.7", Config{C: 1},
			func(t *testing.T) *objective.Problem { return quadProblem(t, 8, 4, 0, 5) }, 0.7, 600},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := tc.p(t)
			N, n := p.N(), p.Dim()
			g := randomGraph(t, N, 0.2, tc.edgeP, 1)
			x0 := startPoints(N, n, 3, 2)
			nw := newNetwork(t, tc.cfg, g, graph.Bernoulli{G: g, Seed: 3}, p, x0)
			errs := []float64{nw.maxDist(p.XStar)}
			for r := range tc.rounds {
				nw.run(t, r, 1)
				errs = append(errs, nw.maxDist(p.XStar))
			}
			k8 := firstBelow(errs, 1e-8)
			t.Logf("max_i ||x_i - x*||: %.3g at 0, below 1e-8 from round %d, %.3g at %d", errs[0], k8, errs[tc.rounds], tc.rounds)
			if k8 < 0 {
				t.Fatalf("after %d rounds max_i ||x_i - x*|| = %.3g, want < 1e-8", tc.rounds, errs[tc.rounds])
			}
			if w, ok := geometric(errs[:k8+1]); !ok {
				t.Errorf("no linear rate: the error does not halve within every window of %d rounds", w)
			}
			var kkt, dsum float64
			for _, a := range nw.agents {
				kkt += a.Report().Measures[0]
			}
			dsum = norm(nw.dualSum())
			if kkt > 1e-14 || dsum > 1e-10 {
				t.Errorf("sum_i KKTSq = %.3g, ||sum_i a_i|| = %.3g; want both ~0", kkt, dsum)
			}
		})
	}
}

// firstBelow returns the first index k with errs[k] < tol, or -1.
func firstBelow(errs []float64, tol float64) int {
	for k, e := range errs {
		if e < tol {
			return k
		}
	}
	return -1
}

// geometric reports whether errs, recorded until the error first fell
// below the target at round K, halves within every window of W = K/4
// rounds: e(k+W) <= e(k)/2 for all k <= K-W. A linear rate q passes
// (q^W is far below 1/2 when K rounds reach a 1e-8 target); a sublinear
// rate e(k) ~ 1/k fails for every k >= W.
func geometric(errs []float64) (int, bool) {
	w := max(1, (len(errs)-1)/4)
	for k := 0; k+w < len(errs); k++ {
		if errs[k+w] > errs[k]/2 {
			return w, false
		}
	}
	return w, true
}

// TestLinearizedConverges checks the linearized method: with exact
// gradients it converges to x* (to 1e-8); with noisy gradients it reaches
// a neighbourhood of x* much smaller than the start and of the size the
// noise sets, shrinking with the step tau.
func TestLinearizedConverges(t *testing.T) {
	const N, n = 6, 3
	g := randomGraph(t, N, 0.3, 0.8, 2)
	proc := graph.Bernoulli{G: g, Seed: 4}
	x0 := startPoints(N, n, 3, 5)

	exact := quadProblem(t, N, n, 0, 6)
	nw := newNetwork(t, Config{Method: MethodLinearized, C: 0.5}, g, proc, exact, x0)
	nw.run(t, 0, 800)
	if d := nw.maxDist(exact.XStar); d > 1e-8 {
		t.Errorf("exact gradients: max_i ||x_i - x*|| = %.3g after 800 rounds, want < 1e-8", d)
	}

	noisy := quadProblem(t, N, n, 1, 6)
	var e0 float64 // rms distance of the start
	for _, x := range x0 {
		d := dist(x, noisy.XStar)
		e0 += d * d / N
	}
	e0 = math.Sqrt(e0)
	var prev float64
	for k, tau := range []float64{1, 0.1} {
		cfg := Config{Method: MethodLinearized, C: 0.5, Tau: tau, Seed: 7}
		nw := newNetwork(t, cfg, g, proc, noisy, x0)
		nw.run(t, 0, 3000)
		// Average the squared distance over the last 1000 rounds.
		var msd float64
		for r := 3000; r < 4000; r++ {
			nw.run(t, r, 1)
			for _, a := range nw.agents {
				d := dist(a.X(), noisy.XStar)
				msd += d * d / (1000 * N)
			}
		}
		rms := math.Sqrt(msd)
		t.Logf("noisy gradients, tau = %g: rms ||x_i - x*|| = %.3g (start %.3g)", tau, rms, e0)
		if rms > 0.1*e0 {
			t.Errorf("tau = %g: rms distance %.3g, want a small neighbourhood (< 0.1 of the start, %.3g)", tau, rms, e0)
		}
		if k > 0 && rms >= prev {
			t.Errorf("tau = %g: rms distance %.3g does not shrink with tau (was %.3g)", tau, rms, prev)
		}
		prev = rms
	}
}
