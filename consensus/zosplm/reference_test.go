package zosplm

import (
	"math"
	"testing"

	"github.com/consim/consim/problems/qcqp"
)

// smallParams are parameters for an instance of n variables: the default
// rule with a small mini-batch, an uneven chunk split (k = 40 in chunks of
// 7) and r = 1e-2, so that the rounding of the finite differences (which
// n/r amplifies) stays near 1e-14 and the comparison can be tight.
func smallParams(n int) SPLMParams {
	p := DefaultSPLMParams(n)
	p.Estimator.K, p.Estimator.Chunk, p.Estimator.R = 40, 7, 1e-2
	return p
}

func relDiff(a, b []float64) float64 {
	var d float64
	for i := range a {
		d = math.Max(d, math.Abs(a[i]-b[i])/(1+math.Abs(b[i])))
	}
	return d
}

// TestServerMatchesReference runs the server (requests, chunks, oracle,
// reduction) and the matrix-form reference on the same directions and
// checks x, z and y to 1e-12 after every iteration. At the paper's
// r = 1e-5 the two differ by the rounding of the values (about 1e-16 |L|)
// amplified by n/r in eq. (3): a few 1e-13 over 30 iterations, checked to
// 1e-10.
func TestServerMatchesReference(t *testing.T) {
	for _, tc := range []struct {
		name      string
		n, m      int
		dist      Dist
		exactProx bool
		r, tol    float64
	}{
		{"sphere", 8, 1, Sphere, false, 1e-2, 1e-12},
		{"gaussian", 8, 1, Gaussian, false, 1e-2, 1e-12},
		{"sphere exact prox", 8, 1, Sphere, true, 1e-2, 1e-12},
		{"two constraints", 6, 2, Sphere, false, 1e-2, 1e-12},
		{"paper radius", 8, 1, Sphere, false, 1e-5, 1e-10},
		{"paper radius two constraints", 6, 2, Sphere, false, 1e-5, 1e-10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q, err := qcqp.New(tc.n, tc.m, 3)
			if err != nil {
				t.Fatal(err)
			}
			prm := smallParams(tc.n)
			prm.Estimator.Dist, prm.Estimator.ExactProx = tc.dist, tc.exactProx
			prm.Y0 = 0.5
			prm.Estimator.R = tc.r
			x0 := make([]float64, tc.n)
			for i := range x0 {
				x0[i] = 0.1 * float64(i%3-1)
			}
			s, err := NewServer(0, q.Box, tc.m, x0, prm, 11)
			if err != nil {
				t.Fatal(err)
			}
			ref, err := NewReference(q, q.Box, x0, prm, 11)
			if err != nil {
				t.Fatal(err)
			}
			d := NewDriver(s, NewOracle(q))
			var worst float64
			for it := range 30 {
				if err := d.Round(); err != nil {
					t.Fatal(err)
				}
				// After round it the server holds y_it; the reference
				// holds y^it before its step it.
				if dy := relDiff(s.Y(), ref.Y.RawVector().Data); dy > tc.tol {
					t.Fatalf("iteration %d: y differs by %g", it, dy)
				}
				ref.Step()
				dx := relDiff(s.X(), ref.X.RawVector().Data)
				dz := relDiff(s.Z(), ref.Z.RawVector().Data)
				worst = math.Max(worst, math.Max(dx, dz))
				if dx > tc.tol || dz > tc.tol {
					t.Fatalf("iteration %d: x differs by %g, z by %g", it, dx, dz)
				}
			}
			moved := relDiff(s.X(), x0)
			if moved < 1e-3 {
				t.Fatalf("x moved by %g only: the comparison is vacuous", moved)
			}
			t.Logf("largest relative difference over 30 iterations: %.2g", worst)
		})
	}
}
