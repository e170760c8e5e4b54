package slicing

import (
	"fmt"
	"math"

	slicingalg "github.com/consim/consim/consensus/slicing"
	problem "github.com/consim/consim/problems/slicing"
)

// Config is the experiment of `consim reproduce slicing` (Table): the
// regularized ALM on random instances, with and without message loss.
type Config struct {
	// Gen is the instance size (slicing.Medium); Seeds are the instance
	// seeds (1..20).
	Gen   problem.GenOptions
	Seeds []uint64
	// RegWeight, P and Eps define P_eps (2, 0.5, 0.1); the parameters are
	// Practical's.
	RegWeight, P, Eps float64
	// Rounds is the round budget (10,000); the run stops early, checked
	// every Every rounds (100), once w is binary with violation <= Tol
	// (1e-4).
	Rounds, Every int
	Tol           float64
	// Losses are the emulated loss rates (0 and 0.1; BernoulliLoss with
	// seed LossSeed, 1).
	Losses   []float64
	LossSeed uint64
}

// DefaultConfig is the experiment of the paper's section 6.2: 20 medium
// instances (seeds 1..20), sigma = 2, p = 0.5, eps = 0.1, at most 10000
// rounds checked every 100, tolerance 1e-4, without loss and with 10%
// loss.
func DefaultConfig() Config {
	seeds := make([]uint64, 20)
	for k := range seeds {
		seeds[k] = uint64(k + 1)
	}
	return Config{Gen: problem.Medium, Seeds: seeds, RegWeight: 2, P: 0.5, Eps: 0.1,
		Rounds: 10000, Every: 100, Tol: 1e-4, Losses: []float64{0, 0.1}, LossSeed: 1}
}

// TableRow is one run of Table.
type TableRow struct {
	Seed uint64
	Loss float64
	// LP is the LP bound (PathLP).
	LP float64
	// Objective is g at the final point, Gap = (Objective - LP) / LP.
	Objective, Gap float64
	// Violation, BinaryFrac and Binary are the final Measures; Feasible is
	// Violation <= Tol.
	Violation, BinaryFrac float64
	Binary, Feasible      bool
	// RoundFeasible reports whether rounding gives a feasible slice,
	// RoundObjective its routing cost and RoundGap its gap to LP.
	RoundFeasible            bool
	RoundObjective, RoundGap float64
	// Rounds, Messages, Bytes and Dropped are the run's traffic.
	Rounds                   int
	Messages, Bytes, Dropped int64
}

// TableSummary aggregates the rows of one loss rate.
type TableSummary struct {
	Loss      float64
	Instances int
	// BinaryFeasible counts the runs that end binary and feasible;
	// RoundFeasible those whose rounding is a feasible slice.
	BinaryFeasible, RoundFeasible int
	// MeanGap is the mean gap to the LP bound over all runs;
	// MeanRoundGap over the feasible roundings (NaN if none).
	MeanGap, MeanRoundGap float64
	// MeanRounds, MeanMessages and MeanBytes are per run.
	MeanRounds, MeanMessages, MeanBytes float64
}

// Table runs the experiment of opt: for every seed an instance, its LP
// bound, and one lockstep run (Run) per loss rate; rows ordered by seed
// then loss, one summary per loss rate.
func Table(opt Config) ([]TableRow, []TableSummary, error) {
	if len(opt.Seeds) == 0 || len(opt.Losses) == 0 {
		return nil, nil, fmt.Errorf("slicing: table: need seeds and loss rates")
	}
	var rows []TableRow
	for _, seed := range opt.Seeds {
		in, err := problem.Generate(opt.Gen, seed)
		if err != nil {
			return nil, nil, fmt.Errorf("slicing: table: seed %d: %w", seed, err)
		}
		md, err := problem.NewModel(in)
		if err != nil {
			return nil, nil, fmt.Errorf("slicing: table: seed %d: %w", seed, err)
		}
		lpv, err := problem.PathLP(md)
		if err != nil {
			return nil, nil, fmt.Errorf("slicing: table: seed %d: LP: %w", seed, err)
		}
		cfg := slicingalg.Practical(md, opt.RegWeight, opt.P, opt.Eps, 0)
		for _, loss := range opt.Losses {
			res, err := slicingalg.Run(cfg, md, slicingalg.RunOptions{Rounds: opt.Rounds, Loss: loss, LossSeed: opt.LossSeed, Every: opt.Every, Tol: opt.Tol})
			if err != nil {
				return nil, nil, fmt.Errorf("slicing: table: seed %d loss %v: %w", seed, loss, err)
			}
			rd, err := problem.Round(md, res.W)
			if err != nil {
				return nil, nil, fmt.Errorf("slicing: table: seed %d loss %v: %w", seed, loss, err)
			}
			row := TableRow{Seed: seed, Loss: loss, LP: lpv,
				Objective: res.Measures.Objective, Gap: (res.Measures.Objective - lpv) / lpv,
				Violation: res.Measures.Violation, BinaryFrac: res.Measures.BinaryFrac,
				Binary: res.Measures.Binary, Feasible: res.Measures.Violation <= opt.Tol,
				RoundFeasible: rd.Feasible, RoundObjective: rd.Objective, RoundGap: math.NaN(),
				Rounds: res.Rounds, Messages: res.Messages, Bytes: res.Bytes, Dropped: res.Dropped}
			if rd.Feasible {
				row.RoundGap = (rd.Objective - lpv) / lpv
			}
			rows = append(rows, row)
		}
	}
	var sums []TableSummary
	for _, loss := range opt.Losses {
		s := TableSummary{Loss: loss}
		var rg float64
		for _, r := range rows {
			if r.Loss != loss {
				continue
			}
			s.Instances++
			if r.Binary && r.Feasible {
				s.BinaryFeasible++
			}
			if r.RoundFeasible {
				s.RoundFeasible++
				rg += r.RoundGap
			}
			s.MeanGap += r.Gap
			s.MeanRounds += float64(r.Rounds)
			s.MeanMessages += float64(r.Messages)
			s.MeanBytes += float64(r.Bytes)
		}
		n := float64(s.Instances)
		s.MeanGap /= n
		s.MeanRounds /= n
		s.MeanMessages /= n
		s.MeanBytes /= n
		s.MeanRoundGap = math.NaN()
		if s.RoundFeasible > 0 {
			s.MeanRoundGap = rg / float64(s.RoundFeasible)
		}
		sums = append(sums, s)
	}
	return rows, sums, nil
}
