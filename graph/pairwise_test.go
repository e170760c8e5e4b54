package graph

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// brutePairwise forms E[W kron W] and E[W] of one tick of pairwise gossip
// densely, summing over the agent that ticks, the neighbour it picks and
// the presence of the link, and returns the spectral radius of E[W kron
// W] on the disagreement subspace and lambda_2(E[W]).
func brutePairwise(t *testing.T, g *Graph, rates []float64) (rho2, lambda2 float64) {
	t.Helper()
	N := g.N
	kw := mat.NewDense(N*N, N*N, nil)
	ew := mat.NewDense(N, N, nil)
	var total float64
	for i := range N {
		total += rates[i]
	}
	add := func(w *mat.Dense, prob float64) {
		var kr mat.Dense
		kr.Kronecker(w, w)
		kr.Scale(prob, &kr)
		kw.Add(kw, &kr)
		var s mat.Dense
		s.Scale(prob, w)
		ew.Add(ew, &s)
	}
	for i := range N {
		nb := g.Neighbors(i)
		if len(nb) == 0 {
			add(identity(N), rates[i]/total)
			continue
		}
		for _, j := range nb {
			pick := rates[i] / total / float64(len(nb))
			p := g.P(i, j)
			w := identity(N)
			w.Set(i, i, 0.5)
			w.Set(j, j, 0.5)
			w.Set(i, j, 0.5)
			w.Set(j, i, 0.5)
			add(w, pick*p)
			add(identity(N), pick*(1-p))
		}
	}
	pm := identity(N)
	projectDisagreement(pm)
	var es mat.EigenSym
	if !es.Factorize(mat.NewSymDense(N, pm.RawMatrix().Data), true) {
		t.Fatal("eigen of P")
	}
	var vecs mat.Dense
	es.VectorsTo(&vecs)
	q := vecs.Slice(0, N, 1, N)
	var qq, r1, r mat.Dense
	qq.Kronecker(q, q)
	r1.Mul(qq.T(), kw)
	r.Mul(&r1, &qq)
	rho2 = spectralRadiusSym(t, &r)
	var qe, qeq mat.Dense
	qe.Mul(q.T(), ew)
	qeq.Mul(&qe, q)
	lambda2 = maxEigSym(t, &qeq)
	return rho2, lambda2
}

// TestPairwiseGossipRatesRing16 pins the values of the ring of 16 with
// unit clocks and p = 1: lambda_2(E[W]) = 1 - (1 - cos(2 pi/16))/16 =
// 0.995242 (E[W] = I - L/32), and the exact rate 0.99058.
func TestPairwiseGossipRatesRing16(t *testing.T) {
	g, err := Ring(16)
	if err != nil {
		t.Fatal(err)
	}
	r, err := g.PairwiseGossipRates(nil)
	if err != nil {
		t.Fatal(err)
	}
	wantL2 := 1 - (1-math.Cos(2*math.Pi/16))/16
	if math.Abs(r.Lambda2-wantL2) > 1e-12 || math.Abs(r.Lambda2-0.99524) > 5e-6 {
		t.Errorf("lambda_2(E[W]) = %.8f, want %.8f (0.99524)", r.Lambda2, wantL2)
	}
	if math.Abs(r.MeanSquare-0.99058) > 5e-6 {
		t.Errorf("rho2 = %.8f, want 0.99058", r.MeanSquare)
	}
	if r.TotalRate != 16 || math.Abs(r.PerTime-math.Exp(-16*(1-r.MeanSquare))) > 1e-15 {
		t.Errorf("total rate %v, per time %v", r.TotalRate, r.PerTime)
	}
	t.Logf("ring 16: rho2 %.6f, lambda_2(E[W]) %.6f, per unit time %.6f, %d Lanczos steps", r.MeanSquare, r.Lambda2, r.PerTime, r.Iterations)
}

// TestPairwiseGossipRatesAgainstBruteForce compares rho2 and lambda_2
// with the dense E[W kron W] on small graphs, with dropout and unequal
// clock rates, and checks lambda_2^2 <= rho2 <= lambda_2 (the lower bound
// is ||E[e_k]||^2 <= E||e_k||^2).
func TestPairwiseGossipRatesAgainstBruteForce(t *testing.T) {
	path, err := Path(5)
	if err != nil {
		t.Fatal(err)
	}
	ring, err := Ring(6)
	if err != nil {
		t.Fatal(err)
	}
	er, err := ErdosRenyi(7, 0.4, 3)
	if err != nil {
		t.Fatal(err)
	}
	erp, err := er.WithRandomP(0.2, 0.9, 5)
	if err != nil {
		t.Fatal(err)
	}
	ringp, err := ring.WithUniformP(0.3)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		g     *Graph
		rates []float64
	}{
		{"path5", path, nil},
		{"ring6 p=0.3", ringp, nil},
		{"er7 random p", erp, nil},
		{"er7 random p, unequal clocks", erp, []float64{1, 0.1, 2, 1, 1, 5, 0.5}},
	}
	for _, tc := range tests {
		r, err := tc.g.PairwiseGossipRates(tc.rates)
		if err != nil {
			t.Fatal(err)
		}
		rates := tc.rates
		if rates == nil {
			rates = constSlice(tc.g.N, 1)
		}
		rho2, l2 := brutePairwise(t, tc.g, rates)
		if math.Abs(r.MeanSquare-rho2) > 1e-10 || math.Abs(r.Lambda2-l2) > 1e-10 {
			t.Errorf("%s: rho2 %.12f lambda2 %.12f, brute force %.12f %.12f", tc.name, r.MeanSquare, r.Lambda2, rho2, l2)
		}
		if !(r.MeanSquare <= r.Lambda2+1e-12 && r.MeanSquare >= r.Lambda2*r.Lambda2-1e-12) {
			t.Errorf("%s: rho2 %.6f outside [lambda2^2, lambda2] = [%.6f, %.6f]", tc.name, r.MeanSquare, r.Lambda2*r.Lambda2, r.Lambda2)
		}
	}
}

// TestPairwiseGossipRatesErrors: bad clock rates are refused.
func TestPairwiseGossipRatesErrors(t *testing.T) {
	g, err := Ring(4)
	if err != nil {
		t.Fatal(err)
	}
	for name, rates := range map[string][]float64{
		"short":    {1, 1},
		"zero":     {1, 0, 1, 1},
		"negative": {1, -1, 1, 1},
		"inf":      {1, math.Inf(1), 1, 1},
		"nan":      {1, math.NaN(), 1, 1},
	} {
		if _, err := g.PairwiseGossipRates(rates); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	one, err := Complete(1)
	if err != nil {
		t.Fatal(err)
	}
	if r, err := one.PairwiseGossipRates(nil); err != nil || r.MeanSquare != 0 || r.PerTime != 1 {
		t.Errorf("one agent: %+v, %v", r, err)
	}
}
