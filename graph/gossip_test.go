package graph

import (
	"math"
	"math/rand/v2"
	"os"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// bruteRates computes the three rates of GossipRates from scratch: it
// enumerates all 2^|E| presence patterns, forms E[W kron W], E[W P W] and
// E[W] densely, restricts E[W kron W] to the disagreement subspace with an
// orthonormal basis Q of 1^perp, (Q kron Q)^T E[W kron W] (Q kron Q), and
// takes spectral radii with a dense eigensolver.
func bruteRates(t *testing.T, g *Graph, m Mixing) (rho2, worst, first float64) {
	t.Helper()
	N, M := g.N, len(g.Edges)
	kw := mat.NewDense(N*N, N*N, nil)
	wpw := mat.NewDense(N, N, nil)
	ew := mat.NewDense(N, N, nil)
	p := mat.NewDense(N, N, nil)
	for i := range N {
		for j := range N {
			v := -1 / float64(N)
			if i == j {
				v++
			}
			p.Set(i, j, v)
		}
	}
	present := make([]bool, M)
	for mask := range 1 << M {
		prob := 1.0
		for k, e := range g.Edges {
			present[k] = mask>>k&1 == 1
			if present[k] {
				prob *= e.P
			} else {
				prob *= 1 - e.P
			}
		}
		if prob == 0 {
			continue
		}
		w := mat.DenseCopyOf(m.MatrixOf(g, present))
		var kr, tmp, wp mat.Dense
		kr.Kronecker(w, w)
		kr.Scale(prob, &kr)
		kw.Add(kw, &kr)
		tmp.Mul(w, p)
		wp.Mul(&tmp, w)
		wp.Scale(prob, &wp)
		wpw.Add(wpw, &wp)
		w.Scale(prob, w)
		ew.Add(ew, w)
	}
	var es mat.EigenSym
	if !es.Factorize(mat.NewSymDense(N, p.RawMatrix().Data), true) {
		t.Fatal("eigen of P")
	}
	var vecs mat.Dense
	es.VectorsTo(&vecs)
	q := vecs.Slice(0, N, 1, N) // eigenvalue 0 (the 1 direction) comes first
	var qq, r1, r mat.Dense
	qq.Kronecker(q, q)
	r1.Mul(qq.T(), kw)
	r.Mul(&r1, &qq)
	rho2 = spectralRadiusSym(t, &r)
	worst = maxEigSym(t, wpw)
	ew.Sub(ew, mat.NewDense(N, N, constSlice(N*N, 1/float64(N))))
	first = spectralRadiusSym(t, ew)
	return rho2, worst, first
}

func constSlice(n int, v float64) []float64 {
	s := make([]float64, n)
	for k := range s {
		s[k] = v
	}
	return s
}

func symOf(a mat.Matrix) *mat.SymDense {
	n, _ := a.Dims()
	s := mat.NewSymDense(n, nil)
	for i := range n {
		for j := i; j < n; j++ {
			s.SetSym(i, j, (a.At(i, j)+a.At(j, i))/2)
		}
	}
	return s
}

func spectralRadiusSym(t *testing.T, a mat.Matrix) float64 {
	t.Helper()
	var es mat.EigenSym
	if !es.Factorize(symOf(a), false) {
		t.Fatal("eigendecomposition failed")
	}
	ev := es.Values(nil)
	return math.Max(math.Abs(ev[0]), math.Abs(ev[len(ev)-1]))
}

func maxEigSym(t *testing.T, a mat.Matrix) float64 {
	t.Helper()
	var es mat.EigenSym
	if !es.Factorize(symOf(a), false) {
		t.Fatal("eigendecomposition failed")
	}
	ev := es.Values(nil)
	return ev[len(ev)-1]
}

// TestGossipRatesHandDerived checks cases derived by hand:
//
//   - K_N, p = 1, Metropolis-Hastings: every w_ij = 1/N, W = 11^T/N, so
//     all three rates are 0;
//   - K_N, p = 1, uniform alpha: W = (1 - alpha N) I + alpha 11^T, which is
//     (1 - alpha N) I on 1^perp: rho2 = worst = (1 - alpha N)^2 and
//     first = |1 - alpha N|;
//   - one edge with presence p, Metropolis-Hastings (w = 1/2): W = 11^T/2
//     with probability p and I otherwise: rho2 = worst = first = 1 - p;
//   - one edge, uniform alpha: e is multiplied by 1 - 2 alpha with
//     probability p: rho2 = worst = p (1 - 2 alpha)^2 + 1 - p,
//     first = |1 - 2 alpha p|;
//   - the static ring C_N (p = 1) with Metropolis-Hastings weights 1/3:
//     W = I - L/3 has eigenvalues mu_k = 1 - (2/3)(1 - cos(2 pi k / N)),
//     rho2 = worst = max_{k != 0} mu_k^2, first = max_{k != 0} |mu_k|.
func TestGossipRatesHandDerived(t *testing.T) {
	type want struct{ rho2, worst, first float64 }
	tests := []struct {
		name  string
		build func() (*Graph, error)
		p     float64
		m     Mixing
		want  want
	}{
		{"K5 metropolis", func() (*Graph, error) { return Complete(5) }, 1, Mixing{}, want{0, 0, 0}},
		{"K8 metropolis", func() (*Graph, error) { return Complete(8) }, 1, Mixing{}, want{0, 0, 0}},
		{"K6 uniform 0.1", func() (*Graph, error) { return Complete(6) }, 1, Mixing{Rule: MixUniform, Alpha: 0.1}, want{0.16, 0.16, 0.4}},
		{"K6 uniform 0.19", func() (*Graph, error) { return Complete(6) }, 1, Mixing{Rule: MixUniform, Alpha: 0.19}, want{0.0196, 0.0196, 0.14}},
		{"edge metropolis p=0.3", func() (*Graph, error) { return Path(2) }, 0.3, Mixing{}, want{0.7, 0.7, 0.7}},
		{"edge uniform 0.2 p=0.6", func() (*Graph, error) { return Path(2) }, 0.6, Mixing{Rule: MixUniform, Alpha: 0.2},
			want{0.6*0.36 + 0.4, 0.6*0.36 + 0.4, 1 - 0.24}},
	}
	for _, n := range []int{5, 8, 12} {
		var r2, fst float64
		for k := 1; k < n; k++ {
			mu := 1 - (2.0/3)*(1-math.Cos(2*math.Pi*float64(k)/float64(n)))
			r2, fst = math.Max(r2, mu*mu), math.Max(fst, math.Abs(mu))
		}
		tests = append(tests, struct {
			name  string
			build func() (*Graph, error)
			p     float64
			m     Mixing
			want  want
		}{"ring metropolis", func() (*Graph, error) { return Ring(n) }, 1, Mixing{}, want{r2, r2, fst}})
	}
	for _, tc := range tests {
		g, err := tc.build()
		if err != nil {
			t.Fatal(err)
		}
		if g, err = g.WithUniformP(tc.p); err != nil {
			t.Fatal(err)
		}
		r, err := g.GossipRates(tc.m, GossipOptions{})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		got := want{r.MeanSquare, r.WorstStep, r.FirstMoment}
		for _, c := range [][3]any{{"rho2", got.rho2, tc.want.rho2}, {"worst", got.worst, tc.want.worst}, {"first", got.first, tc.want.first}} {
			if d := math.Abs(c[1].(float64) - c[2].(float64)); d > 1e-12 {
				t.Errorf("%s (N=%d): %s = %.15g, want %.15g", tc.name, g.N, c[0], c[1], c[2])
			}
		}
		if !r.Exact || r.MeanSquareSE != 0 {
			t.Errorf("%s: exact %v, SE %v: want an exact result", tc.name, r.Exact, r.MeanSquareSE)
		}
	}
}

// TestGossipRatesAgainstBruteForce compares GossipRates (closed form or
// local enumeration, Lanczos) with bruteRates (global enumeration, dense
// Kronecker matrices) on small graphs with random p_ij, both rules.
func TestGossipRatesAgainstBruteForce(t *testing.T) {
	graphs := map[string]*Graph{
		"ring5":      mixTestGraph(t, 5, 0, 0.2, 2),
		"random6":    mixTestGraph(t, 6, 0.3, 0.2, 3),
		"dense5":     mixTestGraph(t, 5, 0.8, 0.3, 4),
		"star5 p.6":  must(t, func() (*Graph, error) { g, _ := Star(5); return g.WithUniformP(0.6) }),
		"path4 p.45": must(t, func() (*Graph, error) { g, _ := Path(4); return g.WithUniformP(0.45) }),
	}
	for name, g := range graphs {
		if len(g.Edges) > 11 {
			t.Fatalf("%s has %d edges: too many to enumerate", name, len(g.Edges))
		}
		for _, m := range []Mixing{{}, {Rule: MixUniform, Alpha: 0.8 / float64(g.MaxDegree())}} {
			r, err := g.GossipRates(m, GossipOptions{})
			if err != nil {
				t.Fatal(err)
			}
			rho2, worst, first := bruteRates(t, g, m)
			t.Logf("%s %q: rho2 %.6f (brute %.6f), worst %.6f, first %.6f, %d Lanczos steps", name, m.Rule, r.MeanSquare, rho2, r.WorstStep, r.FirstMoment, r.Iterations)
			if d := math.Abs(r.MeanSquare - rho2); d > 1e-10 {
				t.Errorf("%s %q: rho2 %.15g, brute force %.15g", name, m.Rule, r.MeanSquare, rho2)
			}
			if d := math.Abs(r.WorstStep - worst); d > 1e-12 {
				t.Errorf("%s %q: worst step %.15g, brute force %.15g", name, m.Rule, r.WorstStep, worst)
			}
			if d := math.Abs(r.FirstMoment - first); d > 1e-12 {
				t.Errorf("%s %q: first moment %.15g, brute force %.15g", name, m.Rule, r.FirstMoment, first)
			}
			if !(first*first <= rho2+1e-12 && rho2 <= worst+1e-12 && first*first < worst) {
				t.Errorf("%s %q: want first^2 <= rho2 <= worst with first^2 < worst: %v %v %v", name, m.Rule, first*first, rho2, worst)
			}
		}
	}
}

func must(t *testing.T, f func() (*Graph, error)) *Graph {
	t.Helper()
	g, err := f()
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestGossipRatesMonteCarlo forces the Monte Carlo moments on graphs whose
// exact moments are known by enumeration and checks that the estimate is
// within 4 standard errors, with a standard error small enough to matter.
func TestGossipRatesMonteCarlo(t *testing.T) {
	for name, g := range map[string]*Graph{
		"random7": mixTestGraph(t, 7, 0.3, 0.3, 5),
		"torus4x4 p.5": must(t, func() (*Graph, error) {
			g, _ := Grid(4, 4, true)
			return g.WithUniformP(0.5)
		}),
	} {
		exact, err := g.GossipRates(Mixing{}, GossipOptions{})
		if err != nil {
			t.Fatal(err)
		}
		mc, err := g.GossipRates(Mixing{}, GossipOptions{MaxWork: -1, Samples: 20000, Seed: 11})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: exact rho2 %.6f, Monte Carlo %.6f +- %.2g (%d samples)", name, exact.MeanSquare, mc.MeanSquare, mc.MeanSquareSE, mc.Samples)
		if !exact.Exact || mc.Exact || mc.Samples != 20000 {
			t.Errorf("%s: exact flags %v/%v, samples %d", name, exact.Exact, mc.Exact, mc.Samples)
		}
		if !(mc.MeanSquareSE > 0 && mc.MeanSquareSE < 2e-3) {
			t.Errorf("%s: standard error %v: want in (0, 2e-3)", name, mc.MeanSquareSE)
		}
		if d := math.Abs(mc.MeanSquare - exact.MeanSquare); d > 4*mc.MeanSquareSE {
			t.Errorf("%s: Monte Carlo %.6f is %.2g from the exact %.6f, more than 4 standard errors (%.2g)", name, mc.MeanSquare, d, exact.MeanSquare, mc.MeanSquareSE)
		}
	}
}

// TestGossipSimulationMatchesRho2 runs gossip x_{t+1} = W(zeta_t) x_t on a
// small ring with p < 1 from Gaussian starts x_0 ~ N(0, S*), for which
// E||e_t||^2 = rho2^t exactly, and checks that the empirical per-round
// factor (sum_r ||e_T^r||^2 / sum_r ||e_0^r||^2)^(1/T) over many runs is
// within 4 standard errors (from 40 batches of runs) of rho2, while the
// first-moment and worst-step predictions are not.
func TestGossipSimulationMatchesRho2(t *testing.T) {
	g := must(t, func() (*Graph, error) {
		g, _ := Ring(6)
		return g.WithUniformP(0.5)
	})
	const (
		T       = 8
		batches = 40
		perB    = 500
	)
	for _, m := range []Mixing{{}, {Rule: MixUniform, Alpha: 0.4}} {
		r, err := g.GossipRates(m, GossipOptions{})
		if err != nil {
			t.Fatal(err)
		}
		// x_0 = S*^{1/2} z with z standard normal.
		var es mat.EigenSym
		if !es.Factorize(r.Mode, true) {
			t.Fatal("eigen of S*")
		}
		var vecs mat.Dense
		es.VectorsTo(&vecs)
		root := mat.NewDense(g.N, g.N, nil)
		for k, lam := range es.Values(nil) {
			if lam < -1e-12 {
				t.Fatalf("S* has eigenvalue %v: not PSD", lam)
			}
			col := mat.Col(nil, k, &vecs)
			for i := range g.N {
				for j := range g.N {
					root.Set(i, j, root.At(i, j)+math.Sqrt(math.Max(lam, 0))*col[i]*col[j])
				}
			}
		}
		rng := rand.New(rand.NewPCG(7, 8))
		est := make([]float64, batches)
		var num, den float64
		run := 0
		for b := range est {
			var bn, bd float64
			for range perB {
				z := mat.NewVecDense(g.N, nil)
				for i := range g.N {
					z.SetVec(i, rng.NormFloat64())
				}
				x := mat.NewVecDense(g.N, nil)
				x.MulVec(root, z)
				bd += disagreement(x)
				proc := Bernoulli{G: g, Seed: uint64(run)}
				run++
				for s := range T {
					var nx mat.VecDense
					nx.MulVec(m.Matrix(g, proc, s, 0), x)
					x = &nx
				}
				bn += disagreement(x)
			}
			est[b] = math.Pow(bn/bd, 1.0/T)
			num, den = num+bn, den+bd
		}
		rho := math.Pow(num/den, 1.0/T)
		var mean, sq float64
		for _, v := range est {
			mean += v / batches
		}
		for _, v := range est {
			sq += (v - mean) * (v - mean)
		}
		se := math.Sqrt(sq/(batches-1)) / math.Sqrt(batches)
		t.Logf("%q: observed %.5f +- %.2g over %d runs; rho2 %.5f, first^2 %.5f, worst %.5f", m.Rule, rho, se, run, r.MeanSquare, r.FirstMoment*r.FirstMoment, r.WorstStep)
		if d := math.Abs(rho - r.MeanSquare); d > 4*se {
			t.Errorf("%q: observed %.5f is %.2g from rho2 = %.5f: more than 4 standard errors (%.2g)", m.Rule, rho, d, r.MeanSquare, se)
		}
		if se > 0.004 {
			t.Errorf("%q: standard error %.2g is too large for the test to mean anything", m.Rule, se)
		}
		for name, other := range map[string]float64{"first moment squared": r.FirstMoment * r.FirstMoment, "worst step": r.WorstStep} {
			if math.Abs(rho-other) < 8*se {
				t.Errorf("%q: the %s prediction %.5f is also within 8 standard errors: the test does not discriminate", m.Rule, name, other)
			}
		}
	}
}

// disagreement returns ||x - mean(x) 1||^2.
func disagreement(x *mat.VecDense) float64 {
	n := x.Len()
	var mean float64
	for i := range n {
		mean += x.AtVec(i) / float64(n)
	}
	var s float64
	for i := range n {
		d := x.AtVec(i) - mean
		s += d * d
	}
	return s
}

// TestGossipRatesLarge checks the sparse exact path on a torus of 64 agents
// and a ring of 64 agents with p < 1, where global enumeration is out of
// reach: the result is exact, obeys first^2 <= rho2 <= worst, and for p = 1
// the ring matches its closed form.
func TestGossipRatesLarge(t *testing.T) {
	torus := must(t, func() (*Graph, error) { g, _ := Grid(8, 8, true); return g.WithUniformP(0.7) })
	ring := must(t, func() (*Graph, error) { g, _ := Ring(64); return g.WithUniformP(0.3) })
	for name, g := range map[string]*Graph{"torus8x8 p.7": torus, "ring64 p.3": ring} {
		r, err := g.GossipRates(Mixing{}, GossipOptions{})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: rho2 %.8f, first^2 %.8f, worst %.8f, %d Lanczos steps", name, r.MeanSquare, r.FirstMoment*r.FirstMoment, r.WorstStep, r.Iterations)
		if !r.Exact {
			t.Errorf("%s: not exact", name)
		}
		if !(r.FirstMoment*r.FirstMoment <= r.MeanSquare+1e-12 && r.MeanSquare <= r.WorstStep+1e-12 && r.MeanSquare < 1) {
			t.Errorf("%s: bounds violated: first^2 %v, rho2 %v, worst %v", name, r.FirstMoment*r.FirstMoment, r.MeanSquare, r.WorstStep)
		}
	}
}

// TestGossipRatesOptions checks the switch to Monte Carlo past the work
// budget, the defaults, and the errors.
func TestGossipRatesOptions(t *testing.T) {
	g := mixTestGraph(t, 7, 0.3, 0.3, 5)
	r, err := g.GossipRates(Mixing{}, GossipOptions{MaxWork: 100, Samples: 3000, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if r.Exact || r.Samples != 3000 || !(r.MeanSquareSE > 0) {
		t.Errorf("work budget 100: exact %v, samples %d, SE %v: want Monte Carlo with 3000 samples", r.Exact, r.Samples, r.MeanSquareSE)
	}
	// An exact attempt abandoned half-way leaves nothing behind: the result
	// is that of Monte Carlo alone on the same draws.
	forced, err := g.GossipRates(Mixing{}, GossipOptions{MaxWork: -1, Samples: 3000, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, budget := range []int64{100, 3000, 20000} {
		r, err := g.GossipRates(Mixing{}, GossipOptions{MaxWork: budget, Samples: 3000, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		if r.Exact || r.MeanSquare != forced.MeanSquare || r.MeanSquareSE != forced.MeanSquareSE {
			t.Errorf("work budget %d: rho2 %v +- %v (exact %v), Monte Carlo alone %v +- %v", budget, r.MeanSquare, r.MeanSquareSE, r.Exact, forced.MeanSquare, forced.MeanSquareSE)
		}
	}
	if r, err = g.GossipRates(Mixing{}, GossipOptions{}); err != nil || !r.Exact || r.Samples != 0 {
		t.Errorf("defaults: exact %v, samples %d, err %v: want exact", r.Exact, r.Samples, err)
	}
	for _, tc := range []struct {
		m   Mixing
		opt GossipOptions
	}{
		{Mixing{Rule: MixUniform, Alpha: 1}, GossipOptions{}},
		{Mixing{Rule: "none"}, GossipOptions{}},
		{Mixing{}, GossipOptions{Samples: 1}},
	} {
		if _, err := g.GossipRates(tc.m, tc.opt); err == nil {
			t.Errorf("%+v %+v: no error", tc.m, tc.opt)
		}
	}
	// Every graph with 16 edges is exact under the default budget, the
	// densest ones too: K_6 plus a pendant edge.
	var edges []Edge
	for i := range 6 {
		for j := i + 1; j < 6; j++ {
			edges = append(edges, Edge{I: i, J: j, P: 0.5})
		}
	}
	dense, err := New(7, append(edges, Edge{I: 5, J: 6, P: 0.7}))
	if err != nil {
		t.Fatal(err)
	}
	if r, err := dense.GossipRates(Mixing{}, GossipOptions{}); err != nil || !r.Exact {
		t.Errorf("K_6 plus an edge (16 edges): exact %v, err %v", r.Exact, err)
	}
	one, _ := New(1, nil)
	if r, err := one.GossipRates(Mixing{}, GossipOptions{}); err != nil || r.MeanSquare != 0 {
		t.Errorf("one agent: %+v, %v", r, err)
	}
}

// TestGossipRatesDenseBruteForceLong compares the exact dynamic program
// with the global enumeration of all 2^16 presence patterns on the densest
// graph with 16 edges, K_6 plus a pendant edge, with random p_ij.
func TestGossipRatesDenseBruteForceLong(t *testing.T) {
	if os.Getenv("CONSIM_LONG") != "1" {
		t.Skip("long: set CONSIM_LONG=1")
	}
	rng := rand.New(rand.NewPCG(3, 4))
	var edges []Edge
	for i := range 6 {
		for j := i + 1; j < 6; j++ {
			edges = append(edges, Edge{I: i, J: j, P: 0.2 + 0.8*rng.Float64()})
		}
	}
	g, err := New(7, append(edges, Edge{I: 5, J: 6, P: 0.7}))
	if err != nil {
		t.Fatal(err)
	}
	r, err := g.GossipRates(Mixing{}, GossipOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rho2, worst, first := bruteRates(t, g, Mixing{})
	t.Logf("rho2 %.12f (brute %.12f), worst %.12f (%.12f), first %.12f (%.12f)", r.MeanSquare, rho2, r.WorstStep, worst, r.FirstMoment, first)
	if !r.Exact || math.Abs(r.MeanSquare-rho2) > 1e-10 || math.Abs(r.WorstStep-worst) > 1e-12 || math.Abs(r.FirstMoment-first) > 1e-12 {
		t.Errorf("exact %v: rho2 %v, worst %v, first %v; brute force %v, %v, %v", r.Exact, r.MeanSquare, r.WorstStep, r.FirstMoment, rho2, worst, first)
	}
}
