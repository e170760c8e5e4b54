package graph

import (
	"math"
	"sync"
	"testing"
)

// geRing is a ring of n agents with presence probability p in the good
// state.
func geRing(t testing.TB, n int, p float64) *Graph {
	t.Helper()
	g, err := Ring(n)
	if err != nil {
		t.Fatal(err)
	}
	if p < 1 {
		if g, err = g.WithUniformP(p); err != nil {
			t.Fatal(err)
		}
	}
	return g
}

func newGE(t testing.TB, g *Graph, seed uint64, pgb, pbg, pbad float64) *GilbertElliott {
	t.Helper()
	ge, err := NewGilbertElliott(g, seed, pgb, pbg, pbad)
	if err != nil {
		t.Fatal(err)
	}
	return ge
}

func TestGilbertElliottRejectsBadParameters(t *testing.T) {
	g := geRing(t, 4, 1)
	tests := []struct {
		name           string
		pgb, pbg, pbad float64
	}{
		{"negative p_gb", -0.1, 0.5, 0},
		{"p_gb above 1", 1.5, 0.5, 0},
		{"zero p_bg", 0.1, 0, 0},
		{"NaN p_bg", 0.1, math.NaN(), 0},
		{"p_bad above 1", 0.1, 0.5, 1.01},
	}
	for _, tt := range tests {
		if _, err := NewGilbertElliott(g, 1, tt.pgb, tt.pbg, tt.pbad); err == nil {
			t.Errorf("%s: NewGilbertElliott accepted p_gb=%v p_bg=%v p_bad=%v", tt.name, tt.pgb, tt.pbg, tt.pbad)
		}
	}
	if _, err := NewGilbertElliott(nil, 1, 0.1, 0.1, 0); err == nil {
		t.Error("NewGilbertElliott accepted a nil graph")
	}
}

// TestGilbertElliottStatistics checks, over many edges and rounds, the
// empirical fraction of bad rounds against pi_bad, the presence frequency
// against pi_good p_good + pi_bad p_bad, and the mean length of complete
// bad spells against 1/p_bg. Tolerances are 5 standard errors, with the
// variance of the time averages inflated by the chain's correlation time
// (1 + lambda)/(1 - lambda), lambda = 1 - p_gb - p_bg.
func TestGilbertElliottStatistics(t *testing.T) {
	const (
		edges  = 200
		rounds = 5000
	)
	tests := []struct {
		name                  string
		pgood, pgb, pbg, pbad float64
	}{
		{"burst 20, p_bad 0", 0.9, 0.02, 0.05, 0},
		{"burst 5, p_bad 0.3", 0.7, 0.1, 0.2, 0.3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := geRing(t, edges, tt.pgood)
			ge := newGE(t, g, 7, tt.pgb, tt.pbg, tt.pbad)
			piBad := tt.pgb / (tt.pgb + tt.pbg)
			if math.Abs(ge.PiBad()-piBad) > 1e-15 {
				t.Fatalf("PiBad = %v, want %v", ge.PiBad(), piBad)
			}
			wantP := (1-piBad)*tt.pgood + piBad*tt.pbad
			if got := ge.StationaryP(0, 1); math.Abs(got-wantP) > 1e-15 {
				t.Fatalf("StationaryP = %v, want %v", got, wantP)
			}
			var bad, present, spells, spellRounds int
			for _, e := range g.Edges {
				run, started := 0, false // started: a good round was seen, so the current spell is complete at its start
				for r := 0; r < rounds; r++ {
					isBad := !ge.Good(r, e.I, e.J)
					if ge.Active(r, DrawDual, e.I, e.J) {
						present++
					}
					if isBad {
						bad++
						run++
						continue
					}
					if started && run > 0 {
						spells++
						spellRounds += run
					}
					run, started = 0, true
				}
			}
			total := float64(edges * rounds)
			lambda := 1 - tt.pgb - tt.pbg
			inflate := (1 + lambda) / (1 - lambda)
			seBad := math.Sqrt(piBad * (1 - piBad) * inflate / total)
			if got := float64(bad) / total; math.Abs(got-piBad) > 5*seBad {
				t.Errorf("fraction of bad rounds %.4f, want pi_bad %.4f +- %.4f", got, piBad, 5*seBad)
			}
			// Presence varies with the state (variance inflated) and with
			// the draw given the state.
			sePresent := math.Sqrt((wantP*(1-wantP) + math.Pow(tt.pgood-tt.pbad, 2)*piBad*(1-piBad)*inflate) / total)
			if got := float64(present) / total; math.Abs(got-wantP) > 5*sePresent {
				t.Errorf("presence frequency %.4f, want %.4f +- %.4f", got, wantP, 5*sePresent)
			}
			// A bad spell is geometric on {1, 2, ...} with mean 1/p_bg and
			// standard deviation sqrt(1 - p_bg)/p_bg.
			mean := 1 / tt.pbg
			seSpell := math.Sqrt(1-tt.pbg) / tt.pbg / math.Sqrt(float64(spells))
			if got := float64(spellRounds) / float64(spells); math.Abs(got-mean) > 5*seSpell {
				t.Errorf("mean burst %.3f rounds over %d spells, want %.3f +- %.3f", got, spells, mean, 5*seSpell)
			}
			if got := ge.MeanBurst(); got != mean {
				t.Errorf("MeanBurst = %v, want %v", got, mean)
			}
		})
	}
}

// TestGilbertElliottGivenState checks that draws follow p_good or p_bad
// exactly given the state: with p_good = 1 and p_bad = 0 an edge is present
// in every draw iff its chain is good.
func TestGilbertElliottGivenState(t *testing.T) {
	g := geRing(t, 10, 1)
	ge := newGE(t, g, 3, 0.2, 0.3, 0)
	goods := 0
	for r := 0; r < 500; r++ {
		for _, e := range g.Edges {
			good := ge.Good(r, e.I, e.J)
			if good {
				goods++
			}
			for d := DrawDual; d <= DrawPenalty; d++ {
				if ge.Active(r, d, e.I, e.J) != good {
					t.Fatalf("round %d draw %d edge {%d,%d}: active %v, good %v", r, d, e.I, e.J, !good, good)
				}
			}
		}
	}
	if goods == 0 || goods == 500*len(g.Edges) {
		t.Fatalf("chain never changed state (%d good edge-rounds)", goods)
	}
}

// TestGilbertElliottAccessOrder checks that the answers do not depend on
// the order of the queries or on which endpoint asks: a fresh process
// queried backwards, at random, and with the pair reversed agrees with one
// queried in order. Rounds cross several checkpoints.
func TestGilbertElliottAccessOrder(t *testing.T) {
	const rounds = 3000
	g := geRing(t, 6, 0.8)
	forward := newGE(t, g, 11, 0.05, 0.1, 0.2)
	want := make([][]bool, rounds)
	for r := range want {
		for _, e := range g.Edges {
			for d := 0; d < 3; d++ {
				want[r] = append(want[r], forward.Active(r, d, e.I, e.J))
			}
		}
	}
	check := func(name string, ge *GilbertElliott, r int, reversed bool) {
		t.Helper()
		for k, e := range g.Edges {
			for d := 0; d < 3; d++ {
				i, j := e.I, e.J
				if reversed {
					i, j = j, i
				}
				if got := ge.Active(r, d, i, j); got != want[r][3*k+d] {
					t.Fatalf("%s: round %d draw %d edge {%d,%d}: got %v, in-order query gave %v", name, r, d, i, j, got, !got)
				}
			}
		}
	}
	backward := newGE(t, g, 11, 0.05, 0.1, 0.2)
	for r := rounds - 1; r >= 0; r-- {
		check("backward", backward, r, r%2 == 0)
	}
	scattered := newGE(t, g, 11, 0.05, 0.1, 0.2)
	for n := 0; n < 2000; n++ {
		r := int(Hash(5, uint64(n), 0, 0, 0) % rounds)
		check("scattered", scattered, r, n%3 == 0)
	}
	// Lagging endpoints: one side 0..40 rounds behind the other.
	lagging := newGE(t, g, 11, 0.05, 0.1, 0.2)
	for r := 0; r < rounds; r++ {
		check("ahead", lagging, r, false)
		if back := r - r%41; back >= 0 {
			check("behind", lagging, back, true)
		}
	}
	if got := forward.Active(5, 0, 0, 3); got {
		t.Error("a pair that is not an edge is active")
	}
	if got := forward.Active(-1, 0, 0, 1); got {
		t.Error("round -1 is active")
	}
}

// TestGilbertElliottConcurrent checks under the race detector that
// endpoints querying concurrently, each in its own round order, get the
// answers of a serial in-order pass.
func TestGilbertElliottConcurrent(t *testing.T) {
	const rounds = 1500
	g := geRing(t, 8, 0.9)
	serial := newGE(t, g, 21, 0.03, 0.06, 0)
	want := make([]bool, rounds*len(g.Edges)*3)
	for r := 0; r < rounds; r++ {
		for k, e := range g.Edges {
			for d := 0; d < 3; d++ {
				want[(r*len(g.Edges)+k)*3+d] = serial.Active(r, d, e.I, e.J)
			}
		}
	}
	shared := newGE(t, g, 21, 0.03, 0.06, 0)
	got := make([][]bool, g.N)
	var wg sync.WaitGroup
	for i := 0; i < g.N; i++ {
		got[i] = make([]bool, len(want))
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			for n := 0; n < rounds; n++ {
				r := n
				if i%2 == 1 {
					r = rounds - 1 - n // odd agents walk backwards
				}
				for _, j := range g.Neighbors(i) {
					k, _ := g.EdgeIndex(i, j)
					for d := 0; d < 3; d++ {
						got[i][(r*len(g.Edges)+k)*3+d] = shared.Active(r, d, i, j)
					}
				}
			}
		}(i)
	}
	wg.Wait()
	for i := 0; i < g.N; i++ {
		for _, j := range g.Neighbors(i) {
			k, _ := g.EdgeIndex(i, j)
			for r := 0; r < rounds; r++ {
				for d := 0; d < 3; d++ {
					idx := (r*len(g.Edges)+k)*3 + d
					if got[i][idx] != want[idx] {
						t.Fatalf("agent %d, edge {%d,%d}, round %d, draw %d: concurrent %v, serial %v", i, min(i, j), max(i, j), r, d, got[i][idx], want[idx])
					}
				}
			}
		}
	}
}

// TestGilbertElliottExpected checks that Expected carries the stationary
// presence probabilities on the same edges, and ActiveK matches Active.
func TestGilbertElliottExpected(t *testing.T) {
	g := testGraph(t)
	ge := newGE(t, g, 2, 0.1, 0.4, 0.25)
	eg, err := ge.Expected()
	if err != nil {
		t.Fatal(err)
	}
	for k, e := range g.Edges {
		want := 0.8*e.P + 0.2*0.25
		if got := eg.Edges[k]; got.I != e.I || got.J != e.J || math.Abs(got.P-want) > 1e-12 {
			t.Errorf("expected edge %d = %+v, want {%d %d %v}", k, got, e.I, e.J, want)
		}
		for r := 0; r < 50; r++ {
			if ge.ActiveK(r, 1, k) != ge.Active(r, 1, e.J, e.I) {
				t.Fatalf("ActiveK(%d, 1, %d) differs from Active", r, k)
			}
		}
	}
}

// BenchmarkGilbertElliottActive is the cost of one presence decision when
// every edge is queried round after round, three draws per round, as the
// agents do.
func BenchmarkGilbertElliottActive(b *testing.B) {
	g := benchGraph(b, false)
	ge, err := NewGilbertElliott(g, 1, 0.01, 0.05, 0)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	m := len(g.Edges)
	for n := 0; b.Loop(); n++ {
		e := g.Edges[(n/3)%m]
		_ = ge.Active(n/(3*m), n%3, e.I, e.J)
	}
}
