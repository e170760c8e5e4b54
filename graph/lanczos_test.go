package graph

import (
	"math"
	"os"
	"testing"
)

// TestLanczosAgainstDense compares the Lanczos extreme eigenvalues with
// the dense eigensolver on graphs small enough for it, with unit, p and
// p^2 weights.
func TestLanczosAgainstDense(t *testing.T) {
	type build func() (*Graph, error)
	withP := func(b build, lo, hi float64) build {
		return func() (*Graph, error) {
			g, err := b()
			if err != nil {
				return nil, err
			}
			return g.WithRandomP(lo, hi, 7)
		}
	}
	cases := []struct {
		name  string
		build build
	}{
		{"ring/200", func() (*Graph, error) { return Ring(200) }},
		{"path/200", func() (*Graph, error) { return Path(200) }},
		{"torus/12x20", func() (*Graph, error) { return Grid(12, 20, true) }},
		{"grid/17x23", func() (*Graph, error) { return Grid(17, 23, false) }},
		{"star/200", func() (*Graph, error) { return Star(200) }},
		{"complete/60", func() (*Graph, error) { return Complete(60) }},
		{"erdos-renyi/200/random-p", withP(func() (*Graph, error) { return ErdosRenyi(200, 0.04, 3) }, 0.1, 1)},
		{"geometric/250/random-p", withP(func() (*Graph, error) { return RandomGeometric(250, 0.12, 5) }, 0.2, 0.9)},
		{"torus/15x15/random-p", withP(func() (*Graph, error) { return Grid(15, 15, true) }, 0.05, 1)},
	}
	for _, c := range cases {
		g, err := c.build()
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		for _, w := range []struct {
			name string
			w    Weight
		}{{"L_1", Unit}, {"L_p", ByP}, {"L_p2", ByP2}} {
			ev := SymEigenvalues(g.Laplacian(w.w))
			wantMax, want2 := ev[len(ev)-1], ev[1]
			gotMax := g.LanczosLambdaMax(w.w)
			if rel := math.Abs(gotMax.Value-wantMax) / wantMax; rel > 1e-9 {
				t.Errorf("%s %s: Lanczos lambda_max = %.17g after %d steps (residual %.3g), dense %.17g: relative error %.3g > 1e-9",
					c.name, w.name, gotMax.Value, gotMax.Steps, gotMax.Residual, wantMax, rel)
			}
			if gotMax.Value > wantMax*(1+1e-12) || gotMax.Upper < wantMax*(1-1e-12) {
				t.Errorf("%s %s: [Ritz value, upper bound] = [%.17g, %.17g] does not bracket lambda_max %.17g", c.name, w.name, gotMax.Value, gotMax.Upper, wantMax)
			}
			got2 := g.LanczosLambda2(w.w)
			if rel := math.Abs(got2.Value-want2) / wantMax; rel > 1e-9 {
				t.Errorf("%s %s: Lanczos lambda_2 = %.17g after %d steps (residual %.3g), dense %.17g: error %.3g lambda_max > 1e-9",
					c.name, w.name, got2.Value, got2.Steps, got2.Residual, want2, rel)
			}
		}
	}
}

// TestLanczosClosedForm checks lambda_max and lambda_2 of a torus too
// large for the dense route against the closed form of C_r x C_c:
// eigenvalues (2 - 2 cos(2 pi a/r)) + (2 - 2 cos(2 pi b/c)).
func TestLanczosClosedForm(t *testing.T) {
	r, c := 40, 50
	g, err := Grid(r, c, true)
	if err != nil {
		t.Fatal(err)
	}
	ring := func(n, k int) float64 { return 2 - 2*math.Cos(2*math.Pi*float64(k)/float64(n)) }
	wantMax := ring(r, r/2) + ring(c, c/2)
	want2 := min(ring(r, 1), ring(c, 1))
	if got, err := g.LambdaMax(nil); err != nil || math.Abs(got-wantMax) > 1e-9*wantMax {
		t.Errorf("lambda_max of torus %dx%d = %.17g (err %v), closed form %.17g", r, c, got, err, wantMax)
	}
	if got, err := g.Lambda2(nil); err != nil || math.Abs(got-want2) > 1e-9*wantMax {
		t.Errorf("lambda_2 of torus %dx%d = %.17g (err %v), closed form %.17g", r, c, got, err, want2)
	}
}

// TestLanczosLarge checks the sparse lambda_max of a 1000 x 1000 torus,
// whose top eigenvalues cluster within 4e-5 of lambda_max = 8: the Ritz
// value after LanczosMaxSteps steps and the certified upper bound.
func TestLanczosLarge(t *testing.T) {
	if os.Getenv("CONSIM_LONG") == "" {
		t.Skip("set CONSIM_LONG=1")
	}
	g, err := Grid(1000, 1000, true)
	if err != nil {
		t.Fatal(err)
	}
	r := g.LanczosLambdaMax(nil)
	if math.Abs(r.Value-8) > 1e-5*8 || r.Upper < 8 {
		t.Errorf("lambda_max of the 1000x1000 torus: [%.17g, %.17g] after %d steps (residual %.3g), want 8 within 1e-5 and bracketed",
			r.Value, r.Upper, r.Steps, r.Residual)
	}
	t.Logf("lambda_max in [%.17g, %.17g], %d steps, residual %.3g", r.Value, r.Upper, r.Steps, r.Residual)
}
