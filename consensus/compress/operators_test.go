package compress

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

func sqNorm(x []float64) float64 {
	var s float64
	for _, v := range x {
		s += v * v
	}
	return s
}

func sqDist(a, b []float64) float64 {
	var s float64
	for i := range a {
		d := a[i] - b[i]
		s += d * d
	}
	return s
}

func TestKeep(t *testing.T) {
	for _, tc := range []struct {
		f    float64
		n    int
		want int
	}{
		{0.1, 123, 12}, {0.1, 125, 13}, {0.1, 5, 1}, {0.001, 10, 1}, {1, 7, 7}, {0.5, 1, 1}, {0.25, 6, 2},
	} {
		if got := Keep(tc.f, tc.n); got != tc.want {
			t.Errorf("Keep(%g, %d) = %d, want %d", tc.f, tc.n, got, tc.want)
		}
	}
}

// TestTopKContraction: top_k keeps the k largest entries (ties to the
// lower index), and ||Q(x) - x||^2 <= (1 - k/n) ||x||^2 holds for every x,
// not only in expectation.
func TestTopKContraction(t *testing.T) {
	op := &TopK{Fraction: 0.1}
	x := []float64{0.5, -3, 1, 2, -2, 0.1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0.2}
	q := make([]float64, len(x))
	op.Compress(x, q, nil) // k = 2: -3, and 2 over -2 (lower index)
	want := make([]float64, len(x))
	want[1], want[3] = -3, 2
	if !sameBits(q, want) {
		t.Fatalf("top 2 of %v = %v, want %v", x, q, want)
	}
	rng := rand.New(rand.NewPCG(7, 8))
	for _, n := range []int{1, 10, 123, 1000} {
		for range 50 {
			x := testVector(rng, n)
			q := make([]float64, n)
			op.Compress(x, q, nil)
			if e, b := sqDist(q, x), (1-op.Delta(n))*sqNorm(x); e > b*(1+1e-12) {
				t.Fatalf("n=%d: ||Q(x)-x||^2 = %g > (1-delta)||x||^2 = %g", n, e, b)
			}
		}
	}
}

// TestRandomOperatorsDelta measures E||Q(x) - x||^2 / ||x||^2 over 20,000
// draws for rand_k (equal to 1 - k/n in expectation) and qsgd (at most
// 1 - 1/tau), on a dense Gaussian vector and on a one-hot vector (the
// extreme cases of the quantizer's variance), and checks that tau qsgd is
// unbiased.
func TestRandomOperatorsDelta(t *testing.T) {
	const draws = 20000
	rng := rand.New(rand.NewPCG(9, 10))
	n := 123
	gauss := make([]float64, n)
	for l := range gauss {
		gauss[l] = rng.NormFloat64()
	}
	hot := make([]float64, n)
	hot[17] = -2.5
	for _, tc := range []struct {
		op    Operator
		x     []float64
		exact bool // E||Q(x)-x||^2 = (1-delta)||x||^2
	}{
		{&RandK{Fraction: 0.1}, gauss, true},
		{&RandK{Fraction: 0.5}, gauss, true},
		{QSGD{Bits: 4}, gauss, false},
		{QSGD{Bits: 2}, gauss, false},
		{QSGD{Bits: 1}, gauss, false},
		{QSGD{Bits: 4}, hot, false},
	} {
		q := make([]float64, n)
		mean := make([]float64, n)
		var sum, sum2 float64
		for range draws {
			tc.op.Compress(tc.x, q, rng)
			r := sqDist(q, tc.x) / sqNorm(tc.x)
			sum += r
			sum2 += r * r
			for l := range q {
				mean[l] += q[l] / draws
			}
		}
		m := sum / draws
		se := math.Sqrt((sum2/draws - m*m) / draws)
		bound := 1 - tc.op.Delta(n)
		t.Logf("%v: E||Q(x)-x||^2/||x||^2 = %.4f +- %.4f, 1 - delta = %.4f", tc.op, m, se, bound)
		if m > bound+4*se+1e-12 {
			t.Errorf("%v: mean ratio %.4f exceeds 1 - delta = %.4f by more than 4 standard errors (%.4f)", tc.op, m, bound, se)
		}
		if tc.exact && math.Abs(m-bound) > 4*se {
			t.Errorf("%v: mean ratio %.4f, want 1 - k/n = %.4f within 4 standard errors (%.4f)", tc.op, m, bound, se)
		}
		if qs, ok := tc.op.(QSGD); ok {
			tau := qs.Tau(n)
			var bias float64
			for l := range mean {
				bias = max(bias, math.Abs(tau*mean[l]-tc.x[l]))
			}
			// Each entry's level has variance at most 1/4, so tau*mean has
			// a standard error of at most ||x||/(2s sqrt(draws)).
			s := float64(uint64(1)<<qs.Bits - 1)
			if lim := 5 * math.Sqrt(sqNorm(tc.x)) / (2 * s * math.Sqrt(draws)); bias > lim {
				t.Errorf("%v: max_l |tau E[Q(x)_l] - x_l| = %.3g, want unbiased within %.3g", tc.op, bias, lim)
			}
		}
	}
}

// TestQSGDDeterministic: the same generator state gives the same q, and a
// zero or non-finite vector is handled without a NaN.
func TestQSGDDeterministic(t *testing.T) {
	x := testVector(rand.New(rand.NewPCG(1, 1)), 50)
	a, b := make([]float64, 50), make([]float64, 50)
	QSGD{Bits: 3}.Compress(x, a, rand.New(rand.NewPCG(4, 4)))
	QSGD{Bits: 3}.Compress(x, b, rand.New(rand.NewPCG(4, 4)))
	if !sameBits(a, b) {
		t.Fatal("qsgd is not a function of its generator")
	}
	zero := make([]float64, 4)
	q := []float64{1, 1, 1, 1}
	enc := QSGD{Bits: 3}.Compress(zero, q, rand.New(rand.NewPCG(1, 2)))
	if enc.Kind != Quantized || enc.Scale != 0 || sqNorm(q) != 0 {
		t.Errorf("zero vector: %v %v", enc, q)
	}
	inf := []float64{1, math.Inf(1)}
	q = make([]float64, 2)
	if enc := (QSGD{Bits: 3}).Compress(inf, q, rand.New(rand.NewPCG(1, 2))); enc.Kind != Dense || !sameBits(q, inf) {
		t.Errorf("infinite vector: %v %v, want it dense and unchanged", enc, q)
	}
}

// TestFeedback: error feedback sends q_t with sum q_t = sum v_t - e_T
// (to rounding), and the memory stays bounded for a contraction.
func TestFeedback(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	n := 40
	f := &Feedback{C: &TopK{Fraction: 0.1}}
	sumV, sumQ := make([]float64, n), make([]float64, n)
	v, q := make([]float64, n), make([]float64, n)
	var worst float64
	for range 2000 {
		for l := range v {
			v[l] = rng.NormFloat64()
		}
		f.Compress(v, q, rng)
		for l := range v {
			sumV[l] += v[l]
			sumQ[l] += q[l]
		}
		worst = max(worst, sqNorm(f.Memory()))
	}
	for l := range sumV {
		if d := math.Abs(sumQ[l] + f.Memory()[l] - sumV[l]); d > 1e-9 {
			t.Fatalf("entry %d: sum q + e - sum v = %g", l, d)
		}
	}
	// (2/delta)/(delta/2) E||v||^2 = 4n/delta^2 bounds E||e||^2; the
	// largest over the run stays well below it.
	delta := f.C.Delta(n)
	if lim := 4 * float64(n) / (delta * delta); worst > lim {
		t.Errorf("max ||e_t||^2 = %g, above %g", worst, lim)
	}
}

func TestSpec(t *testing.T) {
	for _, tc := range []struct {
		s    Spec
		want string
	}{
		{Spec{Operator: NameTopK, Fraction: 0.1}, ""},
		{Spec{Operator: NameRandK, Fraction: 1}, ""},
		{Spec{Operator: NameQSGD, Bits: 4}, ""},
		{Spec{Operator: NameNone}, ""},
		{Spec{Operator: NameTopK}, ""},
		{Spec{Operator: NameQSGD}, ""},
		{Spec{Operator: NameTopK, Fraction: -0.1}, "fraction: top_k needs a fraction in (0, 1], got -0.1"},
		{Spec{Operator: NameTopK, Fraction: math.NaN()}, "fraction: top_k needs a fraction in (0, 1], got NaN"},
		{Spec{Operator: NameRandK, Fraction: 1.5}, "fraction: rand_k needs a fraction in (0, 1], got 1.5"},
		{Spec{Operator: NameTopK, Fraction: 0.1, Bits: 2}, "bits: only applies to qsgd"},
		{Spec{Operator: NameQSGD, Bits: 17}, "bits: qsgd needs bits in 1..16, got 17"},
		{Spec{Operator: NameQSGD, Bits: 4, Fraction: 0.5}, "fraction: only applies to top_k and rand_k"},
		{Spec{Operator: NameNone, Bits: 1}, "operator: none takes no fraction or bits"},
		{Spec{Operator: "topk"}, `operator: "topk" is not one of top_k, rand_k, qsgd, none`},
	} {
		err := tc.s.Validate()
		if (err == nil) != (tc.want == "") || (err != nil && !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%+v: error %v, want %q", tc.s, err, tc.want)
		}
		op, err := tc.s.New()
		if (err == nil) != (tc.want == "") {
			t.Errorf("%+v: New error %v", tc.s, err)
		}
		if err == nil && op == nil {
			t.Errorf("%+v: no operator", tc.s)
		}
	}
	for _, tc := range []struct {
		s    Spec
		want string
	}{
		{Spec{Operator: NameTopK}, "top_k(10%)"},
		{Spec{Operator: NameRandK, Fraction: 0.3}, "rand_k(30%)"},
		{Spec{Operator: NameQSGD}, "qsgd(4 bits)"},
		{Spec{Operator: NameQSGD, Bits: 2}, "qsgd(2 bits)"},
		{Spec{Operator: NameNone}, "none"},
	} {
		if op, err := tc.s.New(); err != nil || op.String() != tc.want {
			t.Errorf("%+v: operator %v (%v), want %s", tc.s, op, err, tc.want)
		}
	}
}
