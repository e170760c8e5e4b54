package slicing

import (
	"errors"
	"fmt"
	"math"
	"slices"

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
	// Slice runs the final stage (slicing.DefaultStage) after Rounds
	// rounds, then SliceRounds (10,000) rounds of the ALM on the fixed
	// placement.
	Slice       bool
	SliceRounds int
	// MaxNodes bounds the branch and bound of the binary optimum (0: no
	// binary optimum); an instance whose search reaches it gets only a
	// lower bound on its binary optimum.
	MaxNodes int
	// Optima, if not nil, are binary optima by seed computed elsewhere
	// (an independent MILP solve, OptimaFile): a seed found here takes
	// its value instead of the branch and bound's.
	Optima map[uint64]float64
}

// DefaultConfig is the experiment of the paper's section 6.2: 20 medium
// instances (seeds 1..20), sigma = 2, p = 0.5, eps = 0.1, 10000 ALM
// rounds checked every 100, tolerance 1e-4, without loss and with 10%
// loss; then the final stage and 10000 rounds on its placement; the
// binary optimum by branch and bound (at most 5000 tree nodes).
func DefaultConfig() Config {
	seeds := make([]uint64, 20)
	for k := range seeds {
		seeds[k] = uint64(k + 1)
	}
	return Config{Gen: problem.Medium, Seeds: seeds, RegWeight: 2, P: 0.5, Eps: 0.1,
		Rounds: 10000, Every: 100, Tol: 1e-4, Losses: []float64{0, 0.1}, LossSeed: 1,
		Slice: true, SliceRounds: 10000, MaxNodes: 5000}
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
	// BinaryOpt is the binary optimum (BranchAndBound; NaN without it,
	// or when the search reached MaxNodes unfinished), BinaryBound the
	// lower bound on it that the search proved (BinaryOpt when it ended)
	// and BBNodes its tree nodes.
	BinaryOpt, BinaryBound float64
	BBNodes                int
	// After the final stage: SliceBinary reports whether every position
	// is on one host; SliceFeasible whether the slice is also within
	// Tol of every constraint; SliceCost is g at the final point and
	// SliceViolation its violation. PlaceCost is the optimal routing cost
	// of the stage's placement (PathFixed; NaN if it has none, or no
	// placement) and PlaceAbove = PlaceCost / BinaryOpt - 1.
	// SliceAbove = SliceCost / BinaryOpt - 1 for a feasible slice (NaN
	// otherwise).
	SliceBinary, SliceFeasible bool
	SliceCost, SliceViolation  float64
	PlaceCost, PlaceAbove      float64
	SliceAbove                 float64
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
	// SliceBinary and SliceFeasible count the final stage's binary and
	// binary feasible slices; Routable the placements with a routing;
	// Proven the instances whose binary optimum the search proved.
	// MedianPlaceAbove and WorstPlaceAbove are over the routable
	// placements, MedianSliceAbove and WorstSliceAbove over the feasible
	// slices (NaN if none), both of instances with a proven optimum.
	SliceBinary, SliceFeasible, Routable, Proven int
	MedianPlaceAbove, WorstPlaceAbove            float64
	MedianSliceAbove, WorstSliceAbove            float64
	// Compared is the number of feasible slices behind MedianSliceAbove.
	Compared int
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
		binOpt, binBound, nodes := math.NaN(), math.NaN(), 0
		if v, ok := opt.Optima[seed]; ok {
			binOpt, binBound = v, v
		} else if opt.MaxNodes > 0 {
			ex, err := problem.BranchAndBound(md, opt.MaxNodes)
			switch {
			case err == nil:
				binOpt = ex.Objective
			case !errors.Is(err, problem.ErrNodeLimit):
				return nil, nil, fmt.Errorf("slicing: table: seed %d: binary optimum: %w", seed, err)
			}
			binBound, nodes = ex.Bound, ex.Nodes
		}
		cfg := slicingalg.Practical(md, opt.RegWeight, opt.P, opt.Eps, 0)
		rounds := opt.Rounds
		if opt.Slice {
			cfg.Stage = slicingalg.DefaultStage(cfg, md, opt.Rounds)
			rounds += cfg.Stage.Rounds() + opt.SliceRounds
		}
		for _, loss := range opt.Losses {
			res, err := slicingalg.Run(cfg, md, slicingalg.RunOptions{Rounds: rounds, Loss: loss, LossSeed: opt.LossSeed, Every: opt.Every, Tol: opt.Tol})
			if err != nil {
				return nil, nil, fmt.Errorf("slicing: table: seed %d loss %v: %w", seed, loss, err)
			}
			rm := res.RelaxedMeasures
			rd, err := problem.Round(md, res.Relaxed)
			if err != nil {
				return nil, nil, fmt.Errorf("slicing: table: seed %d loss %v: %w", seed, loss, err)
			}
			row := TableRow{Seed: seed, Loss: loss, LP: lpv,
				Objective: rm.Objective, Gap: (rm.Objective - lpv) / lpv,
				Violation: rm.Violation, BinaryFrac: rm.BinaryFrac,
				Binary: rm.Binary, Feasible: rm.Violation <= opt.Tol,
				RoundFeasible: rd.Feasible, RoundObjective: rd.Objective, RoundGap: math.NaN(),
				Rounds: res.Rounds, Messages: res.Messages, Bytes: res.Bytes, Dropped: res.Dropped,
				BinaryOpt: binOpt, BinaryBound: binBound, BBNodes: nodes,
				SliceBinary: res.Measures.Binary, SliceFeasible: res.Measures.Binary && res.Measures.Violation <= opt.Tol,
				SliceCost: res.Measures.Objective, SliceViolation: res.Measures.Violation,
				PlaceCost: math.NaN(), PlaceAbove: math.NaN(), SliceAbove: math.NaN()}
			if row.SliceFeasible {
				row.SliceAbove = row.SliceCost/binOpt - 1
			}
			if rd.Feasible {
				row.RoundGap = (rd.Objective - lpv) / lpv
			}
			if place, ok := problem.Placement(md, res.W); ok && opt.Slice {
				c, err := problem.PathFixed(md, place)
				switch {
				case err == nil:
					row.PlaceCost, row.PlaceAbove = c, c/binOpt-1
				case !errors.Is(err, problem.ErrInfeasible):
					return nil, nil, fmt.Errorf("slicing: table: seed %d loss %v: %w", seed, loss, err)
				}
			}
			rows = append(rows, row)
		}
	}
	return rows, Summarize(rows, opt.Losses), nil
}

// Summarize aggregates rows per loss rate, in the order of losses.
func Summarize(rows []TableRow, losses []float64) []TableSummary {
	var sums []TableSummary
	for _, loss := range losses {
		s := TableSummary{Loss: loss}
		var rg float64
		var above, sliceAbove []float64
		for _, r := range rows {
			if r.Loss != loss {
				continue
			}
			s.Instances++
			if !math.IsNaN(r.BinaryOpt) {
				s.Proven++
			}
			if r.Binary && r.Feasible {
				s.BinaryFeasible++
			}
			if r.RoundFeasible {
				s.RoundFeasible++
				rg += r.RoundGap
			}
			if r.SliceBinary {
				s.SliceBinary++
			}
			if r.SliceFeasible {
				s.SliceFeasible++
				if !math.IsNaN(r.SliceAbove) {
					sliceAbove = append(sliceAbove, r.SliceAbove)
				}
			}
			if !math.IsNaN(r.PlaceCost) {
				s.Routable++
			}
			if !math.IsNaN(r.PlaceAbove) {
				above = append(above, r.PlaceAbove)
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
		s.MedianPlaceAbove, s.WorstPlaceAbove = math.NaN(), math.NaN()
		if len(above) > 0 {
			slices.Sort(above)
			s.MedianPlaceAbove = median(above)
			s.WorstPlaceAbove = above[len(above)-1]
		}
		s.Compared = len(sliceAbove)
		s.MedianSliceAbove, s.WorstSliceAbove = math.NaN(), math.NaN()
		if len(sliceAbove) > 0 {
			slices.Sort(sliceAbove)
			s.MedianSliceAbove = median(sliceAbove)
			s.WorstSliceAbove = sliceAbove[len(sliceAbove)-1]
		}
		sums = append(sums, s)
	}
	return sums
}

// median returns the median of sorted values.
func median(v []float64) float64 {
	n := len(v)
	if n%2 == 1 {
		return v[n/2]
	}
	return (v[n/2-1] + v[n/2]) / 2
}
