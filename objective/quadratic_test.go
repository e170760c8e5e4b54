package objective

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestQuadratic(t *testing.T) {
	tests := []struct {
		name      string
		f         Local
		x         []float64
		wantValue float64
		wantGrad  []float64
		wantL     float64
	}{
		{"defaults", Quadratic(3, nil, nil), []float64{1, 2, -2}, 4.5, []float64{1, 2, -2}, 1},
		{"diag and centre", Quadratic(2, []float64{2, 4}, []float64{1, -1}), []float64{0, 0}, 3, []float64{-2, 4}, 4},
		{"short slices", Quadratic(3, []float64{3}, []float64{1}), []float64{2, 1, 1}, 2.5, []float64{3, 1, 1}, 3},
		{"noisy", QuadraticNoisy([]float64{1, 0.5}, []float64{2, 2}, 0.3), []float64{0, 0}, 3, []float64{-2, -1}, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.f.Dim() != len(tc.x) {
				t.Fatalf("Dim = %d, want %d", tc.f.Dim(), len(tc.x))
			}
			if v := tc.f.Value(tc.x); math.Abs(v-tc.wantValue) > 1e-15 {
				t.Errorf("Value = %g, want %g", v, tc.wantValue)
			}
			g := make([]float64, len(tc.x))
			tc.f.Grad(tc.x, g)
			for k := range g {
				if g[k] != tc.wantGrad[k] {
					t.Errorf("Grad = %v, want %v", g, tc.wantGrad)
					break
				}
			}
			if l := tc.f.Smoothness(); l != tc.wantL {
				t.Errorf("Smoothness = %g, want %g", l, tc.wantL)
			}
		})
	}
}

// TestQuadraticNoisy checks that StochGrad is Grad plus noise of standard
// deviation sigma, reproducible from the rng seed.
func TestQuadraticNoisy(t *testing.T) {
	const sigma, draws = 0.5, 20000
	f := QuadraticNoisy([]float64{1, 2}, []float64{1, -1}, sigma)
	x := []float64{0.5, 0.5}
	g, sg := make([]float64, 2), make([]float64, 2)
	f.Grad(x, g)
	rng := rand.New(rand.NewPCG(1, 2))
	var mean, sq [2]float64
	for range draws {
		if n := f.StochGrad(x, sg, rng); n != 1 {
			t.Fatalf("StochGrad returned %d samples, want 1", n)
		}
		for k := range sg {
			e := sg[k] - g[k]
			mean[k] += e / draws
			sq[k] += e * e / draws
		}
	}
	for k := range 2 {
		if math.Abs(mean[k]) > 5*sigma/math.Sqrt(draws) {
			t.Errorf("coordinate %d: mean noise %g, want 0", k, mean[k])
		}
		if sd := math.Sqrt(sq[k]); math.Abs(sd-sigma) > 0.02 {
			t.Errorf("coordinate %d: noise standard deviation %g, want %g", k, sd, sigma)
		}
	}
	a, b := make([]float64, 2), make([]float64, 2)
	f.StochGrad(x, a, rand.New(rand.NewPCG(7, 7)))
	f.StochGrad(x, b, rand.New(rand.NewPCG(7, 7)))
	if a[0] != b[0] || a[1] != b[1] {
		t.Errorf("same seed gave %v and %v", a, b)
	}
}

// TestNewQuadraticProblem checks the closed-form optimum against the box
// KKT condition, with one coordinate clipped by the box.
func TestNewQuadraticProblem(t *testing.T) {
	d := [][]float64{{1, 2, 1}, {3, 2, 1}}
	c := [][]float64{{0, 5, -1}, {4, 5, 1}}
	p, err := NewQuadraticProblem(Box{Lo: -1, Hi: 2}, d, c, 0.1)
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{2, 2, 0} // unclipped (3, 5, 0)
	g := make([]float64, 3)
	p.FullGrad(p.XStar, g)
	for k := range want {
		if math.Abs(p.XStar[k]-want[k]) > 1e-15 {
			t.Errorf("XStar = %v, want %v", p.XStar, want)
			break
		}
	}
	if r := naturalResidual(p.Box, p.XStar, g); r > 1e-14 {
		t.Errorf("KKT residual %g", r)
	}
	bad := []struct {
		name string
		d, c [][]float64
		box  Box
	}{
		{"no agents", nil, nil, Box{-1, 1}},
		{"ragged", [][]float64{{1, 1}, {1}}, [][]float64{{0, 0}, {0}}, Box{-1, 1}},
		{"c count", [][]float64{{1}}, nil, Box{-1, 1}},
		{"flat coordinate", [][]float64{{1, 0}}, [][]float64{{0, 0}}, Box{-1, 1}},
		{"empty box", [][]float64{{1}}, [][]float64{{0}}, Box{1, 1}},
	}
	for _, tc := range bad {
		if _, err := NewQuadraticProblem(tc.box, tc.d, tc.c, 0); err == nil {
			t.Errorf("%s: no error", tc.name)
		}
	}
}
