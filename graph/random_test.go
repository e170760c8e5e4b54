package graph

import (
	"math"
	"reflect"
	"strings"
	"testing"
)

func TestErdosRenyi(t *testing.T) {
	tests := []struct {
		n    int
		q    float64
		seed uint64
	}{
		{1, 0.5, 1},
		{2, 1, 1},
		{10, 0.5, 7},
		{40, 0.3, 11},
		{40, 0.3, 12},
		{60, 0.15, 3},
	}
	for _, tc := range tests {
		g, err := ErdosRenyi(tc.n, tc.q, tc.seed)
		if err != nil {
			t.Fatalf("G(%d, %g) seed %d: %v", tc.n, tc.q, tc.seed, err)
		}
		if !g.Connected() {
			t.Fatalf("G(%d, %g) seed %d not connected", tc.n, tc.q, tc.seed)
		}
		again, err := ErdosRenyi(tc.n, tc.q, tc.seed)
		if err != nil || !reflect.DeepEqual(g.Edges, again.Edges) {
			t.Fatalf("G(%d, %g) seed %d not reproducible", tc.n, tc.q, tc.seed)
		}
		// |E| ~ Binomial(n(n-1)/2, q): within 5 standard deviations.
		pairs := float64(tc.n * (tc.n - 1) / 2)
		mean, sd := pairs*tc.q, math.Sqrt(pairs*tc.q*(1-tc.q))
		if d := math.Abs(float64(g.NumEdges()) - mean); d > 5*sd+1e-9 {
			t.Fatalf("G(%d, %g) seed %d: |E| = %d, expected %.1f +- %.1f", tc.n, tc.q, tc.seed, g.NumEdges(), mean, sd)
		}
	}
	a, _ := ErdosRenyi(40, 0.3, 11)
	b, _ := ErdosRenyi(40, 0.3, 12)
	if reflect.DeepEqual(a.Edges, b.Edges) {
		t.Fatal("different seeds gave the same graph")
	}
}

func TestRandomGeometric(t *testing.T) {
	const n, r, seed = 60, 0.3, 5
	g, err := RandomGeometric(n, r, seed)
	if err != nil {
		t.Fatal(err)
	}
	if !g.Connected() {
		t.Fatal("not connected")
	}
	// Rebuild the accepted sample: the first attempt whose radius graph
	// is connected must reproduce g exactly.
	for a := uint64(0); a < MaxAttempts; a++ {
		var edges []Edge
		for i := 0; i < n; i++ {
			for j := i + 1; j < n; j++ {
				dx := StreamGeometric.Uniform(seed, a, uint64(i), 0) - StreamGeometric.Uniform(seed, a, uint64(j), 0)
				dy := StreamGeometric.Uniform(seed, a, uint64(i), 1) - StreamGeometric.Uniform(seed, a, uint64(j), 1)
				if dx*dx+dy*dy <= r*r {
					edges = append(edges, Edge{I: i, J: j, P: 1})
				}
			}
		}
		if !spans(n, edges) {
			continue
		}
		if !reflect.DeepEqual(edges, g.Edges) {
			t.Fatalf("attempt %d: radius rule gives %d edges, graph has %d", a, len(edges), g.NumEdges())
		}
		break
	}
	// P(|X - Y| <= r) for uniform points in the unit square.
	pr := math.Pi*r*r - 8*r*r*r/3 + r*r*r*r/2
	want := pr * n * (n - 1) / 2
	if got := float64(g.NumEdges()); math.Abs(got-want) > 0.15*want {
		t.Fatalf("|E| = %v, expected about %.0f", got, want)
	}
}

func TestRandomTopologyErrors(t *testing.T) {
	tests := []struct {
		name  string
		build func() (*Graph, error)
		want  []string
	}{
		{"er/q>1", func() (*Graph, error) { return ErdosRenyi(5, 1.5, 1) }, []string{"n=5", "q=1.5"}},
		{"er/q NaN", func() (*Graph, error) { return ErdosRenyi(5, math.NaN(), 1) }, []string{"q must be in"}},
		{"er/q=0", func() (*Graph, error) { return ErdosRenyi(5, 0, 1) }, []string{"n=5", "q=0", "never connected"}},
		{"er/sparse", func() (*Graph, error) { return ErdosRenyi(30, 0.01, 1) }, []string{"n=30", "q=0.01", "1000 samples"}},
		{"er/n=0", func() (*Graph, error) { return ErdosRenyi(0, 0.5, 1) }, []string{"n=0"}},
		{"rgg/negative", func() (*Graph, error) { return RandomGeometric(5, -1, 1) }, []string{"radius=-1"}},
		{"rgg/inf", func() (*Graph, error) { return RandomGeometric(5, math.Inf(1), 1) }, []string{"finite"}},
		{"rgg/tiny", func() (*Graph, error) { return RandomGeometric(30, 0.01, 1) }, []string{"n=30", "radius=0.01", "not connected"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g, err := tc.build()
			if err == nil || g != nil {
				t.Fatalf("got (%v, %v), want an error", g, err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Fatalf("error %q does not mention %q", err, w)
				}
			}
		})
	}
}
