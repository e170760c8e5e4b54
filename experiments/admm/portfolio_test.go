package admm

import (
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	admmalg "github.com/consim/consim/consensus/admm"
	"github.com/consim/consim/graph"
	"github.com/consim/consim/problems/portfolio"
)

// smallExperiment is a 20-asset instance on which every SVRG-type method
// converges linearly (the --quick instance of consim reproduce admm).
func smallExperiment(cov float64) PortfolioExperiment {
	return PortfolioExperiment{
		Assets: 20, Periods: 200, MeanHi: 0.1, Cov: cov, Mu: 0.01,
		Params: admmalg.Params{Eta: 0.005, Rho: 1, K: 400, Batch: 2},
		Outer:  20, Seed: 3,
	}
}

// byMethod splits records into runs, in order of first appearance.
func byMethod(recs []EpochRecord) (names []string, runs map[string][]EpochRecord) {
	runs = map[string][]EpochRecord{}
	for _, r := range recs {
		if _, ok := runs[r.Method]; !ok {
			names = append(names, r.Method)
		}
		runs[r.Method] = append(runs[r.Method], r)
	}
	return names, runs
}

func TestADMMPortfolioExperiment(t *testing.T) {
	vr := []string{"com-SVR-ADMM", "com-SVRG-1", "com-SVRG-2"}
	for _, tc := range []struct {
		name     string
		cov      float64
		instance uint64
		alg2     bool
	}{
		{"cov2", 2, 0, false},
		{"cov10", 10, 1, false},
		{"cov2-alg2", 2, 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := smallExperiment(tc.cov)
			cfg.Instance, cfg.Alg2 = tc.instance, tc.alg2
			res, err := RunPortfolioExperiment(cfg, nil)
			if err != nil {
				t.Fatalf("RunPortfolioExperiment: %v", err)
			}
			sum := res.Summary

			// P* is the exact optimum of the instance drawn from the
			// documented stream.
			rets, err := portfolio.GenerateReturns(portfolio.ReturnsConfig{Assets: cfg.Assets, Periods: cfg.Periods, Cov: cfg.Cov, MeanHi: cfg.MeanHi},
				rand.New(rand.NewPCG(graph.StreamSample.Hash(cfg.Seed, 0, cfg.Instance, 0), uint64(cfg.Cov))))
			if err != nil {
				t.Fatal(err)
			}
			p, err := portfolio.New(rets)
			if err != nil {
				t.Fatal(err)
			}
			sol, err := p.Solve(portfolio.Ridge{Mu: cfg.Mu})
			if err != nil {
				t.Fatal(err)
			}
			if sum.PStar != sol.Value {
				t.Errorf("P* = %v, exact solve of the instance %v", sum.PStar, sol.Value)
			}
			if want := sol.Gap(make([]float64, cfg.Assets)); sum.InitialGap != want || !(want > 0) {
				t.Errorf("initial gap %v, want %v > 0", sum.InitialGap, want)
			}
			if sum.M != cfg.Periods || sum.N != cfg.Periods {
				t.Errorf("m, n = %d, %d, want %d", sum.M, sum.N, cfg.Periods)
			}
			m, n, K, N := cfg.Periods, cfg.Periods, cfg.Params.K, cfg.Params.Batch
			perOuter := int64(2*m + n + K*(2*N+4))
			if want := int(math.Round(float64(perOuter) / float64(2*m+1))); sum.SGDSteps != want {
				t.Errorf("SGD steps per epoch %d, want %d", sum.SGDSteps, want)
			}

			names, runs := byMethod(res.Records)
			want := append(append([]string{}, vr...), "SGD")
			if tc.alg2 {
				want = append(want, "com-SVR-ADMM-2")
			}
			if !reflect.DeepEqual(names, want) {
				t.Fatalf("methods %q, want %q", names, want)
			}
			switches := 0
			for i := 1; i < len(res.Records); i++ {
				if res.Records[i].Method != res.Records[i-1].Method {
					switches++
				}
			}
			if switches != len(names)-1 {
				t.Fatalf("records of the methods interleave (%d switches for %d methods)", switches, len(names))
			}
			var budget int64
			for _, name := range names {
				run := runs[name]
				for i, r := range run {
					if r.Outer != i {
						t.Errorf("%s: record %d has outer %d", name, i, r.Outer)
					}
					if r.CPUSeconds != 0 {
						t.Errorf("%s: CPU seconds %v without a clock", name, r.CPUSeconds)
					}
					if r.Gap < -1e-12*math.Abs(sum.PStar) {
						t.Errorf("%s outer %d: gap %v below the optimum", name, r.Outer, r.Gap)
					}
				}
				if run[0].Calls != 0 || run[0].Gap != sum.InitialGap {
					t.Errorf("%s starts with %d calls, gap %v; want 0, %v", name, run[0].Calls, run[0].Gap, sum.InitialGap)
				}
				if name != "SGD" {
					if len(run) != cfg.Outer+1 {
						t.Errorf("%s: %d records, want %d", name, len(run), cfg.Outer+1)
					}
					// Algorithm 2 converges like 1/S^2, the others linearly.
					fall := 1e-3
					if name == "com-SVR-ADMM-2" {
						fall = 0.1
					}
					if last := run[len(run)-1]; !(last.Gap < fall*sum.InitialGap) {
						t.Errorf("%s: gap %v -> %v, want a %g-fold decrease", name, sum.InitialGap, last.Gap, 1/fall)
					}
				}
			}
			for i, r := range runs["com-SVR-ADMM"] {
				if r.Calls != int64(i)*perOuter {
					t.Errorf("com-SVR-ADMM outer %d: %d oracle calls, want %d", i, r.Calls, int64(i)*perOuter)
				}
			}
			for _, name := range vr {
				budget = max(budget, runs[name][len(runs[name])-1].Calls)
			}
			sgd := runs["SGD"]
			if last, prev := sgd[len(sgd)-1].Calls, sgd[len(sgd)-2].Calls; last < budget || prev >= budget {
				t.Errorf("SGD stops at %d calls after %d; want the first epoch reaching the budget %d", last, prev, budget)
			}

			again, err := RunPortfolioExperiment(cfg, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(again, res) {
				t.Error("a second run with the same config differs")
			}
		})
	}
}

func TestADMMPortfolioExperimentAlg2KeepsOthers(t *testing.T) {
	cfg := smallExperiment(2)
	cfg.Outer = 3
	without, err := RunPortfolioExperiment(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Alg2 = true
	with, err := RunPortfolioExperiment(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(without.Records); !reflect.DeepEqual(with.Records[:n], without.Records) || with.Summary != without.Summary {
		t.Error("Alg2 changed the records of the other methods")
	}
	if len(with.Records) != len(without.Records)+cfg.Outer+1 {
		t.Errorf("%d records with Alg2, want %d more than %d", len(with.Records), cfg.Outer+1, len(without.Records))
	}
}

func TestADMMPortfolioExperimentClock(t *testing.T) {
	// A fake clock advancing 0.25 s per reading: every Epoch is bracketed
	// by two readings, so each adds exactly 0.25 s.
	var now time.Duration
	clock := func() time.Duration {
		now += 250 * time.Millisecond
		return now
	}
	cfg := smallExperiment(2)
	cfg.Outer = 3
	res, err := RunPortfolioExperiment(cfg, clock)
	if err != nil {
		t.Fatal(err)
	}
	epochs := 0
	for _, r := range res.Records {
		if want := 0.25 * float64(r.Outer); r.CPUSeconds != want {
			t.Errorf("%s outer %d: CPU seconds %v, want %v", r.Method, r.Outer, r.CPUSeconds, want)
		}
		if r.Outer > 0 {
			epochs++
		}
	}
	if got, want := now, time.Duration(2*epochs)*250*time.Millisecond; got != want {
		t.Errorf("clock read to %v, want two readings per epoch (%v)", got, want)
	}
}

func TestADMMPortfolioExperimentDivergence(t *testing.T) {
	cfg := smallExperiment(2)
	cfg.Params.Eta = 5
	cfg.Outer = 200
	res, err := RunPortfolioExperiment(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	names, runs := byMethod(res.Records)
	stopped := 0
	for _, name := range names {
		run := runs[name]
		last := run[len(run)-1]
		diverged := math.IsNaN(last.Gap) || last.Gap > 1e100
		for _, r := range run[:len(run)-1] {
			if math.IsNaN(r.Gap) || r.Gap > 1e100 {
				t.Errorf("%s continued after a diverged gap %v at outer %d", name, r.Gap, r.Outer)
			}
		}
		if name != "SGD" && len(run) < cfg.Outer+1 {
			stopped++
			if !diverged {
				t.Errorf("%s stopped at outer %d with gap %v", name, last.Outer, last.Gap)
			}
		}
	}
	if stopped == 0 {
		t.Error("no method diverged at eta = 5; the test does not exercise the stop")
	}
}

func TestADMMPortfolioExperimentInvalid(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*PortfolioExperiment)
	}{
		{"outer", func(c *PortfolioExperiment) { c.Outer = 0 }},
		{"mu", func(c *PortfolioExperiment) { c.Mu = -1 }},
		{"eta", func(c *PortfolioExperiment) { c.Params.Eta = 0 }},
		{"rho", func(c *PortfolioExperiment) { c.Params.Rho = math.Inf(1) }},
		{"K", func(c *PortfolioExperiment) { c.Params.K = 0 }},
		{"batch", func(c *PortfolioExperiment) { c.Params.Batch = 0 }},
		{"cov", func(c *PortfolioExperiment) { c.Cov = 0.5 }},
		{"periods", func(c *PortfolioExperiment) { c.Periods = 1 }},
		{"assets", func(c *PortfolioExperiment) { c.Assets = 0 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := smallExperiment(2)
			tc.edit(&cfg)
			calls := 0
			res, err := RunPortfolioExperiment(cfg, func() time.Duration { calls++; return 0 })
			if err == nil || res != nil {
				t.Fatalf("RunPortfolioExperiment(%+v) = %v, %v; want an error", cfg, res, err)
			}
			if calls != 0 {
				t.Errorf("clock read %d times before the error", calls)
			}
		})
	}
	if err := smallExperiment(2).Validate(); err != nil {
		t.Errorf("Validate of a good config: %v", err)
	}
}
