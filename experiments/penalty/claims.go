package penalty

import (
	"fmt"
	"math"

	penaltyalg "github.com/consim/consim/consensus/penalty"
)

// Metric selects the measure a comparison reads from a trace.
type Metric int

const (
	// MetricGap is |F(x) - F*|.
	MetricGap Metric = iota + 1
	// MetricViolation is ||[c(x)]_+||.
	MetricViolation
)

// String returns the metric's name.
func (m Metric) String() string {
	if m == MetricGap {
		return "objective gap |F-F*|"
	}
	return "violation ||[c]_+||"
}

// Axis selects the x-axis of a comparison.
type Axis int

const (
	// ByIter reads traces against iterations (Record.Iter).
	ByIter Axis = iota + 1
	// ByGradEvals reads traces against gradient evaluations.
	ByGradEvals
)

// Comparison is the outcome of Compare(a, b, ...).
type Comparison struct {
	// Budget is the common horizon: the smaller of the two runs' last
	// x-axis values.
	Budget int64
	// EndA and EndB are the metric at the last record within the budget.
	EndA, EndB float64
	// Level is max(EndA, EndB), a level both runs reach within the budget.
	Level float64
	// ReachA and ReachB are the first x-axis values from which the run
	// stays at or below Level up to the budget.
	ReachA, ReachB int64
	// Faster reports that a is faster than b: ReachA < ReachB, or ReachA ==
	// ReachB and EndA < EndB.
	Faster bool
}

// Ratio returns EndB / EndA, how many times lower a ends than b (+Inf if a
// ends at 0 and b does not).
func (c Comparison) Ratio() float64 {
	if c.EndA == 0 {
		if c.EndB == 0 {
			return 1
		}
		return math.Inf(1)
	}
	return c.EndB / c.EndA
}

// value returns the metric of record i of t.
func value(t *penaltyalg.Trace, m Metric, i int) float64 {
	if m == MetricGap {
		return t.Gap(i)
	}
	return t.Records[i].Violation
}

// xOf returns the x-axis value of record r.
func xOf(r penaltyalg.Record, ax Axis) int64 {
	if ax == ByGradEvals {
		return r.GradEvals
	}
	return int64(r.Iter)
}

// Compare reads traces a and b on axis ax up to their common budget and
// decides whether a is faster than b in metric m. The rule: both runs are
// cut at the budget B (the smaller final x); the level is the worse of the
// two values at B; each run's reach is the first x from which it stays at
// or below the level through B (so a transient dip, e.g. F crossing F*,
// does not count); a is faster if it reaches the level first, or at the
// same x and ends lower.
func Compare(a, b penaltyalg.Trace, m Metric, ax Axis) (Comparison, error) {
	if len(a.Records) == 0 || len(b.Records) == 0 {
		return Comparison{}, fmt.Errorf("penalty: compare: empty trace")
	}
	if m == MetricGap && (math.IsNaN(a.FStar) || math.IsNaN(b.FStar)) {
		return Comparison{}, fmt.Errorf("penalty: compare: objective gap needs FStar")
	}
	budget := min(xOf(a.Last(), ax), xOf(b.Last(), ax))
	end := func(t *penaltyalg.Trace) float64 {
		v := math.NaN()
		for i, r := range t.Records {
			if xOf(r, ax) > budget {
				break
			}
			v = value(t, m, i)
		}
		return v
	}
	c := Comparison{Budget: budget, EndA: end(&a), EndB: end(&b)}
	c.Level = math.Max(c.EndA, c.EndB)
	reach := func(t *penaltyalg.Trace) int64 {
		at := int64(-1)
		for i, r := range t.Records {
			if xOf(r, ax) > budget {
				break
			}
			if value(t, m, i) <= c.Level {
				if at < 0 {
					at = xOf(r, ax)
				}
			} else {
				at = -1
			}
		}
		return at
	}
	c.ReachA, c.ReachB = reach(&a), reach(&b)
	c.Faster = c.ReachA < c.ReachB || (c.ReachA == c.ReachB && c.EndA < c.EndB)
	return c, nil
}

// Decade is the factor that separates "slightly" from "well": a run that
// is faster and ends within a factor Decade of the other is slightly
// faster; one that ends at least Decade times lower is well ahead.
const Decade = 10

// Claim is one qualitative statement of the paper checked on our traces.
type Claim struct {
	// Section is "5.1" or "5.2".
	Section string
	// Text is the paper's statement.
	Text string
	// Holds is our verdict under the rule of Compare and Decade.
	Holds bool
	// Detail gives the numbers behind the verdict.
	Detail string
}

// detail formats a comparison.
func detail(an, bn string, m Metric, ax Axis, c Comparison) string {
	unit := "iterations"
	if ax == ByGradEvals {
		unit = "gradient evaluations"
	}
	return fmt.Sprintf("%s at %d %s: %s %.3g, %s %.3g (ratio %.3g); level %.3g reached by %s at %d, by %s at %d",
		m, c.Budget, unit, an, c.EndA, bn, c.EndB, c.Ratio(), c.Level, an, c.ReachA, bn, c.ReachB)
}

// Claims51 checks the claims of Section 5.1 on the Algorithm 1 traces of
// the constant (Theorem 1) and dynamic (Theorem 2) penalties, read against
// iterations: "dynamic faster in objective" holds if Compare(dynamic,
// constant, MetricGap).Faster; "constant slightly faster in violation"
// holds if Compare(constant, dynamic, MetricViolation) is Faster with
// EndB/EndA <= Decade.
func Claims51(constant, dynamic penaltyalg.Trace) ([]Claim, error) {
	obj, err := Compare(dynamic, constant, MetricGap, ByIter)
	if err != nil {
		return nil, err
	}
	vio, err := Compare(constant, dynamic, MetricViolation, ByIter)
	if err != nil {
		return nil, err
	}
	return []Claim{
		{Section: "5.1", Text: "dynamic penalty faster in objective",
			Holds: obj.Faster, Detail: detail("dynamic", "constant", MetricGap, ByIter, obj)},
		{Section: "5.1", Text: "constant penalty slightly faster in violation",
			Holds: vio.Faster && vio.Ratio() <= Decade, Detail: detail("constant", "dynamic", MetricViolation, ByIter, vio)},
	}, nil
}

// Claims52 checks the claim of Section 5.2 that Algorithm 2 under Theorems
// 3(ii) and 4(ii) is well ahead of EAG in objective and violation, read
// against gradient evaluations: for each Algorithm 2 trace and each metric,
// Compare(alg2, eag) must be Faster with EndB/EndA >= Decade. It returns
// one claim per (trace, metric) and, last, the combined claim.
func Claims52(eag penaltyalg.Trace, alg2 ...penaltyalg.Trace) ([]Claim, error) {
	var out []Claim
	all := len(alg2) > 0
	for _, a := range alg2 {
		for _, m := range []Metric{MetricGap, MetricViolation} {
			c, err := Compare(a, eag, m, ByGradEvals)
			if err != nil {
				return nil, err
			}
			ok := c.Faster && c.Ratio() >= Decade
			all = all && ok
			out = append(out, Claim{Section: "5.2", Text: fmt.Sprintf("%s well ahead of EAG in %s", a.Method, m),
				Holds: ok, Detail: detail("Algorithm 2", "EAG", m, ByGradEvals, c)})
		}
	}
	out = append(out, Claim{Section: "5.2", Text: "Algorithm 2 well ahead of EAG in both objective and violation", Holds: all,
		Detail: "holds iff every row above holds"})
	return out, nil
}
