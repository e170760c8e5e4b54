package graph

import (
	"math"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// arcPairs lists the arcs of d as (from, to) pairs, in d's order.
func arcPairs(d *Digraph) [][2]int {
	out := make([][2]int, 0, len(d.Arcs))
	for _, a := range d.Arcs {
		out = append(out, [2]int{a.From, a.To})
	}
	return out
}

func mustDigraph(t *testing.T, n int, pairs ...[2]int) *Digraph {
	t.Helper()
	arcs := make([]Arc, len(pairs))
	for k, p := range pairs {
		arcs[k] = Arc{From: p[0], To: p[1], P: 1}
	}
	d, err := NewDigraph(n, arcs)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestNewDigraphErrors(t *testing.T) {
	tests := []struct {
		name string
		n    int
		arcs []Arc
		want string
	}{
		{"no agents", 0, nil, "must be at least 1"},
		{"self loop", 3, []Arc{{1, 1, 1}}, "self loop at agent 1"},
		{"out of range", 3, []Arc{{0, 3, 1}}, "arc 0->3: agent ids must be in [0, 3)"},
		{"negative id", 3, []Arc{{-1, 2, 1}}, "agent ids"},
		{"zero p", 3, []Arc{{0, 1, 0}}, "presence probability 0 must be in (0, 1]"},
		{"p above one", 3, []Arc{{0, 1, 1.5}}, "presence probability 1.5"},
		{"duplicate", 3, []Arc{{0, 1, 1}, {2, 0, 1}, {0, 1, 0.5}}, "arc 0->1 listed twice"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewDigraph(tc.n, tc.arcs)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// TestDigraphIndex checks the sorting of arcs, the neighbour lists, the
// degrees and the lookups; the reverse of an arc is a different arc.
func TestDigraphIndex(t *testing.T) {
	d := mustDigraph(t, 4, [2]int{2, 0}, [2]int{0, 1}, [2]int{3, 0}, [2]int{0, 3}, [2]int{1, 2})
	if want := [][2]int{{0, 1}, {0, 3}, {1, 2}, {2, 0}, {3, 0}}; !slices.Equal(arcPairs(d), want) {
		t.Fatalf("arcs %v, want %v", arcPairs(d), want)
	}
	if !slices.Equal(d.Out(0), []int{1, 3}) || !slices.Equal(d.In(0), []int{2, 3}) {
		t.Errorf("out(0) = %v, in(0) = %v", d.Out(0), d.In(0))
	}
	if d.OutDegree(1) != 1 || d.InDegree(1) != 1 || d.OutDegree(3) != 1 || d.InDegree(3) != 1 {
		t.Errorf("degrees of 1 and 3 are not 1")
	}
	if k, ok := d.ArcIndex(3, 0); !ok || k != 4 {
		t.Errorf("ArcIndex(3, 0) = %d, %v", k, ok)
	}
	if _, ok := d.ArcIndex(1, 0); ok {
		t.Errorf("1->0 is not an arc")
	}
	if d.P(0, 1) != 1 || d.P(1, 0) != 0 {
		t.Errorf("P(0,1) = %v, P(1,0) = %v", d.P(0, 1), d.P(1, 0))
	}
}

func TestStronglyConnected(t *testing.T) {
	tests := []struct {
		name  string
		d     *Digraph
		want  bool
		diam  int
		under bool // underlying graph connected
	}{
		{"single agent", mustDigraph(t, 1), true, 0, true},
		{"path", mustDigraph(t, 3, [2]int{0, 1}, [2]int{1, 2}), false, -1, true},
		{"cycle", mustDigraph(t, 3, [2]int{0, 1}, [2]int{1, 2}, [2]int{2, 0}), true, 2, true},
		{"two cycles one way", mustDigraph(t, 4, [2]int{0, 1}, [2]int{1, 0}, [2]int{2, 3}, [2]int{3, 2}, [2]int{1, 2}), false, -1, true},
		{"two cycles both ways", mustDigraph(t, 4, [2]int{0, 1}, [2]int{1, 0}, [2]int{2, 3}, [2]int{3, 2}, [2]int{1, 2}, [2]int{3, 0}), true, 3, true},
		{"sink reached by all", mustDigraph(t, 3, [2]int{0, 2}, [2]int{1, 2}), false, -1, true},
		{"apart", mustDigraph(t, 2), false, -1, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.d.StronglyConnected(); got != tc.want {
				t.Errorf("StronglyConnected = %v, want %v", got, tc.want)
			}
			if got := tc.d.Diameter(); got != tc.diam {
				t.Errorf("Diameter = %d, want %d", got, tc.diam)
			}
			if got := tc.d.Underlying().Connected(); got != tc.under {
				t.Errorf("underlying graph connected = %v, want %v", got, tc.under)
			}
		})
	}
}

// TestUnderlyingAndSymmetric: a pair joined both ways becomes one edge with
// p_ij + p_ji - p_ij p_ji, a one-way arc keeps its p, and the digraph of
// a graph has both arcs of every edge.
func TestUnderlyingAndSymmetric(t *testing.T) {
	d, err := NewDigraph(3, []Arc{{0, 1, 0.5}, {1, 0, 0.2}, {1, 2, 0.3}})
	if err != nil {
		t.Fatal(err)
	}
	g := d.Underlying()
	if g.NumEdges() != 2 || g.P(0, 1) != 0.6 || g.P(1, 2) != 0.3 {
		t.Fatalf("underlying edges %v", g.Edges)
	}
	s := Symmetric(g)
	if want := [][2]int{{0, 1}, {1, 0}, {1, 2}, {2, 1}}; !slices.Equal(arcPairs(s), want) {
		t.Fatalf("symmetric arcs %v, want %v", arcPairs(s), want)
	}
	if s.P(1, 0) != 0.6 || s.P(2, 1) != 0.3 {
		t.Errorf("symmetric p: %v", s.Arcs)
	}
}

func TestArcPresenceProbabilities(t *testing.T) {
	d, err := DirectedRing(5)
	if err != nil {
		t.Fatal(err)
	}
	u, err := d.WithUniformP(0.4)
	if err != nil || u.P(4, 0) != 0.4 || d.P(4, 0) != 1 {
		t.Fatalf("WithUniformP: %v, p = %v, original %v", err, u.P(4, 0), d.P(4, 0))
	}
	if _, err := d.WithUniformP(0); err == nil {
		t.Error("p = 0 accepted")
	}
	both := mustDigraph(t, 2, [2]int{0, 1}, [2]int{1, 0})
	r, err := both.WithRandomP(0.2, 0.9, 11)
	if err != nil {
		t.Fatal(err)
	}
	p01, p10 := r.P(0, 1), r.P(1, 0)
	if p01 == p10 || p01 < 0.2 || p01 >= 0.9 || p10 < 0.2 || p10 >= 0.9 {
		t.Errorf("random p: 0->1 %v, 1->0 %v: want distinct values in [0.2, 0.9)", p01, p10)
	}
	if _, err := d.WithRandomP(0.5, 0.4, 1); err == nil {
		t.Error("lo > hi accepted")
	}
	if _, err := d.WithArcP(func(i, j int) float64 { return float64(i) / 4 }); err == nil || !strings.Contains(err.Error(), "arc 0->1") {
		t.Errorf("p = 0 on arc 0->1: error %v", err)
	}
}

func TestDirectedRing(t *testing.T) {
	for _, tc := range []struct {
		n    int
		arcs [][2]int
	}{
		{1, [][2]int{}},
		{2, [][2]int{{0, 1}, {1, 0}}},
		{4, [][2]int{{0, 1}, {1, 2}, {2, 3}, {3, 0}}},
	} {
		d, err := DirectedRing(tc.n)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(arcPairs(d), tc.arcs) || !d.StronglyConnected() {
			t.Errorf("ring of %d: arcs %v, strongly connected %v", tc.n, arcPairs(d), d.StronglyConnected())
		}
	}
	if _, err := DirectedRing(0); err == nil {
		t.Error("ring of 0 agents accepted")
	}
}

// TestRandomDigraph: strongly connected for every q, q = 0 gives a
// Hamiltonian cycle, the number of arcs has the mean n + q(n(n-1) - n),
// and the seed alone fixes the digraph.
func TestRandomDigraph(t *testing.T) {
	for _, q := range []float64{0, 0.02, 0.3, 1} {
		d, err := RandomDigraph(40, q, 9)
		if err != nil {
			t.Fatal(err)
		}
		if !d.StronglyConnected() {
			t.Errorf("q = %v: not strongly connected", q)
		}
		if q == 0 {
			for i := range d.N {
				if d.OutDegree(i) != 1 || d.InDegree(i) != 1 {
					t.Fatalf("q = 0: agent %d has degrees %d/%d, want a Hamiltonian cycle", i, d.OutDegree(i), d.InDegree(i))
				}
			}
			if d.Diameter() != d.N-1 {
				t.Errorf("q = 0: diameter %d, want %d", d.Diameter(), d.N-1)
			}
		}
		if q == 1 && len(d.Arcs) != 40*39 {
			t.Errorf("q = 1: %d arcs, want the complete digraph", len(d.Arcs))
		}
	}
	const n, q = 200, 0.05
	d, err := RandomDigraph(n, q, 3)
	if err != nil {
		t.Fatal(err)
	}
	pairs := float64(n*(n-1) - n)
	mean, sd := n+q*pairs, math.Sqrt(pairs*q*(1-q))
	if got := float64(len(d.Arcs)); math.Abs(got-mean) > 5*sd {
		t.Errorf("%v arcs, want %.0f +- %.0f", got, mean, 5*sd)
	}
	again, _ := RandomDigraph(n, q, 3)
	other, _ := RandomDigraph(n, q, 4)
	if !slices.Equal(arcPairs(d), arcPairs(again)) || slices.Equal(arcPairs(d), arcPairs(other)) {
		t.Error("the seed does not fix the digraph")
	}
	for _, bad := range []float64{-0.1, 1.1, math.NaN()} {
		if _, err := RandomDigraph(5, bad, 1); err == nil {
			t.Errorf("q = %v accepted", bad)
		}
	}
}

// TestKOut: every agent has out-degree k, the digraph is strongly
// connected, and a k for which no sample is strongly connected is refused
// with advice.
func TestKOut(t *testing.T) {
	for _, tc := range []struct{ n, k int }{{2, 1}, {10, 2}, {64, 5}, {64, 63}} {
		d, err := KOut(tc.n, tc.k, 5)
		if err != nil {
			t.Fatalf("n=%d k=%d: %v", tc.n, tc.k, err)
		}
		for i := range d.N {
			if d.OutDegree(i) != tc.k {
				t.Fatalf("n=%d k=%d: agent %d has out-degree %d", tc.n, tc.k, i, d.OutDegree(i))
			}
		}
		if !d.StronglyConnected() {
			t.Errorf("n=%d k=%d: not strongly connected", tc.n, tc.k)
		}
	}
	if _, err := KOut(64, 1, 5); err == nil || !strings.Contains(err.Error(), "raise k") {
		t.Errorf("1-out on 64 agents: error %v, want a refusal that says to raise k", err)
	}
	for _, tc := range []struct{ n, k int }{{1, 0}, {5, 0}, {5, 5}} {
		if _, err := KOut(tc.n, tc.k, 1); err == nil {
			t.Errorf("n=%d k=%d accepted", tc.n, tc.k)
		}
	}
}

// TestArcBernoulli: each arc is up with its probability, an arc and its
// reverse are drawn independently (both up with probability p^2, not p),
// the draws of a process are a pure function of their arguments, and a
// pair that is not an arc is never up.
func TestArcBernoulli(t *testing.T) {
	d, err := NewDigraph(3, []Arc{{0, 1, 0.5}, {1, 0, 0.5}, {1, 2, 0.25}})
	if err != nil {
		t.Fatal(err)
	}
	b := ArcBernoulli{D: d, Seed: 17}
	const rounds = 40000
	var up01, up10, both, up12 float64
	for r := range rounds {
		a, c := b.ArcUp(r, 0, 0, 1), b.ArcUp(r, 0, 1, 0)
		if a != b.ArcUp(r, 0, 0, 1) {
			t.Fatal("ArcUp is not a pure function")
		}
		if b.ArcUp(r, 0, 2, 1) || b.ArcUp(r, 0, 0, 2) {
			t.Fatal("a pair that is not an arc is up")
		}
		up01 += b2f(a)
		up10 += b2f(c)
		both += b2f(a && c)
		up12 += b2f(b.ArcUp(r, 0, 1, 2))
	}
	for _, c := range []struct {
		name      string
		got, want float64
	}{{"0->1", up01, 0.5}, {"1->0", up10, 0.5}, {"both", both, 0.25}, {"1->2", up12, 0.25}} {
		sd := math.Sqrt(c.want * (1 - c.want) / rounds)
		if math.Abs(c.got/rounds-c.want) > 5*sd {
			t.Errorf("%s up in %.4f of the rounds, want %.4f +- %.4f", c.name, c.got/rounds, c.want, 5*sd)
		}
	}
	// Draws are independent streams: draw 1 differs from draw 0.
	same := 0
	for r := range 1000 {
		if b.ArcUp(r, 0, 0, 1) == b.ArcUp(r, 1, 0, 1) {
			same++
		}
	}
	if same > 600 {
		t.Errorf("draws 0 and 1 agree in %d of 1000 rounds", same)
	}
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// TestSymmetricAndEitherArc: the arc view of an undirected process has
// both arcs of an edge up exactly when the edge is, and the edge view of
// an arc process has an edge up when either arc is.
func TestSymmetricAndEitherArc(t *testing.T) {
	g, err := Ring(5)
	if err != nil {
		t.Fatal(err)
	}
	g, _ = g.WithUniformP(0.5)
	edges := Bernoulli{G: g, Seed: 4}
	s := SymmetricArcs{G: g, Edges: edges}
	for r := range 200 {
		for _, e := range g.Edges {
			want := edges.Active(r, 0, e.I, e.J)
			if s.ArcUp(r, 0, e.I, e.J) != want || s.ArcUp(r, 0, e.J, e.I) != want {
				t.Fatalf("round %d: arcs of {%d,%d} disagree with the edge", r, e.I, e.J)
			}
		}
		if s.ArcUp(r, 0, 0, 2) {
			t.Fatal("a pair that is not an edge is up")
		}
	}
	d, _ := NewDigraph(2, []Arc{{0, 1, 0.5}, {1, 0, 0.5}})
	arcs := ArcBernoulli{D: d, Seed: 2}
	e := EitherArc{Arcs: arcs}
	for r := range 200 {
		if e.Active(r, 0, 0, 1) != (arcs.ArcUp(r, 0, 0, 1) || arcs.ArcUp(r, 0, 1, 0)) || e.Active(r, 0, 0, 1) != e.Active(r, 0, 1, 0) {
			t.Fatalf("round %d: EitherArc disagrees", r)
		}
	}
}

// TestSequence: a split puts every arc in exactly one phase, the union is
// the digraph with p divided by the period, the arc process follows the
// phases, and a sequence whose union is not strongly connected is refused.
func TestSequence(t *testing.T) {
	d, err := RandomDigraph(12, 0.2, 8)
	if err != nil {
		t.Fatal(err)
	}
	d, _ = d.WithUniformP(0.8)
	s, err := SplitSequence(d, 3, 1)
	if err != nil {
		t.Fatal(err)
	}
	if s.Period() != 3 || s.At(4) != s.At(1) {
		t.Fatalf("period %d", s.Period())
	}
	count := 0
	for k := range 3 {
		count += len(s.At(k).Arcs)
	}
	if count != len(d.Arcs) || !slices.Equal(arcPairs(s.Union()), arcPairs(d)) {
		t.Fatalf("phases hold %d arcs, union %d; digraph %d", count, len(s.Union().Arcs), len(d.Arcs))
	}
	for _, a := range s.Union().Arcs {
		if math.Abs(a.P-0.8/3) > 1e-15 {
			t.Fatalf("union p of %d->%d = %v, want 0.8/3", a.From, a.To, a.P)
		}
	}
	connected := 0
	for k := range 3 {
		if s.At(k).StronglyConnected() {
			connected++
		}
	}
	if connected == 3 {
		t.Error("every phase is strongly connected on its own: the test shows nothing")
	}
	arcs := SequenceArcs{S: s, Seed: 6}
	for r := range 30 {
		for _, a := range d.Arcs {
			if arcs.ArcUp(r, 0, a.From, a.To) && s.At(r).P(a.From, a.To) == 0 {
				t.Fatalf("round %d: arc %d->%d up outside its phase", r, a.From, a.To)
			}
		}
	}
	ring, _ := DirectedRing(3)
	half := mustDigraph(t, 3, [2]int{0, 1})
	if _, err := NewSequence([]*Digraph{half, half}); err == nil || !strings.Contains(err.Error(), "not strongly connected") {
		t.Errorf("union not strongly connected: error %v", err)
	}
	if _, err := NewSequence([]*Digraph{ring, mustDigraph(t, 4)}); err == nil {
		t.Error("phases on different agents accepted")
	}
	if _, err := SplitSequence(ring, 0, 1); err == nil {
		t.Error("period 0 accepted")
	}
}

// TestStochasticWeights: C(zeta) is column-stochastic and R(zeta)
// row-stochastic in every draw, their entries are the agents' weights
// 1/(1 + d_out_i) and 1/(1 + d_in_i), and MulOrdered agrees with a dense
// product.
func TestStochasticWeights(t *testing.T) {
	d, err := RandomDigraph(9, 0.3, 2)
	if err != nil {
		t.Fatal(err)
	}
	d, _ = d.WithUniformP(0.5)
	arcs := ArcBernoulli{D: d, Seed: 3}
	var out, in []int
	for r := range 50 {
		c := ColumnStochastic(d, arcs, r, 0)
		rs := RowStochastic(d, arcs, r, 0)
		for i := range d.N {
			var col, row float64
			for j := range d.N {
				col += c.At(j, i)
				row += rs.At(i, j)
			}
			if math.Abs(col-1) > 1e-15 || math.Abs(row-1) > 1e-15 {
				t.Fatalf("round %d agent %d: column sum %v, row sum %v", r, i, col, row)
			}
			out = OutUp(d, arcs, r, 0, i, out)
			in = InUp(d, arcs, r, 0, i, in)
			if c.At(i, i) != StochasticWeight(len(out)) || rs.At(i, i) != StochasticWeight(len(in)) {
				t.Fatalf("round %d agent %d: self weights %v, %v", r, i, c.At(i, i), rs.At(i, i))
			}
			for _, j := range out {
				if c.At(j, i) != StochasticWeight(len(out)) || !arcs.ArcUp(r, 0, i, j) {
					t.Fatalf("round %d: C[%d][%d] = %v", r, j, i, c.At(j, i))
				}
			}
			view := AgentArcs{D: d, Arcs: arcs, I: i}
			view.Draw(r, 0)
			if !slices.Equal(view.Out, out) || !slices.Equal(view.In, in) || view.PushWeight() != c.At(i, i) || view.PullWeight() != rs.At(i, i) {
				t.Fatalf("round %d agent %d: AgentArcs %+v disagrees with C and R", r, i, view)
			}
		}
	}
	c := ColumnStochastic(d, arcs, 0, 0)
	x := mat.NewDense(d.N, 3, nil)
	for i := range d.N {
		x.SetRow(i, []float64{float64(i), -1.5 * float64(i*i), 0.25})
	}
	var want mat.Dense
	want.Mul(c, x)
	got := mat.NewDense(d.N, 3, nil)
	MulOrdered(got, c, x)
	if !mat.EqualApprox(got, &want, 1e-13) {
		t.Errorf("MulOrdered differs from Mul:\n%v\n%v", mat.Formatted(got), mat.Formatted(&want))
	}
}

// TestMeanStochastic checks E[C] and E[R] against the average of C(zeta)
// and R(zeta) over many draws (within 5 standard errors, entrywise), their
// column and row sums, and the spectra of the directed ring with p = 1:
// C = (I + P)/2 has |lambda_2| = cos(pi/n) and the uniform Perron vector.
func TestMeanStochastic(t *testing.T) {
	d, err := RandomDigraph(6, 0.4, 1)
	if err != nil {
		t.Fatal(err)
	}
	d, _ = d.WithRandomP(0.3, 0.9, 5)
	arcs := ArcBernoulli{D: d, Seed: 12}
	const rounds = 20000
	sumC, sumR := mat.NewDense(d.N, d.N, nil), mat.NewDense(d.N, d.N, nil)
	for r := range rounds {
		sumC.Add(sumC, ColumnStochastic(d, arcs, r, 0))
		sumR.Add(sumR, RowStochastic(d, arcs, r, 0))
	}
	for _, m := range []struct {
		name      string
		mean, sum *mat.Dense
		byColumns bool
	}{{"E[C]", d.MeanColumnStochastic(), sumC, true}, {"E[R]", d.MeanRowStochastic(), sumR, false}} {
		for i := range d.N {
			var s float64
			for j := range d.N {
				mu, got := m.mean.At(i, j), m.sum.At(i, j)/rounds
				if se := math.Sqrt(mu * (1 - mu) / rounds); math.Abs(got-mu) > 5*se+1e-12 {
					t.Errorf("%s[%d][%d] = %.5f, sample mean %.5f (se %.5f)", m.name, i, j, mu, got, se)
				}
				if m.byColumns {
					s += m.mean.At(j, i)
				} else {
					s += m.mean.At(i, j)
				}
			}
			if math.Abs(s-1) > 1e-14 {
				t.Errorf("%s: line %d sums to %v", m.name, i, s)
			}
		}
	}
	pi, err := PerronVector(d.MeanColumnStochastic())
	if err != nil {
		t.Fatal(err)
	}
	var cpi mat.VecDense
	cpi.MulVec(d.MeanColumnStochastic(), mat.NewVecDense(d.N, pi))
	if !mat.EqualApprox(&cpi, mat.NewVecDense(d.N, pi), 1e-12) {
		t.Errorf("E[C] pi != pi for pi = %v", pi)
	}

	const n = 8
	ring, _ := DirectedRing(n)
	l2, err := SecondModulus(ring.MeanColumnStochastic())
	if err != nil {
		t.Fatal(err)
	}
	if want := math.Cos(math.Pi / n); math.Abs(l2-want) > 1e-12 {
		t.Errorf("directed ring of %d: |lambda_2(C)| = %v, want cos(pi/n) = %v", n, l2, want)
	}
	pi, err = PerronVector(ring.MeanColumnStochastic())
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range pi {
		if math.Abs(v-1.0/n) > 1e-12 {
			t.Errorf("ring Perron vector[%d] = %v, want 1/%d", i, v, n)
		}
	}
}

// TestMeanDynamics: over independent arc processes (seeds), the mean of
// the push-sum state x(t) = C(t-1) ... C(0) x(0) is E[C]^t x(0), entry
// by entry within 5 standard errors: E[C] is the exact mean dynamics,
// whose rate is |lambda_2(E[C])|.
func TestMeanDynamics(t *testing.T) {
	d, err := RandomDigraph(5, 0.3, 4)
	if err != nil {
		t.Fatal(err)
	}
	d, _ = d.WithUniformP(0.6)
	const rounds, seeds = 6, 4000
	x0 := mat.NewVecDense(d.N, []float64{3, -1, 0, 2, 5})
	var sum, sumSq [5]float64
	for s := range seeds {
		arcs := ArcBernoulli{D: d, Seed: uint64(s)}
		x := mat.VecDenseCopyOf(x0)
		for r := range rounds {
			x.MulVec(ColumnStochastic(d, arcs, r, 0), mat.VecDenseCopyOf(x))
		}
		for i := range d.N {
			sum[i] += x.AtVec(i)
			sumSq[i] += x.AtVec(i) * x.AtVec(i)
		}
	}
	want := mat.VecDenseCopyOf(x0)
	mean := d.MeanColumnStochastic()
	for range rounds {
		want.MulVec(mean, mat.VecDenseCopyOf(want))
	}
	for i := range d.N {
		m := sum[i] / seeds
		se := math.Sqrt((sumSq[i]/seeds - m*m) / seeds)
		if math.Abs(m-want.AtVec(i)) > 5*se+1e-12 {
			t.Errorf("E[x_%d(%d)] = %.4f over %d seeds (se %.4f), E[C]^t x(0) gives %.4f", i, rounds, m, seeds, se, want.AtVec(i))
		}
	}
}

// TestDirectedStats: on the directed ring of 8 with p = 1 the rates are
// cos(pi/8) and the digraph is balanced (N pi_i = 1); a sequence of one
// digraph has the digraph's rates; a sequence's rate is the P-th root of
// its period's product, which on the ring split in two is slower per
// round than the ring with every arc in every round.
func TestDirectedStats(t *testing.T) {
	ring, _ := DirectedRing(8)
	s, err := ring.Stats()
	if err != nil {
		t.Fatal(err)
	}
	if s.Arcs != 8 || s.MinOut != 1 || s.MaxIn != 1 || !s.StronglyConnected || s.Diameter != 7 || s.MeanP != 1 ||
		math.Abs(s.RateC-math.Cos(math.Pi/8)) > 1e-12 || math.Abs(s.RateR-s.RateC) > 1e-12 ||
		math.Abs(s.PiMin-1) > 1e-12 || math.Abs(s.PiMax-1) > 1e-12 {
		t.Errorf("ring stats %+v", s)
	}
	if !strings.Contains(s.String(), "rate |lambda_2(E[C])|") {
		t.Errorf("String: %s", s)
	}
	d, _ := RandomDigraph(10, 0.2, 3)
	d, _ = d.WithUniformP(0.6)
	one, err := NewSequence([]*Digraph{d})
	if err != nil {
		t.Fatal(err)
	}
	ds, err := d.Stats()
	if err != nil {
		t.Fatal(err)
	}
	ss, err := one.Stats()
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(ds.RateC-ss.RateC) > 1e-12 || math.Abs(ds.RateR-ss.RateR) > 1e-12 || ds.PiMax <= 1 {
		t.Errorf("digraph %+v, sequence of it %+v", ds, ss)
	}
	split, err := SplitSequence(ring, 2, 1)
	if err != nil {
		t.Fatal(err)
	}
	sp, err := split.Stats()
	if err != nil {
		t.Fatal(err)
	}
	var prod mat.Dense
	prod.Mul(split.At(1).MeanColumnStochastic(), split.At(0).MeanColumnStochastic())
	l2, _ := SecondModulus(&prod)
	if sp.Period != 2 || math.Abs(sp.RateC-math.Sqrt(l2)) > 1e-12 || !(sp.RateC > s.RateC) {
		t.Errorf("split ring: rate %v, want sqrt(%v) and above the ring's %v", sp.RateC, l2, s.RateC)
	}
}
