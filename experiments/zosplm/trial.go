package zosplm

import (
	"fmt"
	"time"

	zosplmalg "github.com/consim/consim/consensus/zosplm"
	"github.com/consim/consim/experiments"
	"github.com/consim/consim/problems/qcqp"
)

// Method names of the experiment, as the CLI spells them.
const (
	MethodSPLM  = "zo-splm"
	MethodALM   = "zo-alm"
	MethodConEx = "zo-conex"
)

// Methods lists the experiment's methods in table order.
var Methods = []string{MethodSPLM, MethodConEx, MethodALM}

// PaperRow is one cell group of the paper's Table 2 (means over 20 trials,
// k = 10,000, eps = 1).
type PaperRow struct {
	N          int
	Method     string
	Iters      int
	TotalSec   float64
	PerIterSec float64
}

// PaperTable2 is the paper's Table 2.
var PaperTable2 = []PaperRow{
	{50, MethodSPLM, 496, 204.35, 0.412}, {50, MethodConEx, 1374, 971.42, 0.707}, {50, MethodALM, 2066, 876.21, 0.424},
	{100, MethodSPLM, 1309, 627.01, 0.479}, {100, MethodConEx, 9620, 10697.44, 1.112}, {100, MethodALM, 10850, 5403.13, 0.498},
	{200, MethodSPLM, 1962, 1589.22, 0.810}, {200, MethodConEx, 14283, 21510.06, 1.506}, {200, MethodALM, 29073, 26630.23, 0.916},
}

// Experiment is the comparison of the paper's section 4: NC-QCQP instances
// of n variables and m constraints (qcqp.New), one per trial, solved from
// x0 = 0 by each method with the same estimator until the stochastic
// eps-stationarity test holds (qcqp.Measures.Below(Eps), exact gradients, the
// method's own multiplier) or MaxIter iterations.
type Experiment struct {
	// N is n, M is m (the paper: m = 1; 0 means 1).
	N, M int
	// K is the mini-batch size k (Table 2: 10,000; the plot: 50).
	K int
	// Trials is the number of instances (the paper: 20).
	Trials int
	// Seed keys every instance and every direction: trial i's instance
	// and its methods' directions are those of zosplm.TrialSeeds(Seed, i),
	// the same directions for every method.
	Seed uint64
	// MaxIter bounds the iterations of a trial.
	MaxIter int
	// Eps is the tolerance of the stopping test (0 means 1, the paper's).
	Eps float64
	// R is the smoothing radius (0 means 1e-5, the paper's); Chunk the
	// directions per request (0 means DefaultChunk).
	R     float64
	Chunk int
	// RunAll keeps iterating to MaxIter after the test holds (for the
	// convergence plot); ItersToEps is recorded either way.
	RunAll bool
	// SPLM, ALM and ConEx override the methods' parameters; nil means the
	// default rule for N (DefaultParams, DefaultALMParams,
	// DefaultConExParams). Their Estimator's K, R and Chunk are replaced by
	// the experiment's.
	SPLM  *zosplmalg.SPLMParams
	ALM   *zosplmalg.ALMParams
	ConEx *zosplmalg.ConExParams
}

func (e Experiment) defaults() Experiment {
	if e.M == 0 {
		e.M = 1
	}
	if e.Eps == 0 {
		e.Eps = 1
	}
	if e.R == 0 {
		e.R = 1e-5
	}
	return e
}

// Validate checks the experiment's sizes.
func (e Experiment) Validate() error {
	e = e.defaults()
	switch {
	case e.N < 1 || e.M < 1:
		return fmt.Errorf("zosplm: experiment: n = %d, m = %d, want >= 1", e.N, e.M)
	case e.K < 1:
		return fmt.Errorf("zosplm: experiment: k = %d, want >= 1", e.K)
	case e.Trials < 1:
		return fmt.Errorf("zosplm: experiment: trials = %d, want >= 1", e.Trials)
	case e.MaxIter < 1:
		return fmt.Errorf("zosplm: experiment: max iterations = %d, want >= 1", e.MaxIter)
	case !(e.Eps > 0):
		return fmt.Errorf("zosplm: experiment: eps = %g, want > 0", e.Eps)
	}
	return nil
}

// Instance returns trial's NC-QCQP.
func (e Experiment) Instance(trial int) (*qcqp.QCQP, error) {
	e = e.defaults()
	problem, _ := zosplmalg.TrialSeeds(e.Seed, trial)
	return qcqp.New(e.N, e.M, problem)
}

func (e Experiment) estimator(est zosplmalg.Estimator) zosplmalg.Estimator {
	est.K, est.R, est.Chunk = e.K, e.R, e.Chunk
	return est
}

// NewMethod returns method's agent (id 0) for trial on q, at x0 = 0.
func (e Experiment) NewMethod(method string, q *qcqp.QCQP, trial int) (zosplmalg.Method, error) {
	e = e.defaults()
	_, seed := zosplmalg.TrialSeeds(e.Seed, trial)
	x0 := make([]float64, q.Dim())
	switch method {
	case MethodSPLM:
		p := zosplmalg.DefaultSPLMParams(e.N)
		if e.SPLM != nil {
			p = *e.SPLM
		}
		p.Estimator = e.estimator(p.Estimator)
		return zosplmalg.NewServer(0, q.Box, q.Constraints(), x0, p, seed)
	case MethodALM:
		p := zosplmalg.DefaultALMParams(e.N)
		if e.ALM != nil {
			p = *e.ALM
		}
		p.Estimator = e.estimator(p.Estimator)
		return zosplmalg.NewALM(0, q.Box, q.Constraints(), x0, p, seed)
	case MethodConEx:
		p := zosplmalg.DefaultConExParams(e.N)
		if e.ConEx != nil {
			p = *e.ConEx
		}
		p.Estimator = e.estimator(p.Estimator)
		return zosplmalg.NewConEx(0, q.Box, q.Constraints(), x0, p, seed)
	}
	return nil, fmt.Errorf("zosplm: method %q unknown, want one of %v", method, Methods)
}

// Trace is one trial of one method.
type Trace struct {
	Method string
	Trial  int
	// Points[i] are the measures after i iterations (Points[0] at x0 with
	// the method's initial multiplier).
	Points []qcqp.Measures
	// ItersToEps is the first iteration count whose measures are all
	// below eps, or -1 if MaxIter iterations did not reach it.
	ItersToEps int
	// Iters is the number of iterations run.
	Iters int
	// Evals is the number of oracle calls made (k + 1 per iteration).
	Evals int64
	// Seconds is the time spent in the iterations as read from the
	// caller's clock (0 without one); the measurement is not timed.
	Seconds float64
}

// SecondsPerIter is Seconds / Iters.
func (tr *Trace) SecondsPerIter() float64 {
	if tr.Iters == 0 {
		return 0
	}
	return tr.Seconds / float64(tr.Iters)
}

// RunTrial runs method on trial's instance with the in-line driver and
// returns its trace. clock, if not nil, is read just before and after
// every iteration (e.g. a process CPU-time reading); the package reads no
// clock itself.
func (e Experiment) RunTrial(method string, trial int, clock func() time.Duration) (*Trace, error) {
	if err := e.Validate(); err != nil {
		return nil, err
	}
	e = e.defaults()
	q, err := e.Instance(trial)
	if err != nil {
		return nil, err
	}
	a, err := e.NewMethod(method, q, trial)
	if err != nil {
		return nil, err
	}
	tr := &Trace{Method: method, Trial: trial, ItersToEps: -1}
	hx := make([]float64, q.Constraints())
	y := make([]float64, q.Constraints())
	measure := func() (qcqp.Measures, error) {
		q.H(a.X(), hx)
		a.MeasureDual(hx, y)
		return q.Measure(a.X(), y)
	}
	m0, err := measure()
	if err != nil {
		return nil, err
	}
	tr.Points = append(tr.Points, m0)
	d := zosplmalg.NewDriver(a, zosplmalg.NewOracle(q))
	var elapsed time.Duration
	for it := 1; it <= e.MaxIter; it++ {
		var t0 time.Duration
		if clock != nil {
			t0 = clock()
		}
		if err := d.Round(); err != nil {
			return nil, fmt.Errorf("zosplm: %s trial %d: %w", method, trial, err)
		}
		if clock != nil {
			elapsed += clock() - t0
		}
		m, err := measure()
		if err != nil {
			return nil, err
		}
		tr.Points = append(tr.Points, m)
		tr.Iters = it
		if tr.ItersToEps < 0 && m.Below(e.Eps) {
			tr.ItersToEps = it
			if !e.RunAll {
				break
			}
		}
	}
	tr.Evals = a.Evals()
	tr.Seconds = elapsed.Seconds()
	return tr, nil
}

// Summary is one method's row of the comparison over the trials.
type Summary struct {
	Method string
	// Reached is the number of trials that met the test within MaxIter.
	Reached, Trials int
	// Iters are the statistics of ItersToEps over the trials that reached
	// it.
	Iters experiments.Stats
	// SecondsPerIter are the statistics of Trace.SecondsPerIter.
	SecondsPerIter experiments.Stats
}

// SummarizeTraces returns the Summary of one method's traces.
func SummarizeTraces(traces []*Trace) Summary {
	var s Summary
	var its, spi []float64
	for _, tr := range traces {
		s.Method = tr.Method
		s.Trials++
		if tr.ItersToEps >= 0 {
			s.Reached++
			its = append(its, float64(tr.ItersToEps))
		}
		spi = append(spi, tr.SecondsPerIter())
	}
	s.Iters, s.SecondsPerIter = experiments.Summarize(its), experiments.Summarize(spi)
	return s
}
