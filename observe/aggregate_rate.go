package observe

import (
	"fmt"
	"math"
)

// FloorFit is the per-round factor of a decaying curve (a mean over seeds
// of a squared error, say) fitted on the window before its noise floor,
// with a confidence interval from batches of the seeds.
type FloorFit struct {
	// Rate is exp(b), b the least-squares slope of ln m_t on [From, To]
	// of the pooled curve m.
	Rate float64
	// Lo and Hi bound the 95% confidence interval of Rate: Rate -+
	// t_{0.975, B-1} sd_B / sqrt(B), sd_B the standard deviation of the
	// rates fitted on the B batch curves over the same window. NaN
	// without batches.
	Lo, Hi float64
	// From and To are the first and last rounds of the window.
	From, To int
	// Floor reports that the curve reached a noise floor before its end;
	// FloorStart is then the first round of the floor and FloorLevel its
	// level (see FitBeforeFloor). Without a floor FloorStart is len(m).
	Floor      bool
	FloorStart int
	FloorLevel float64
	// TailRate is the per-round factor fitted on the tail that measures
	// the floor: near 1 on a floor, above 1 for a growing curve.
	TailRate float64
}

// FloorOptions set the window rule of FitBeforeFloor.
type FloorOptions struct {
	// Start skips the transient: the window opens at the first round t
	// with m_t <= Start m_0. 0 means 1e-3.
	Start float64
	// Margin places the end of the window: it closes before the first
	// round t with m_t <= Margin F, F the floor level. 0 means 100.
	Margin float64
	// Tail is the fraction of the curve, at its end, that measures the
	// floor. 0 means 0.1.
	Tail float64
	// Ceiling, when positive, is a floor known in advance (the sampling
	// noise of a mean over seeds, say): the window also closes before the
	// first round t with m_t <= Margin Ceiling[t]. It has len(m) entries.
	Ceiling []float64
}

// t975 are the 0.975 quantiles of Student's t with k = 1..30 degrees of
// freedom.
var t975 = [...]float64{12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
	2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
	2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042}

// FitBeforeFloor fits the per-round factor of the pooled curve m (m_t
// after t rounds) on the window before its noise floor and bounds it by
// the spread of the same fit on the batch curves (each a mean over a
// disjoint batch of the seeds; nil for none).
//
// The floor is detected, not assumed: F is the geometric mean of the last
// Tail fraction of the curve (at least 10 rounds). The curve has reached a
// floor when its log-slope over that tail is flatter than a tenth of its
// log-slope from the window's start to the tail (or it never fell to
// Start m_0 before the tail); the floor then starts at the first round t
// with m_t <= Margin F. The window runs
// from the first round with m_t <= Start m_0 to the round before the floor
// (or before the first round under the Ceiling), or to the end of the
// curve when there is no floor. It fails if the window holds fewer than 3
// rounds or a value in it is not positive and finite.
func FitBeforeFloor(m []float64, batches [][]float64, opt FloorOptions) (FloorFit, error) {
	if opt.Start == 0 {
		opt.Start = 1e-3
	}
	if opt.Margin == 0 {
		opt.Margin = 100
	}
	if opt.Tail == 0 {
		opt.Tail = 0.1
	}
	if len(m) < 20 || !(m[0] > 0) {
		return FloorFit{}, fmt.Errorf("observe: fit before floor: %d values starting at %v: need at least 20, the first positive", len(m), firstOr(m))
	}
	if opt.Ceiling != nil && len(opt.Ceiling) != len(m) {
		return FloorFit{}, fmt.Errorf("observe: fit before floor: ceiling of %d values for a curve of %d", len(opt.Ceiling), len(m))
	}
	tail := max(10, int(opt.Tail*float64(len(m))))
	ts := len(m) - tail // first round of the tail
	var logSum float64
	for _, v := range m[ts:] {
		if !(v > 0) || math.IsInf(v, 0) {
			return FloorFit{}, fmt.Errorf("observe: fit before floor: value %v in the tail: must be positive and finite", v)
		}
		logSum += math.Log(v)
	}
	f := FloorFit{FloorStart: len(m), Lo: math.NaN(), Hi: math.NaN(), From: -1}
	for t, v := range m {
		if v <= opt.Start*m[0] {
			f.From = t
			break
		}
	}
	level := math.Exp(logSum / float64(tail))
	f.TailRate, _ = rateOn(m[ts:], 0, tail-1)
	// The floor: the tail's log-slope is flatter than a tenth of the
	// slope from the window's start to the tail (or the curve never fell
	// to Start m_0 before the tail).
	main := math.Inf(1)
	if f.From >= 0 && f.From < ts {
		main = (math.Log(m[ts]) - math.Log(m[f.From])) / float64(ts-f.From)
	}
	if !(main < 0) || math.Log(f.TailRate) > 0.1*main {
		f.Floor, f.FloorLevel = true, level
		for t, v := range m {
			if v <= opt.Margin*level {
				f.FloorStart = t
				break
			}
		}
	}
	f.To = f.FloorStart - 1
	if f.From >= 0 && opt.Ceiling != nil {
		for t := f.From; t < f.FloorStart; t++ {
			if m[t] <= opt.Margin*opt.Ceiling[t] {
				f.To = t - 1
				break
			}
		}
	}
	if f.From < 0 || f.To-f.From < 2 {
		return f, fmt.Errorf("observe: fit before floor: window [%d, %d] of %d rounds (floor from %d) holds fewer than 3 rounds", f.From, f.To, len(m), f.FloorStart)
	}
	var err error
	if f.Rate, err = rateOn(m, f.From, f.To); err != nil {
		return f, err
	}
	if len(batches) >= 2 {
		rs := make([]float64, 0, len(batches))
		for k, b := range batches {
			if len(b) != len(m) {
				return f, fmt.Errorf("observe: fit before floor: batch %d has %d values, the curve %d", k, len(b), len(m))
			}
			r, err := rateOn(b, f.From, f.To)
			if err != nil {
				return f, fmt.Errorf("observe: fit before floor: batch %d: %w", k, err)
			}
			rs = append(rs, r)
		}
		s := Summarize(rs)
		half := tQuantile(len(rs)-1) * s.Std / math.Sqrt(float64(len(rs)))
		f.Lo, f.Hi = f.Rate-half, f.Rate+half
	}
	return f, nil
}

// WindowRate is exp of the least-squares slope of ln m_t against t over
// the rounds [from, to]: the fit FitBeforeFloor makes on its window, for
// another curve (a predicted one) on the same window.
func WindowRate(m []float64, from, to int) (float64, error) {
	if from < 0 || to >= len(m) || to-from < 2 {
		return 0, fmt.Errorf("observe: window rate: window [%d, %d] of %d values: need at least 3 rounds inside", from, to, len(m))
	}
	return rateOn(m, from, to)
}

// rateOn is exp of the least-squares slope of ln m_t against t over
// [from, to].
func rateOn(m []float64, from, to int) (float64, error) {
	var st, sy, stt, sty float64
	for t := from; t <= to; t++ {
		if !(m[t] > 0) || math.IsInf(m[t], 0) {
			return 0, fmt.Errorf("observe: value %v at round %d: must be positive and finite", m[t], t)
		}
		x, y := float64(t-from), math.Log(m[t])
		st, sy, stt, sty = st+x, sy+y, stt+float64(x*x), sty+float64(x*y)
	}
	k := float64(to - from + 1)
	return math.Exp((float64(k*sty) - float64(st*sy)) / (float64(k*stt) - float64(st*st))), nil
}

// tQuantile is the 0.975 quantile of Student's t with k degrees of
// freedom (1.96 beyond 30).
func tQuantile(k int) float64 {
	if k >= 1 && k <= len(t975) {
		return t975[k-1]
	}
	return 1.96
}

func firstOr(m []float64) float64 {
	if len(m) == 0 {
		return math.NaN()
	}
	return m[0]
}
