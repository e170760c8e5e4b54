package units

import (
	"math"
	"testing"
)

func TestBytes(t *testing.T) {
	for b, want := range map[float64]string{
		0: "0 bytes", 1000: "1000 bytes", 1024: "1.00 KiB", 1536: "1.50 KiB", 10 << 20: "10.0 MiB",
		41.2 * (1 << 30): "41.2 GiB", 512 << 30: "512 GiB", -2048: "-2.00 KiB",
		1.2e7 * math.Pow(1024, 6): "1.2e7 EiB", math.NaN(): "NaN bytes", math.Inf(1): "+Inf bytes",
	} {
		if got := Bytes(b); got != want {
			t.Errorf("Bytes(%g) = %q, want %q", b, got, want)
		}
	}
}

func TestCount(t *testing.T) {
	for x, want := range map[float64]string{
		8: "8", 9999999: "9999999", 2.5: "2.5", 1.23456: "1.23", 1e9: "1e9", 2.5e12: "2.5e12", 1.5e100: "1.5e100",
	} {
		if got := Count(x); got != want {
			t.Errorf("Count(%g) = %q, want %q", x, got, want)
		}
	}
}

func TestThousands(t *testing.T) {
	for v, s := range map[float64]string{0: "0", 999: "999", 1000: "1,000", 12345: "12,345", 61536: "61,536", 1234567: "1,234,567", -4321: "-4,321", 999.6: "1,000"} {
		if got := Thousands(v); got != s {
			t.Errorf("Thousands(%v) = %q, want %q", v, got, s)
		}
	}
}
