package compress

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// Operator is a compression operator Q: R^n -> R^n with contraction
// parameter Delta(n) (see the package doc). An Operator may keep scratch
// buffers: it is not safe for concurrent use, and each agent holds its
// own.
type Operator interface {
	// Compress writes q = Q(x) into q (len(q) == len(x); x and q must not
	// overlap) and returns the Encoding that carries q exactly. rng is the
	// operator's randomness; deterministic operators ignore it (it may be
	// nil for them).
	Compress(x, q []float64, rng *rand.Rand) Encoding
	// Delta is delta for vectors of length n >= 1: E||Q(x) - x||^2 <=
	// (1 - Delta(n)) ||x||^2.
	Delta(n int) float64
	// Random reports whether Compress draws from rng.
	Random() bool
	// String names the operator with its parameter, e.g. "top_k(10%)".
	String() string
}

// Keep returns k = max(1, floor(f n + 1/2)), the number of entries that
// top_k and rand_k with fraction f in (0, 1] keep of n >= 1, at most n.
func Keep(f float64, n int) int {
	return min(n, max(1, int(math.Floor(f*float64(n)+0.5))))
}

// TopK is top_k: it keeps the Keep(Fraction, n) entries of largest
// magnitude (ties: the lower index) and zeroes the rest; delta = k/n.
type TopK struct {
	// Fraction is f in (0, 1].
	Fraction float64
	idx      []int
}

// Compress implements Operator.
func (o *TopK) Compress(x, q []float64, _ *rand.Rand) Encoding {
	k := Keep(o.Fraction, len(x))
	o.idx = o.idx[:0]
	for l := range x {
		o.idx = append(o.idx, l)
	}
	slices.SortFunc(o.idx, func(a, b int) int {
		if c := cmp.Compare(math.Abs(x[b]), math.Abs(x[a])); c != 0 {
			return c
		}
		return a - b
	})
	keep(x, q, o.idx[:k])
	return Encoding{Kind: Sparse}
}

// Delta implements Operator: k/n.
func (o *TopK) Delta(n int) float64 { return float64(Keep(o.Fraction, n)) / float64(n) }

// Random implements Operator: false.
func (o *TopK) Random() bool { return false }

func (o *TopK) String() string { return fmt.Sprintf("top_k(%g%%)", 100*o.Fraction) }

// RandK is CHOCO's rand_k: it keeps Keep(Fraction, n) entries chosen
// uniformly without replacement (a partial Fisher-Yates shuffle drawn from
// rng) and zeroes the rest, without rescaling; delta = k/n.
type RandK struct {
	// Fraction is f in (0, 1].
	Fraction float64
	idx      []int
}

// Compress implements Operator.
func (o *RandK) Compress(x, q []float64, rng *rand.Rand) Encoding {
	n := len(x)
	k := Keep(o.Fraction, n)
	o.idx = o.idx[:0]
	for l := range x {
		o.idx = append(o.idx, l)
	}
	for j := range k {
		r := j + rng.IntN(n-j)
		o.idx[j], o.idx[r] = o.idx[r], o.idx[j]
	}
	keep(x, q, o.idx[:k])
	return Encoding{Kind: Sparse}
}

// Delta implements Operator: k/n.
func (o *RandK) Delta(n int) float64 { return float64(Keep(o.Fraction, n)) / float64(n) }

// Random implements Operator: true.
func (o *RandK) Random() bool { return true }

func (o *RandK) String() string { return fmt.Sprintf("rand_k(%g%%)", 100*o.Fraction) }

// keep writes q_l = x_l for l in idx and q_l = 0 elsewhere.
func keep(x, q []float64, idx []int) {
	clear(q)
	for _, l := range idx {
		q[l] = x[l]
	}
}

// QSGD is CHOCO's qsgd_s with s = 2^Bits - 1 levels (see the package
// doc): q_l = sign(x_l) L_l ||x||/(s tau), L_l = floor(s |x_l|/||x|| +
// xi_l) (at most s), tau = 1 + min(n/s^2, sqrt(n)/s); delta = 1/tau. On
// the wire each entry takes Bits bits for its level and one for its sign.
// A vector whose norm is not finite (an iterate that diverged) is passed
// through unchanged, Dense.
type QSGD struct {
	// Bits is b in 1..MaxBits.
	Bits int
}

// Tau is tau = 1 + min(n/s^2, sqrt(n)/s) for vectors of length n.
func (o QSGD) Tau(n int) float64 {
	s := float64(uint64(1)<<o.Bits - 1)
	return 1 + min(float64(n)/(s*s), math.Sqrt(float64(n))/s)
}

// Compress implements Operator. The uniforms xi_l are drawn in index
// order, one per entry whatever its value.
func (o QSGD) Compress(x, q []float64, rng *rand.Rand) Encoding {
	var sq float64
	for _, v := range x {
		sq += float64(v * v)
	}
	norm := math.Sqrt(sq)
	if math.IsInf(norm, 0) || math.IsNaN(norm) {
		copy(q, x)
		return Encoding{}
	}
	top := uint64(1)<<o.Bits - 1
	s := float64(top)
	scale := norm / float64(s*o.Tau(len(x)))
	for l, v := range x {
		xi := rng.Float64()
		var L uint64
		if norm > 0 {
			L = min(top, uint64(math.Floor(float64(s*math.Abs(v))/norm+xi)))
		}
		q[l] = quantValue(L, math.Signbit(v), scale)
	}
	return Encoding{Kind: Quantized, Bits: o.Bits, Scale: scale}
}

// Delta implements Operator: 1/tau.
func (o QSGD) Delta(n int) float64 { return 1 / o.Tau(n) }

// Random implements Operator: true.
func (o QSGD) Random() bool { return true }

func (o QSGD) String() string { return fmt.Sprintf("qsgd(%d bits)", o.Bits) }

// Identity is exact communication: q = x, Dense; delta = 1.
type Identity struct{}

// Compress implements Operator.
func (Identity) Compress(x, q []float64, _ *rand.Rand) Encoding {
	copy(q, x)
	return Encoding{}
}

// Delta implements Operator: 1.
func (Identity) Delta(int) float64 { return 1 }

// Random implements Operator: false.
func (Identity) Random() bool { return false }

func (Identity) String() string { return "none" }
