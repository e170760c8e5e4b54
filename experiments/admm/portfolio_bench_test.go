package admm

import (
	"testing"

	admmalg "github.com/consim/consim/consensus/admm"
)

// BenchmarkPortfolioExperiment runs the experiment of `consim reproduce
// admm` at cov = 2 (200 assets, 2000 periods, K = 2000, 70 outer
// iterations): one op is the whole run of the four methods.
func BenchmarkPortfolioExperiment(b *testing.B) {
	cfg := PortfolioExperiment{
		Assets: 200, Periods: 2000, Cov: 2, MeanHi: 0.1, Mu: 0.01,
		Params: admmalg.Params{Eta: 0.001, Rho: 1, K: 2000, Batch: 5},
		Outer:  70, Seed: 1,
	}
	for range b.N {
		if _, err := RunPortfolioExperiment(cfg, nil); err != nil {
			b.Fatal(err)
		}
	}
}
