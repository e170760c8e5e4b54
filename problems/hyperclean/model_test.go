package hyperclean

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/consim/consim/problems/bilevel"
)

// denseWeighted is the reference of WeightedLoss in gonum's dense matrix
// form: Z = A W^T, G = (diag(sigma(x)) (P - E))^T A.
func denseWeighted(s *Set, x, y []float64) (v float64, gx, gy []float64) {
	c, d := s.Classes, s.Features()
	W := mat.NewDense(c, d, y)
	var Z mat.Dense
	Z.Mul(s.A, W.T())
	n := s.Len()
	R := mat.NewDense(n, c, nil)
	gx = make([]float64, n)
	for k := range n {
		var m float64 = math.Inf(-1)
		for i := range c {
			m = math.Max(m, Z.At(k, i))
		}
		var sum float64
		for i := range c {
			sum += math.Exp(Z.At(k, i) - m)
		}
		ce := m + math.Log(sum) - Z.At(k, s.Labels[k])
		sg := 1 / (1 + math.Exp(-x[k]))
		v += sg * ce
		gx[k] = sg * (1 - sg) * ce
		for i := range c {
			p := math.Exp(Z.At(k, i)-m) / sum
			if i == s.Labels[k] {
				p--
			}
			R.Set(k, i, sg*p)
		}
	}
	var G mat.Dense
	G.Mul(R.T(), s.A)
	gy = make([]float64, c*d)
	for i := range c {
		for j := range d {
			gy[i*d+j] = G.At(i, j)
		}
	}
	return v, gx, gy
}

func maxRel(a, b []float64) float64 {
	var m float64
	for i := range a {
		m = math.Max(m, math.Abs(a[i]-b[i])/math.Max(1, math.Abs(b[i])))
	}
	return m
}

// TestWeightedLossMatchesDense checks the sparse kernels against the dense
// gonum reference, for the 10-class fast path and the generic path.
func TestWeightedLossMatchesDense(t *testing.T) {
	for _, classes := range []int{10, 3} {
		rng := rand.New(rand.NewPCG(1, uint64(classes)))
		s := randomSet(t, rng, 50, 9, classes)
		x := randVec(rng, 50, 2)
		y := randVec(rng, s.ModelDim(), 1)
		w := NewWeightedLoss(s)
		gx := make([]float64, 50)
		gy := make([]float64, s.ModelDim())
		v := w.ValueGrad(x, y, gx, gy)
		rv, rgx, rgy := denseWeighted(s, x, y)
		if math.Abs(v-rv) > 1e-12*math.Abs(rv) || maxRel(gx, rgx) > 1e-12 || maxRel(gy, rgy) > 1e-12 {
			t.Fatalf("classes %d: value %v vs %v, gx err %g, gy err %g", classes, v, rv, maxRel(gx, rgx), maxRel(gy, rgy))
		}
		// A second call at the same y with another x uses the cache and must
		// give what a fresh oracle gives.
		x2 := randVec(rng, 50, 2)
		v2 := w.ValueGrad(x2, y, gx, gy)
		rv2, rgx2, rgy2 := denseWeighted(s, x2, y)
		if w.Forwards != 1 || math.Abs(v2-rv2) > 1e-12*math.Abs(rv2) || maxRel(gx, rgx2) > 1e-12 || maxRel(gy, rgy2) > 1e-12 {
			t.Fatalf("classes %d: cached call: forwards %d, value %v vs %v", classes, w.Forwards, v2, rv2)
		}
	}
}

// TestGradientsFiniteDifferences checks every oracle's gradient against
// central differences.
func TestGradientsFiniteDifferences(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 3))
	h := smallCleaning(t, 5, 20, 10)
	pb, err := h.Bilevel()
	if err != nil {
		t.Fatal(err)
	}
	x := randVec(rng, pb.NX, 1)
	y := randVec(rng, pb.NY, 0.5)
	for _, o := range []struct {
		name string
		obj  bilevel.Objective
	}{{"f", pb.F}, {"g", pb.G}} {
		gx := make([]float64, pb.NX)
		gy := make([]float64, pb.NY)
		o.obj.Grad(x, y, gx, gy)
		const eps = 1e-6
		check := func(v []float64, g []float64, what string) {
			for _, i := range []int{0, 1, len(v) / 2, len(v) - 1} {
				old := v[i]
				v[i] = old + eps
				fp := o.obj.Value(x, y)
				v[i] = old - eps
				fm := o.obj.Value(x, y)
				v[i] = old
				fd := (fp - fm) / (2 * eps)
				if math.Abs(fd-g[i]) > 1e-6*math.Max(1, math.Abs(fd)) {
					t.Errorf("%s: d/d%s[%d] = %v, finite difference %v", o.name, what, i, g[i], fd)
				}
			}
		}
		check(x, gx, "x")
		check(y, gy, "y")
	}
}

func TestAccuracyAndF1(t *testing.T) {
	// Two features, three classes, model W = [[1,0],[0,1],[0,0]] (no bias
	// weight): logits of (a1, a2) are (a1, a2, 0).
	s, err := NewSet([]float64{2, 1, 0, 3, -1, -2, 1, 1}, 2, []int{0, 1, 2, 1}, 3)
	if err != nil {
		t.Fatal(err)
	}
	y := []float64{1, 0, 0, 0, 1, 0, 0, 0, 0}
	// Predictions: 0, 1, 2, and a tie 1 = 1 -> first max, class 0 (label 1: miss).
	acc, err := Accuracy(s, y)
	if err != nil || acc != 0.75 {
		t.Fatalf("accuracy %v (%v), want 0.75", acc, err)
	}
	if _, err := Accuracy(s, y[:4]); err == nil {
		t.Fatal("short model accepted")
	}
	for _, tc := range []struct {
		x     []float64
		clean []bool
		want  float64
	}{
		// TP = 2 (0, 0.5 at clean), FP = 1 (x = 1 at dirty), FN = 1 (-1 at clean): 4/(4+1+1).
		{[]float64{0, 0.5, 1, -1, -2}, []bool{true, true, false, true, false}, 4.0 / 6},
		{[]float64{1, 1}, []bool{true, true}, 1},
		{[]float64{-1, 1}, []bool{true, false}, 0},
		// All predicted clean: precision 1/2, recall 1: F1 2/3.
		{[]float64{0, 0}, []bool{true, false}, 2.0 / 3},
	} {
		got, err := F1(tc.x, tc.clean)
		if err != nil || math.Abs(got-tc.want) > 1e-15 {
			t.Errorf("F1(%v, %v) = %v (%v), want %v", tc.x, tc.clean, got, err, tc.want)
		}
	}
	if _, err := F1([]float64{1}, []bool{true, false}); err == nil {
		t.Fatal("length mismatch accepted")
	}
}

func TestNewSetErrors(t *testing.T) {
	for _, tc := range []struct {
		rows   []float64
		dim    int
		labels []int
	}{
		{[]float64{1, 2}, 2, []int{0, 1}},
		{[]float64{1, 2}, 0, []int{0}},
		{[]float64{1, 2}, 2, []int{3}},
		{nil, 2, nil},
	} {
		if _, err := NewSet(tc.rows, tc.dim, tc.labels, 3); err == nil {
			t.Errorf("NewSet(%v, %d, %v) accepted", tc.rows, tc.dim, tc.labels)
		}
	}
}

// TestCorruption checks the draw of NewHyperCleaning on synthetic digits:
// exactly the chosen fraction is corrupted, every corrupted label is
// wrong, the wrong labels spread over the 9 other classes, the split has
// no repeated image, and the same seed gives the same instance.
func TestCorruption(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	const n, dim = 3000, 4
	d := Digits{N: n, Dim: dim, Pixels: make([]uint8, n*dim), Labels: make([]uint8, n)}
	for k := range n {
		d.Labels[k] = uint8(rng.IntN(10))
		// Encode the image index in the pixels to recover the true label.
		d.Pixels[k*dim] = uint8(k % 256)
		d.Pixels[k*dim+1] = uint8(k / 256)
	}
	cfg := CleaningConfig{Train: 2000, Val: 500, Corrupt: 0.5, RhoBar: 0.1, Seed: 42}
	h, err := NewHyperCleaning(d, d, cfg)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int]bool{}
	id := func(s *Set, k int) int {
		return int(math.Round(s.A.At(k, 0)*255)) + 256*int(math.Round(s.A.At(k, 1)*255))
	}
	bad := 0
	var offsets [10]int
	for k := range cfg.Train {
		i := id(h.Train, k)
		if seen[i] {
			t.Fatalf("image %d drawn twice", i)
		}
		seen[i] = true
		truth := int(d.Labels[i])
		if h.Clean[k] != (h.Train.Labels[k] == truth) {
			t.Fatalf("sample %d: clean %v, label %d, truth %d", k, h.Clean[k], h.Train.Labels[k], truth)
		}
		if !h.Clean[k] {
			bad++
			offsets[(h.Train.Labels[k]-truth+10)%10]++
		}
	}
	for k := range cfg.Val {
		i := id(h.Val, k)
		if seen[i] || h.Val.Labels[k] != int(d.Labels[i]) {
			t.Fatalf("validation sample %d: image %d repeated or relabelled", k, i)
		}
		seen[i] = true
	}
	if bad != 1000 {
		t.Fatalf("%d corrupted, want 1000", bad)
	}
	// Offsets 1..9 each expect 1000/9 = 111; allow a wide band.
	for o := 1; o < 10; o++ {
		if offsets[o] < 70 || offsets[o] > 155 {
			t.Errorf("wrong-label offset %d drawn %d times of 1000", o, offsets[o])
		}
	}
	h2, err := NewHyperCleaning(d, d, cfg)
	if err != nil {
		t.Fatal(err)
	}
	for k := range h.Train.Labels {
		if h.Train.Labels[k] != h2.Train.Labels[k] || id(h.Train, k) != id(h2.Train, k) {
			t.Fatal("same seed, different instance")
		}
	}
	cfg.Seed++
	h3, _ := NewHyperCleaning(d, d, cfg)
	same := 0
	for k := range h.Train.Labels {
		if id(h.Train, k) == id(h3.Train, k) {
			same++
		}
	}
	if same > 100 {
		t.Fatalf("another seed kept %d of 2000 samples in place", same)
	}
	for _, bad := range []CleaningConfig{{Train: 2000, Val: 1001, Corrupt: 0.5}, {Train: 10, Val: 10, Corrupt: 1.5}, {Train: 0, Val: 10}} {
		if _, err := NewHyperCleaning(d, d, bad); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
	if _, err := NewHyperCleaning(Digits{N: 1, Dim: 2, Pixels: []uint8{1}, Labels: []uint8{1}}, d, cfg); err == nil {
		t.Error("inconsistent digits accepted")
	}
}
