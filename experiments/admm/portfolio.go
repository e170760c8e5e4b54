package admm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	admmalg "github.com/consim/consim/consensus/admm"
	"github.com/consim/consim/graph"
	"github.com/consim/consim/problems/portfolio"
)

// PortfolioExperiment configures one instance of the portfolio experiment of
// Yu and Huang (Section 4.1, Figures 1 and 2): the mean-variance problem
// (eq. 24) with rewards r_i ~ N(nu, Sigma), cond(Sigma) = Cov, plus
// R(w) = (mu/2)||w||^2 through the splitting x - w = 0, solved from x0 = 0 by
// com-SVR-ADMM, com-SVRG-1, com-SVRG-2 and SGD (and com-SVR-ADMM-2 with Alg2).
type PortfolioExperiment struct {
	// Assets is N, the dimension d of x; Periods is n = m, the number of
	// reward samples.
	Assets, Periods int
	// MeanHi is the upper end of nu_k ~ U[0, MeanHi].
	MeanHi float64
	// Cov is the condition number of Sigma (ReturnsConfig.Cov).
	Cov float64
	// Mu is mu of R(w) = (mu/2)||w||^2.
	Mu float64
	// Params are eta, rho, K and the mini-batch N shared by every method;
	// SGD replaces K by its steps per epoch (PortfolioSummary.SGDSteps).
	Params admmalg.Params
	// Outer is the number of outer iterations of the SVRG-type methods.
	Outer int
	// Seed and Instance key every random stream through graph.Hash in the
	// stream graph.StreamSample: the rewards from (Seed, 0, StreamSample,
	// Instance, 0), the samples of method i from (Seed, 1, StreamSample,
	// Instance, i). Instance tells
	// apart the instances of one run (the index of Cov in its list).
	Seed, Instance uint64
	// Alg2 adds com-SVR-ADMM-2 (Algorithm 2) as a fifth method. It does not
	// change the SGD budget, so the other runs are the same with or
	// without it.
	Alg2 bool
}

// EpochRecord is the state of one method after an outer iteration (Outer =
// 0 is the starting point x0).
type EpochRecord struct {
	Method string
	Outer  int
	// Calls is the cumulative number of oracle calls.
	Calls int64
	// CPUSeconds is the cumulative time spent inside Epoch, as read from
	// the caller's clock.
	CPUSeconds float64
	// Gap is P(x) - P* with P = F + R, at the method's Point.
	Gap float64
}

// PortfolioSummary describes a generated instance.
type PortfolioSummary struct {
	// PStar is P* = min F(x) + R(x), from the exact solve.
	PStar float64
	// InitialGap is P(x0) - P* at x0 = 0.
	InitialGap float64
	// M and N are the numbers m of inner and n of outer components.
	M, N int
	// SGDSteps is K_SGD, the SGD steps per recorded epoch.
	SGDSteps int
}

// PortfolioResult is the outcome of RunPortfolioExperiment: the summary and
// the records of every method in run order (com-SVR-ADMM, com-SVRG-1,
// com-SVRG-2, SGD, then com-SVR-ADMM-2), each starting with Outer = 0.
type PortfolioResult struct {
	Summary PortfolioSummary
	Records []EpochRecord
}

// divergedGap is the gap beyond which a run counts as diverged and stops.
const divergedGap = 1e100

// Validate checks the run parameters of cfg: Outer > 0, mu >= 0, and eta,
// rho, K and N as com-SVR-ADMM requires them. The instance fields (Assets,
// Periods, Cov, MeanHi) are checked when the rewards are generated.
func (cfg PortfolioExperiment) Validate() error {
	if cfg.Outer <= 0 {
		return fmt.Errorf("admm: outer iterations %d must be positive", cfg.Outer)
	}
	if _, err := portfolio.NewRidge(cfg.Mu); err != nil {
		return err
	}
	return cfg.Params.Validate()
}

// RunPortfolioExperiment generates the instance of cfg, solves it exactly
// for P*, and runs the methods from x0 = 0, recording every outer
// iteration.
//
// The SVRG-type methods run cfg.Outer outer iterations. One com-SVR-ADMM
// outer iteration costs 2m + n + K(2N + 4) oracle calls and one SGD step
// with the exact inner function 2m + 1, so SGD takes
// K_SGD = max(1, round((2m + n + K(2N + 4)) / (2m + 1))) steps per epoch and
// runs epochs until it has used at least as many calls as the most
// expensive of com-SVR-ADMM, com-SVRG-1 and com-SVRG-2. A run whose gap
// becomes NaN or exceeds 1e100 has diverged and stops after that record.
//
// clock is the caller's CPU-time reading: it is called just before and just
// after every Epoch, and EpochRecord.CPUSeconds accumulates the
// differences. The package reads no clock itself; with a nil clock
// CPUSeconds stays 0. Everything else is a function of cfg alone.
func RunPortfolioExperiment(cfg PortfolioExperiment, clock func() time.Duration) (*PortfolioResult, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	reg := portfolio.Ridge{Mu: cfg.Mu}
	dataRNG := rand.New(rand.NewPCG(graph.StreamSample.Hash(cfg.Seed, 0, cfg.Instance, 0), uint64(cfg.Cov)))
	rets, err := portfolio.GenerateReturns(portfolio.ReturnsConfig{
		Assets: cfg.Assets, Periods: cfg.Periods, Cov: cfg.Cov, MeanHi: cfg.MeanHi,
	}, dataRNG)
	if err != nil {
		return nil, fmt.Errorf("portfolio experiment: %w", err)
	}
	p, err := portfolio.New(rets)
	if err != nil {
		return nil, fmt.Errorf("portfolio experiment: %w", err)
	}
	sol, err := p.Solve(reg)
	if err != nil {
		return nil, fmt.Errorf("portfolio experiment: %w", err)
	}
	d := p.Dims()
	x0 := make([]float64, d.D)

	prm := cfg.Params
	perOuter := 2*d.M + d.N + prm.K*(2*prm.Batch+4)
	sgdPrm := prm
	sgdPrm.K = max(1, int(math.Round(float64(perOuter)/float64(2*d.M+1))))

	vr := make([]admmalg.Method, 3)
	if vr[0], err = admmalg.NewComSVRADMM(p, reg, x0, prm); err != nil {
		return nil, fmt.Errorf("portfolio experiment: %w", err)
	}
	if vr[1], err = admmalg.NewComSVRG1(p, reg, x0, prm); err != nil {
		return nil, fmt.Errorf("portfolio experiment: %w", err)
	}
	if vr[2], err = admmalg.NewComSVRG2(p, reg, x0, prm); err != nil {
		return nil, fmt.Errorf("portfolio experiment: %w", err)
	}
	sgd, err := admmalg.NewSGD(p, reg, x0, sgdPrm)
	if err != nil {
		return nil, fmt.Errorf("portfolio experiment: %w", err)
	}
	var alg2 *admmalg.ComSVRADMM2
	if cfg.Alg2 {
		if alg2, err = admmalg.NewComSVRADMM2(p, reg, x0, prm); err != nil {
			return nil, fmt.Errorf("portfolio experiment: %w", err)
		}
	}

	// The sample streams are numbered 0-2 for vr, 3 for SGD, 4 for
	// Algorithm 2.
	sampleRNG := func(i uint64) *rand.Rand {
		return rand.New(rand.NewPCG(graph.StreamSample.Hash(cfg.Seed, 1, cfg.Instance, i), 0))
	}
	outerLimit := func(outer int, _ int64) bool { return outer < cfg.Outer }
	var recs []EpochRecord
	var budget int64
	for i, m := range vr {
		r := runEpochs(m, sampleRNG(uint64(i)), sol, clock, outerLimit)
		budget = max(budget, r[len(r)-1].Calls)
		recs = append(recs, r...)
	}
	sgdBudget := func(_ int, calls int64) bool { return calls < budget }
	recs = append(recs, runEpochs(sgd, sampleRNG(3), sol, clock, sgdBudget)...)
	if alg2 != nil {
		recs = append(recs, runEpochs(alg2, sampleRNG(4), sol, clock, outerLimit)...)
	}
	return &PortfolioResult{
		Summary: PortfolioSummary{
			PStar: sol.Value, InitialGap: sol.Gap(x0), M: d.M, N: d.N, SGDSteps: sgdPrm.K,
		},
		Records: recs,
	}, nil
}

// runEpochs records m at its start and after every epoch while
// more(outer, calls) holds, drawing samples from rng. Only the Epoch calls
// are timed with clock (nil: not timed); a diverged run stops early.
func runEpochs(m admmalg.Method, rng *rand.Rand, sol *portfolio.Solution, clock func() time.Duration, more func(int, int64) bool) []EpochRecord {
	recs := []EpochRecord{{Method: m.Name(), Gap: sol.Gap(m.Point())}}
	var spent time.Duration
	for outer := 0; more(outer, m.Oracle().Total()); {
		if clock != nil {
			start := clock()
			m.Epoch(rng)
			spent += clock() - start
		} else {
			m.Epoch(rng)
		}
		outer++
		gap := sol.Gap(m.Point())
		recs = append(recs, EpochRecord{
			Method: m.Name(), Outer: outer, Calls: m.Oracle().Total(),
			CPUSeconds: spent.Seconds(), Gap: gap,
		})
		if math.IsNaN(gap) || gap > divergedGap {
			break
		}
	}
	return recs
}
