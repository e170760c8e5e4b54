package graph

import (
	"math"
	"math/rand/v2"
	"testing"
)

// The golden values below were recorded once from the code as it stood
// when they were added. They pin today's behaviour: a change to any of them
// is a change to the bits of every run (every edge draw, sample, data set
// and fault), so it must be deliberate and announced, never a test update.

// TestGoldenHashUniform pins Hash and Uniform bit for bit.
func TestGoldenHashUniform(t *testing.T) {
	tests := []struct {
		seed, round, draw, a, b uint64
		hash, uniform           uint64 // Hash, Float64bits(Uniform)
	}{
		{0x0, 0, 0x0, 0x0, 0, 0x0c30a227140d688f, 0x3fa861444e281ad0},
		{0x1, 2, 0x3, 0x4, 5, 0x22d4e129c7334846, 0x3fc16a7094e399a4},
		{0x7e8, 7, 0x3, 0x3, 1, 0x781ac07c9d800866, 0x3fde06b01f276002},
		{0xffffffffffffffff, 1099511627776, 0x70726f626c656d, 0xffffffffffffffff, 0, 0x960ea53621cba6e7, 0x3fe2c1d4a6c43974},
		{0x9e3779b97f4a7c15, 123456789, 0x800000021, 0x11, 4, 0x02a250bd56b3a2df, 0x3f851285eab59d00},
	}
	for _, tc := range tests {
		if got := Hash(tc.seed, tc.round, tc.draw, tc.a, tc.b); got != tc.hash {
			t.Errorf("Hash(%#x, %d, %#x, %#x, %d) = %#016x, want %#016x", tc.seed, tc.round, tc.draw, tc.a, tc.b, got, tc.hash)
		}
		if got := math.Float64bits(Uniform(tc.seed, tc.round, tc.draw, tc.a, tc.b)); got != tc.uniform {
			t.Errorf("Uniform(%#x, %d, %#x, %#x, %d) bits = %#016x, want %#016x", tc.seed, tc.round, tc.draw, tc.a, tc.b, got, tc.uniform)
		}
	}
}

// TestGoldenSeedSample pins agent 3's sample stream of round 5 under seed
// 42: its first Uint64, NormFloat64 and Float64.
func TestGoldenSeedSample(t *testing.T) {
	pcg := rand.NewPCG(0, 0)
	SeedSample(pcg, 42, 5, 3)
	r := rand.New(pcg)
	got := [3]uint64{r.Uint64(), math.Float64bits(r.NormFloat64()), math.Float64bits(r.Float64())}
	want := [3]uint64{0x298e31948f4c77d3, 0x3feeb6f5a794e17a, 0x3fae8abf02613000}
	if got != want {
		t.Fatalf("SeedSample(42, t=5, i=3) draws %#016x, want %#016x", got, want)
	}
}
