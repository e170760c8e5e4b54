package stepped_test

import (
	"testing"

	"github.com/consim/consim/consensus/lockstep"
	"github.com/consim/consim/scenarios"
	"github.com/consim/consim/stepped"
)

// BenchmarkRound10k steps the 10,000 agents of scenarios/scale_10k.yaml
// (100 x 100 torus, d = 10, the ALM) one round per iteration, on the
// engine with GOMAXPROCS workers and, for the ratio, under the
// single-threaded consensus/lockstep driver.
func BenchmarkRound10k(b *testing.B) {
	s, err := scenarios.LoadWith("../scenarios/scale_10k.yaml", "rounds=1000000")
	if err != nil {
		b.Fatal(err)
	}
	st, err := s.Build()
	if err != nil {
		b.Fatal(err)
	}
	b.Run("stepped", func(b *testing.B) {
		as, err := st.Agents()
		if err != nil {
			b.Fatal(err)
		}
		e, err := stepped.New(as, stepped.Options{})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for t := 0; b.Loop(); t++ {
			if err := e.Round(t); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(len(as))*float64(b.N)/b.Elapsed().Seconds(), "agent-rounds/s")
	})
	b.Run("lockstep", func(b *testing.B) {
		as, err := st.Agents()
		if err != nil {
			b.Fatal(err)
		}
		d, err := lockstep.New(as)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for t := 0; b.Loop(); t++ {
			if err := d.Round(t); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(len(as))*float64(b.N)/b.Elapsed().Seconds(), "agent-rounds/s")
	})
}
