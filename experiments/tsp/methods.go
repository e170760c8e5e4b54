package tsp

import (
	"fmt"
	"math"
	"time"

	tspalg "github.com/consim/consim/consensus/tsp"
	"github.com/consim/consim/experiments"
	"github.com/consim/consim/problems/bilevel"
	"github.com/consim/consim/problems/hyperclean"
)

// Experiment is one run of the paper's data hyper-cleaning comparison
// (Section 4, Figure 1 and the peak values in its text): every method in
// Methods runs Rounds iterations from x = 0, y = 0 on the instance drawn
// with Seed, and the test accuracy of y and the F1 of x_i >= 0 are
// measured at round 0 and every Every rounds (and after the last).
type Experiment struct {
	Seed uint64
	// Rounds is the number of (outer) iterations of every method.
	Rounds int
	// Every is the measuring period k.
	Every int
	// Methods lists the methods to run, among NameTSP, NameBOME,
	// NamePBGD and NameMEHA, in run order.
	Methods []string
	// Data sets up the instance; its Seed is replaced by the experiment's.
	Data hyperclean.CleaningConfig
	// The constants of each method, in the units of the problem as built
	// (the lower-level loss is a sum over the Data.Train samples).
	TSP  tspalg.Constants
	PBGD tspalg.PBGDParams
	BOME tspalg.BOMEParams
	MEHA tspalg.MEHAParams
	// OnPoint, if set, is called with every measurement as it is taken
	// (for progress output).
	OnPoint func(method string, p Point)
}

// Convert sets e's method constants from u for a sum over m samples. With
// g_sum = m g_mean the iterations in the two normalizations coincide when
// the weights of g scale by 1/m and its step sizes by 1/m:
//
//	lambda_sum = lambda_mean/m, tau_sum = tau/m^2, delta_sum = m delta,
//	gamma_sum = gamma/m, eta_sum = eta/m, penalties (gamma_k, c_k) / m,
//
// while alpha, beta, p, omega, mu, theta and BOME's eta are unchanged (grad_x
// g_sum weighted by lambda_sum equals grad_x g_mean weighted by
// lambda_mean) and BOME runs on q/m (BOMEParams.Scale). rounds sets
// V-PBGD's ramp length.
func (e *Experiment) Convert(u tspalg.MeanUnits, m, rounds int) {
	fm := float64(m)
	e.TSP = tspalg.Constants{
		Alpha: u.Alpha, Beta: u.Beta, Eta: u.Eta / fm, Tau: u.Tau / (fm * fm),
		Mu: u.Mu, Theta: u.Theta, Omega: u.Omega, P: u.P, Gamma: u.Gamma / fm, Delta: u.Delta * fm,
	}
	e.PBGD = tspalg.PBGDParams{
		Alpha: u.Alpha, Beta: u.Beta, InnerStep: u.Eta / fm, Inner: u.PBGDInner,
		GammaMax: u.PBGDGamma / fm, Ramp: max(1, int(u.PBGDRamp*float64(rounds))),
	}
	e.BOME = tspalg.BOMEParams{Alpha: u.Alpha, Beta: u.Beta, InnerStep: u.Eta / fm, Inner: u.BOMEInner, Eta: u.BOMEEta, Scale: fm}
	e.MEHA = tspalg.MEHAParams{Alpha: u.Alpha, Beta: u.Beta, Eta: u.Eta / fm, Gamma: u.Gamma / fm, C: u.MEHAC / fm, Power: u.MEHAPower}
}

// DefaultRounds is the number of rounds of the reproduction: TSP's test
// accuracy has levelled off by then (it peaks near round 1,400 on seed 1)
// and every method's F1 peak lies well before it.
const DefaultRounds = 1500

// DefaultExperiment returns the paper's setting (5,000 training samples,
// half of them corrupted, 5,000 validation samples, the 10,000 test
// images) with all four methods and DefaultMeanUnits, for the given seed
// and number of rounds, measured every 10 rounds.
func DefaultExperiment(seed uint64, rounds int) Experiment {
	e := Experiment{
		Seed: seed, Rounds: rounds, Every: 10,
		Methods: []string{tspalg.NameTSP, tspalg.NameBOME, tspalg.NamePBGD, tspalg.NameMEHA},
		Data:    hyperclean.CleaningConfig{Train: 5000, Val: 5000, Corrupt: 0.5, RhoBar: 0.01},
	}
	e.Convert(tspalg.DefaultMeanUnits(), e.Data.Train, rounds)
	return e
}

// Point is one measurement of a method's trace.
type Point struct {
	Round int
	// Evals is the number of oracle calls so far.
	Evals int64
	// Accuracy is the test accuracy of y, F1 the F1 score of "clean iff
	// x_i >= 0", both in [0, 1].
	Accuracy, F1 float64
	// Multiplier is the method's weight of the lower level (Method).
	Multiplier float64
	// Seconds is the time spent in the method's steps so far, by the
	// caller's clock (0 without one).
	Seconds float64
}

// Trace is the measured run of one method.
type Trace struct {
	Method string
	Points []Point
	// Diverged is set when the iterates became non-finite; the trace
	// stops there.
	Diverged bool
}

// Peak returns the largest accuracy and the largest F1 over the trace
// (each its own maximum, as the paper reports them).
func (t Trace) Peak() (acc, f1 float64) {
	for _, p := range t.Points {
		acc = math.Max(acc, p.Accuracy)
		f1 = math.Max(f1, p.F1)
	}
	return acc, f1
}

// Final returns the accuracy and F1 of the last point.
func (t Trace) Final() (acc, f1 float64) {
	if len(t.Points) == 0 {
		return 0, 0
	}
	p := t.Points[len(t.Points)-1]
	return p.Accuracy, p.F1
}

// ExperimentResult is the outcome of one Experiment.
type ExperimentResult struct {
	Seed   uint64
	Traces []Trace
}

// Validate checks the run parameters and the constants of the methods it
// runs.
func (e Experiment) Validate() error {
	if e.Rounds < 1 || e.Every < 1 {
		return fmt.Errorf("tsp: experiment needs rounds %d >= 1 and every %d >= 1", e.Rounds, e.Every)
	}
	if len(e.Methods) == 0 {
		return fmt.Errorf("tsp: experiment has no methods")
	}
	for _, m := range e.Methods {
		var err error
		switch m {
		case tspalg.NameTSP:
			err = e.TSP.Validate()
		case tspalg.NamePBGD:
			err = e.PBGD.Validate()
		case tspalg.NameBOME:
			err = e.BOME.Validate()
		case tspalg.NameMEHA:
			err = e.MEHA.Validate()
		default:
			err = fmt.Errorf("tsp: unknown method %q (want %s, %s, %s or %s)", m, tspalg.NameTSP, tspalg.NameBOME, tspalg.NamePBGD, tspalg.NameMEHA)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// NewMethod returns the named method on pb from (x0, y0) with e's
// constants.
func (e Experiment) NewMethod(name string, pb bilevel.Bilevel, x0, y0 []float64) (tspalg.Method, error) {
	switch name {
	case tspalg.NameTSP:
		return tspalg.NewTSP(pb, x0, y0, e.TSP)
	case tspalg.NamePBGD:
		return tspalg.NewPBGD(pb, x0, y0, e.PBGD)
	case tspalg.NameBOME:
		return tspalg.NewBOME(pb, x0, y0, e.BOME)
	case tspalg.NameMEHA:
		return tspalg.NewMEHA(pb, x0, y0, e.MEHA)
	}
	return nil, fmt.Errorf("tsp: unknown method %q", name)
}

// Run builds the instance from the MNIST training and test digits and runs
// the methods. clock is the caller's time reading (nil: Seconds stay 0);
// only the methods' steps are timed, not the measurements.
func (e Experiment) Run(train, test hyperclean.Digits, clock func() time.Duration) (*ExperimentResult, error) {
	if err := e.Validate(); err != nil {
		return nil, err
	}
	cfg := e.Data
	cfg.Seed = e.Seed
	h, err := hyperclean.NewHyperCleaning(train, test, cfg)
	if err != nil {
		return nil, fmt.Errorf("tsp experiment seed %d: %w", e.Seed, err)
	}
	return e.RunOn(h, clock)
}

// RunOn runs the methods on a given instance.
func (e Experiment) RunOn(h *hyperclean.HyperCleaning, clock func() time.Duration) (*ExperimentResult, error) {
	if err := e.Validate(); err != nil {
		return nil, err
	}
	res := &ExperimentResult{Seed: e.Seed}
	for _, name := range e.Methods {
		// Each method gets its own oracles (their caches are per method).
		pb, err := h.Bilevel()
		if err != nil {
			return nil, err
		}
		m, err := e.NewMethod(name, pb, make([]float64, pb.NX), make([]float64, pb.NY))
		if err != nil {
			return nil, err
		}
		tr, err := e.trace(h, m, clock)
		if err != nil {
			return nil, fmt.Errorf("tsp experiment seed %d, %s: %w", e.Seed, name, err)
		}
		res.Traces = append(res.Traces, tr)
	}
	return res, nil
}

// trace runs m for e.Rounds rounds and measures it.
func (e Experiment) trace(h *hyperclean.HyperCleaning, m tspalg.Method, clock func() time.Duration) (Trace, error) {
	tr := Trace{Method: m.Name()}
	var spent time.Duration
	measure := func(r int) (bool, error) {
		x, y := m.Point()
		if !finite(x) || !finite(y) {
			tr.Diverged = true
			return false, nil
		}
		acc, f1, err := h.Measure(x, y)
		if err != nil {
			return false, err
		}
		p := Point{Round: r, Evals: m.Evals(), Accuracy: acc, F1: f1, Multiplier: m.Multiplier(), Seconds: spent.Seconds()}
		tr.Points = append(tr.Points, p)
		if e.OnPoint != nil {
			e.OnPoint(m.Name(), p)
		}
		return true, nil
	}
	if _, err := measure(0); err != nil {
		return tr, err
	}
	for r := 1; r <= e.Rounds; r++ {
		if clock != nil {
			start := clock()
			m.Step()
			spent += clock() - start
		} else {
			m.Step()
		}
		if r%e.Every == 0 || r == e.Rounds {
			ok, err := measure(r)
			if err != nil {
				return tr, err
			}
			if !ok {
				break
			}
		}
	}
	return tr, nil
}

// finite reports whether every value of v is finite.
func finite(v []float64) bool {
	for _, t := range v {
		if math.IsNaN(t) || math.IsInf(t, 0) {
			return false
		}
	}
	return true
}

// Summary is a method's peak and final values over several seeds.
type Summary struct {
	Method                 string
	Seeds                  int
	Diverged               int
	PeakAccuracy, PeakF1   experiments.Stat
	FinalAccuracy, FinalF1 experiments.Stat
}

// Summarize groups the traces of several results by method, in the order
// the methods first appear.
func Summarize(results []*ExperimentResult) []Summary {
	var order []string
	vals := map[string]*[5][]float64{}
	div := map[string]int{}
	for _, r := range results {
		for _, t := range r.Traces {
			v, ok := vals[t.Method]
			if !ok {
				v = new([5][]float64)
				vals[t.Method] = v
				order = append(order, t.Method)
			}
			pa, pf := t.Peak()
			fa, ff := t.Final()
			v[0] = append(v[0], pa)
			v[1] = append(v[1], pf)
			v[2] = append(v[2], fa)
			v[3] = append(v[3], ff)
			if t.Diverged {
				div[t.Method]++
			}
		}
	}
	out := make([]Summary, 0, len(order))
	for _, m := range order {
		v := vals[m]
		out = append(out, Summary{Method: m, Seeds: len(v[0]), Diverged: div[m],
			PeakAccuracy: experiments.MeanStd(v[0]), PeakF1: experiments.MeanStd(v[1]), FinalAccuracy: experiments.MeanStd(v[2]), FinalF1: experiments.MeanStd(v[3])})
	}
	return out
}

// PaperRow is one method's values in the paper (percent): peak test
// accuracy and peak F1, with their +- over seeds where the paper gives
// one (for TSP it reports variances, VarAccuracy and VarF1, instead).
type PaperRow struct {
	Method                         string
	Accuracy, AccuracyPM, F1, F1PM float64
	VarAccuracy, VarF1             float64
}

// PaperTable returns the values the paper reports for the hyper-cleaning
// experiment.
func PaperTable() []PaperRow {
	return []PaperRow{
		{Method: tspalg.NameTSP, Accuracy: 90.4, F1: 92.4, VarAccuracy: 0.0429, VarF1: 0.100},
		{Method: tspalg.NameBOME, Accuracy: 90.06, AccuracyPM: 0.23, F1: 91.99, F1PM: 0.17},
		{Method: tspalg.NamePBGD, Accuracy: 90.01, AccuracyPM: 0.23, F1: 91.95, F1PM: 0.17},
		{Method: tspalg.NameMEHA, Accuracy: 90.34, AccuracyPM: 0.17, F1: 92.38, F1PM: 0.12},
	}
}
