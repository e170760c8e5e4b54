package graph

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// testGraph is a small connected graph with distinct presence
// probabilities, including p = 1.
func testGraph(t testing.TB) *Graph {
	t.Helper()
	g, err := New(5, []Edge{
		{0, 1, 0.2}, {0, 2, 0.5}, {1, 2, 0.9}, {1, 3, 1}, {2, 4, 0.35}, {3, 4, 0.65},
	})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestIncidenceMean checks E[W(zeta)] = E[W] entrywise: over T rounds the
// empirical mean of each entry is within 5 standard errors
// sqrt(p(1-p)/T) of +-p_ij, and W^T W averages to L_p.
func TestIncidenceMean(t *testing.T) {
	const rounds = 20000
	g := testGraph(t)
	proc := Bernoulli{G: g, Seed: 42}
	for _, d := range []int{DrawDual, DrawAdjoint, DrawPenalty} {
		sum := mat.NewDense(g.NumEdges(), g.N, nil)
		gram := mat.NewDense(g.N, g.N, nil)
		var wtw mat.Dense
		for r := 0; r < rounds; r++ {
			w := g.Incidence(proc, r, d)
			sum.Add(sum, w)
			wtw.Mul(w.T(), w)
			gram.Add(gram, &wtw)
		}
		sum.Scale(1.0/rounds, sum)
		gram.Scale(1.0/rounds, gram)
		want := g.ExpectedIncidence()
		for k, e := range g.Edges {
			se := math.Sqrt(e.P * (1 - e.P) / rounds)
			for i := 0; i < g.N; i++ {
				if diff := math.Abs(sum.At(k, i) - want.At(k, i)); diff > 5*se+1e-12 {
					t.Fatalf("draw %d: mean W[%d,%d] = %v, E[W] = %v (se %v)", d, k, i, sum.At(k, i), want.At(k, i), se)
				}
			}
		}
		lp := g.Laplacian(ByP)
		for i := 0; i < g.N; i++ {
			for j := 0; j < g.N; j++ {
				if math.Abs(gram.At(i, j)-lp.At(i, j)) > 5*math.Sqrt(float64(g.MaxDegree())*0.25/rounds) {
					t.Fatalf("draw %d: mean W^T W [%d,%d] = %v, L_p = %v", d, i, j, gram.At(i, j), lp.At(i, j))
				}
			}
		}
	}
}

// TestDrawIndependence checks that the draws d = 0, 1, 2 of a round are
// independent: for every edge with p < 1 and every pair of draws,
// P(active in both) ~ p^2 and the indicator correlation ~ 0, and likewise
// for two different edges in one draw and for one edge in consecutive
// rounds.
func TestDrawIndependence(t *testing.T) {
	const rounds = 20000
	g := testGraph(t)
	proc := Bernoulli{G: g, Seed: 7}
	type series struct {
		name string
		a, b func(r int) bool
		pa   float64
		pb   float64
	}
	var cases []series
	for k, e := range g.Edges {
		if e.P >= 1 {
			continue
		}
		for _, dd := range [][2]int{{0, 1}, {0, 2}, {1, 2}} {
			cases = append(cases, series{
				name: "draws", pa: e.P, pb: e.P,
				a: func(r int) bool { return proc.ActiveK(r, dd[0], k) },
				b: func(r int) bool { return proc.ActiveK(r, dd[1], k) },
			})
		}
		cases = append(cases, series{
			name: "rounds", pa: e.P, pb: e.P,
			a: func(r int) bool { return proc.ActiveK(r, DrawDual, k) },
			b: func(r int) bool { return proc.ActiveK(r+1, DrawDual, k) },
		})
		if k+1 < len(g.Edges) && g.Edges[k+1].P < 1 {
			f := g.Edges[k+1]
			cases = append(cases, series{
				name: "edges", pa: e.P, pb: f.P,
				a: func(r int) bool { return proc.Active(r, DrawPenalty, e.I, e.J) },
				b: func(r int) bool { return proc.Active(r, DrawPenalty, f.I, f.J) },
			})
		}
	}
	for _, c := range cases {
		var na, nb, nab float64
		for r := 0; r < rounds; r++ {
			a, b := c.a(r), c.b(r)
			if a {
				na++
			}
			if b {
				nb++
			}
			if a && b {
				nab++
			}
		}
		pab := c.pa * c.pb
		if se := math.Sqrt(pab * (1 - pab) / rounds); math.Abs(nab/rounds-pab) > 5*se {
			t.Fatalf("%s (p=%v,%v): P(both) = %v, want %v +- %v", c.name, c.pa, c.pb, nab/rounds, pab, se)
		}
		ma, mb := na/rounds, nb/rounds
		corr := (nab/rounds - ma*mb) / math.Sqrt(ma*(1-ma)*mb*(1-mb))
		if math.Abs(corr) > 5/math.Sqrt(rounds) {
			t.Fatalf("%s (p=%v,%v): correlation %v, want 0 +- %v", c.name, c.pa, c.pb, corr, 1/math.Sqrt(rounds))
		}
	}
}

// TestActiveIsPure checks that the edge process is a pure function, so
// both endpoints and a centralized reference agree, and that every fast
// path returns exactly what Bernoulli.Active returns.
func TestActiveIsPure(t *testing.T) {
	g := testGraph(t)
	b := Bernoulli{G: g, Seed: 99}
	other := Bernoulli{G: g, Seed: 100}
	uni, err := g.WithUniformP(0.4)
	if err != nil {
		t.Fatal(err)
	}
	bu := Bernoulli{G: uni, Seed: 99}
	spec := bu.Specialize()
	if _, ok := spec.(UniformBernoulli); !ok {
		t.Fatalf("Specialize on uniform p gave %T, want UniformBernoulli", spec)
	}
	if _, ok := b.Specialize().(Bernoulli); !ok {
		t.Fatal("Specialize on mixed p changed the process type")
	}
	differ := 0
	var present []bool
	for r := 0; r < 500; r++ {
		for d := 0; d < 3; d++ {
			present = b.Present(r, d, present)
			for k, e := range g.Edges {
				a := b.Active(r, d, e.I, e.J)
				if a != b.Active(r, d, e.I, e.J) {
					t.Fatalf("round %d draw %d edge %d: repeated calls differ", r, d, k)
				}
				if a != b.ActiveK(r, d, k) || a != present[k] {
					t.Fatalf("round %d draw %d edge %d: Active, ActiveK, Present disagree", r, d, k)
				}
				if e.P == 1 && !a {
					t.Fatalf("edge with p = 1 inactive")
				}
				if a != other.Active(r, d, e.I, e.J) {
					differ++
				}
				if bu.Active(r, d, e.I, e.J) != spec.Active(r, d, e.I, e.J) {
					t.Fatalf("round %d draw %d edge %d: UniformBernoulli disagrees with Bernoulli", r, d, k)
				}
			}
		}
	}
	if differ == 0 {
		t.Fatal("different seeds gave identical edge processes")
	}
	if n := b.Active(0, 0, 0, 3); n {
		t.Fatal("non-edge {0,3} reported active")
	}
}

func TestActiveAllocationFree(t *testing.T) {
	g := testGraph(t)
	b := Bernoulli{G: g, Seed: 1}
	var proc EdgeProcess = b
	spec := Bernoulli{G: g, Seed: 1}.Specialize()
	allocs := testing.AllocsPerRun(100, func() {
		for k, e := range g.Edges {
			_ = proc.Active(3, 1, e.I, e.J)
			_ = b.ActiveK(3, 1, k)
			_ = spec.Active(3, 1, e.I, e.J)
		}
	})
	if allocs != 0 {
		t.Fatalf("%v allocations per run, want 0", allocs)
	}
}

func TestIncidence(t *testing.T) {
	g := testGraph(t)
	proc := Bernoulli{G: g, Seed: 3}
	seenZero := false
	for r := 0; r < 50; r++ {
		w := g.Incidence(proc, r, DrawAdjoint)
		if rows, cols := w.Dims(); rows != g.NumEdges() || cols != g.N {
			t.Fatalf("W is %dx%d, want %dx%d", rows, cols, g.NumEdges(), g.N)
		}
		for k, e := range g.Edges {
			active := proc.ActiveK(r, DrawAdjoint, k)
			for i := 0; i < g.N; i++ {
				want := 0.0
				if active && (i == e.I || i == e.J) {
					j := e.I + e.J - i
					want = Sign(i, j)
				}
				if w.At(k, i) != want {
					t.Fatalf("round %d: W[%d,%d] = %v, want %v", r, k, i, w.At(k, i), want)
				}
			}
			seenZero = seenZero || !active
		}
	}
	if !seenZero {
		t.Fatal("no edge was ever absent")
	}
	// With p = 1 everywhere, W(zeta) = E[W] in every round.
	ring, _ := Ring(6)
	if w := ring.Incidence(Bernoulli{G: ring, Seed: 1}, 5, 0); !mat.Equal(w, ring.ExpectedIncidence()) {
		t.Fatal("p = 1: W(zeta) != E[W]")
	}
	one, _ := Complete(1)
	if r, c := one.Incidence(Bernoulli{G: one}, 0, 0).Dims(); r != 0 || c != 0 {
		t.Fatalf("no edges: W is %dx%d, want empty", r, c)
	}
}

func TestKronIdentity(t *testing.T) {
	g := testGraph(t)
	w := g.ExpectedIncidence()
	for _, n := range []int{1, 3} {
		id := mat.NewDiagDense(n, nil)
		for i := 0; i < n; i++ {
			id.SetDiag(i, 1)
		}
		var want mat.Dense
		want.Kronecker(w, id)
		if got := KronIdentity(w, n); !mat.Equal(got, &want) {
			t.Fatalf("n=%d: KronIdentity differs from W kron I_n", n)
		}
	}
	if r, c := KronIdentity(w, 0).Dims(); r != 0 || c != 0 {
		t.Fatalf("n=0: %dx%d, want empty", r, c)
	}
}
