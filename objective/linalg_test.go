package objective

import (
	"math"
	"math/big"
	"math/rand/v2"
	"runtime"
	"testing"

	"gonum.org/v1/gonum/floats"
)

// TestDotAxpy checks dot and axpy against sums in exact arithmetic and, on
// amd64, bit for bit against gonum's kernels, whose results they pin on
// every architecture.
func TestDotAxpy(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 8))
	for n := 0; n <= 19; n++ {
		x, y := make([]float64, n), make([]float64, n)
		for i := range x {
			x[i] = rng.NormFloat64() * math.Exp2(float64(rng.IntN(20)-10))
			y[i] = rng.NormFloat64()
		}
		got := dot(x, y)
		exact, abs := new(big.Float).SetPrec(2000), 0.0
		for i := range x {
			exact.Add(exact, new(big.Float).SetPrec(2000).Mul(big.NewFloat(x[i]), big.NewFloat(y[i])))
			abs += math.Abs(x[i] * y[i])
		}
		want, _ := exact.Float64()
		if math.Abs(got-want) > 4*float64(n)*0x1p-53*abs {
			t.Errorf("n=%d: dot = %v, exact %v", n, got, want)
		}
		alpha := rng.NormFloat64()
		z := append([]float64(nil), y...)
		axpy(z, alpha, x)
		for i := range z {
			if w := y[i] + float64(alpha*x[i]); z[i] != w {
				t.Errorf("n=%d: axpy[%d] = %v, want %v", n, i, z[i], w)
			}
		}
		if runtime.GOARCH != "amd64" {
			continue
		}
		if g := floats.Dot(x, y); math.Float64bits(g) != math.Float64bits(got) {
			t.Errorf("n=%d: dot = %#x, floats.Dot = %#x", n, math.Float64bits(got), math.Float64bits(g))
		}
		zg := append([]float64(nil), y...)
		floats.AddScaled(zg, alpha, x)
		for i := range z {
			if math.Float64bits(z[i]) != math.Float64bits(zg[i]) {
				t.Errorf("n=%d: axpy[%d] = %v, floats.AddScaled %v", n, i, z[i], zg[i])
			}
		}
	}
}
