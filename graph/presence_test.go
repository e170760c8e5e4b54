package graph

import (
	"math"
	"strings"
	"testing"
)

func TestPresenceProbabilities(t *testing.T) {
	base, err := Complete(6)
	if err != nil {
		t.Fatal(err)
	}
	u, err := base.WithUniformP(0.3)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range u.Edges {
		if e.P != 0.3 {
			t.Fatalf("uniform: edge {%d,%d} p = %v", e.I, e.J, e.P)
		}
	}
	for _, e := range base.Edges {
		if e.P != 1 {
			t.Fatal("WithUniformP modified its receiver")
		}
	}
	f, err := base.WithEdgeP(func(i, j int) float64 { return 1 / float64(1+i+j) })
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range f.Edges {
		if want := 1 / float64(1+e.I+e.J); f.P(e.J, e.I) != want {
			t.Fatalf("per edge: p_{%d,%d} = %v, want %v", e.J, e.I, f.P(e.J, e.I), want)
		}
	}
	big, err := Complete(60)
	if err != nil {
		t.Fatal(err)
	}
	const lo, hi = 0.2, 0.6
	r, err := big.WithRandomP(lo, hi, 9)
	if err != nil {
		t.Fatal(err)
	}
	var sum, sumSq float64
	for _, e := range r.Edges {
		if e.P < lo || e.P >= hi {
			t.Fatalf("random: p = %v outside [%v, %v)", e.P, lo, hi)
		}
		sum += e.P
		sumSq += e.P * e.P
	}
	m := float64(len(r.Edges))
	mean, variance := sum/m, sumSq/m-(sum/m)*(sum/m)
	// Uniform on [lo, hi): mean (lo+hi)/2, variance (hi-lo)^2/12.
	if se := (hi - lo) / math.Sqrt(12*m); math.Abs(mean-(lo+hi)/2) > 5*se {
		t.Fatalf("random: mean p %v, want %v +- %v", mean, (lo+hi)/2, se)
	}
	if want := (hi - lo) * (hi - lo) / 12; math.Abs(variance-want) > 0.15*want {
		t.Fatalf("random: variance of p %v, want %v", variance, want)
	}
	r2, _ := big.WithRandomP(lo, hi, 9)
	r3, _ := big.WithRandomP(lo, hi, 10)
	same, differ := true, false
	for k := range r.Edges {
		same = same && r.Edges[k].P == r2.Edges[k].P
		differ = differ || r.Edges[k].P != r3.Edges[k].P
	}
	if !same || !differ {
		t.Fatalf("random: same seed reproducible %v, other seed differs %v", same, differ)
	}
	fixed, err := base.WithRandomP(0.4, 0.4, 1)
	if err != nil || fixed.Edges[3].P != 0.4 {
		t.Fatalf("random with lo = hi: %v, %v", err, fixed)
	}
}

func TestPresenceErrors(t *testing.T) {
	g, err := Ring(5)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		f    func() (*Graph, error)
		want string
	}{
		{"uniform 0", func() (*Graph, error) { return g.WithUniformP(0) }, "(0, 1]"},
		{"uniform >1", func() (*Graph, error) { return g.WithUniformP(1.01) }, "1.01"},
		{"uniform NaN", func() (*Graph, error) { return g.WithUniformP(math.NaN()) }, "NaN"},
		{"edge", func() (*Graph, error) {
			return g.WithEdgeP(func(i, j int) float64 {
				if j == 4 {
					return -0.5
				}
				return 0.5
			})
		}, "edge {0,4}"},
		{"edge nil", func() (*Graph, error) { return g.WithEdgeP(nil) }, "nil"},
		{"random lo 0", func() (*Graph, error) { return g.WithRandomP(0, 0.5, 1) }, "0 < lo <= hi <= 1"},
		{"random lo>hi", func() (*Graph, error) { return g.WithRandomP(0.6, 0.5, 1) }, "[0.6, 0.5]"},
		{"random hi>1", func() (*Graph, error) { return g.WithRandomP(0.5, 2, 1) }, "[0.5, 2]"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h, err := tc.f()
			if err == nil || h != nil {
				t.Fatalf("got (%v, %v), want an error", h, err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %q does not mention %q", err, tc.want)
			}
		})
	}
}
