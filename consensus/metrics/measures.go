package metrics

import (
	"fmt"
	"math"
	"regexp"

	"github.com/consim/consim/consensus"
)

// Named is one declared measure's value for the run.
type Named struct {
	Name  string
	Value float64
}

// measureName is what a declared measure's name may be: a column name.
var measureName = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

// CheckMeasures rejects declarations with malformed or repeated names,
// names in reserved (the fixed columns), or unknown reductions.
func CheckMeasures(decls []consensus.Measure, reserved []string) error {
	seen := make(map[string]bool, len(decls)+len(reserved))
	for _, r := range reserved {
		seen[r] = true
	}
	for _, d := range decls {
		switch {
		case !measureName.MatchString(d.Name):
			return fmt.Errorf("metrics: measure %q: names are lower case letters, digits and '_', starting with a letter", d.Name)
		case seen[d.Name]:
			return fmt.Errorf("metrics: measure %q is declared twice or is a fixed column", d.Name)
		}
		switch d.Reduce {
		case consensus.ReduceSum, consensus.ReduceMean, consensus.ReduceMax, consensus.ReduceMin, consensus.ReduceNorm:
		default:
			return fmt.Errorf("metrics: measure %q: reduction %q is not one of sum, mean, max, min, norm", d.Name, d.Reduce)
		}
		seen[d.Name] = true
	}
	return nil
}

// ReduceMeasures reduces the declared measures over the reports of one
// round: reps[i] is agent i's report, and a report with a nil X (a
// departed agent) takes no part. The values of each measure combine in
// ascending agent order, as its declaration says (consensus.Reduction).
// A report whose Measures do not match the declarations in length is an
// error naming the agent.
func ReduceMeasures(decls []consensus.Measure, reps []consensus.Report) ([]Named, error) {
	if len(decls) == 0 {
		return nil, nil
	}
	out := make([]Named, len(decls))
	n := 0
	for k, d := range decls {
		out[k].Name = d.Name
		switch d.Reduce {
		case consensus.ReduceMax:
			out[k].Value = math.Inf(-1)
		case consensus.ReduceMin:
			out[k].Value = math.Inf(1)
		}
	}
	for i, r := range reps {
		if r.X == nil {
			continue
		}
		if len(r.Measures) != len(decls) {
			return nil, fmt.Errorf("metrics: agent %d reports %d measures, its algorithm declares %d", i, len(r.Measures), len(decls))
		}
		n++
		for k, d := range decls {
			v := r.Measures[k]
			switch d.Reduce {
			case consensus.ReduceMax:
				out[k].Value = math.Max(out[k].Value, v)
			case consensus.ReduceMin:
				out[k].Value = math.Min(out[k].Value, v)
			default:
				out[k].Value += v
			}
		}
	}
	if n == 0 {
		return nil, fmt.Errorf("metrics: no agent's report to reduce")
	}
	for k, d := range decls {
		switch d.Reduce {
		case consensus.ReduceMean:
			out[k].Value /= float64(n)
		case consensus.ReduceNorm:
			out[k].Value = math.Sqrt(out[k].Value)
		}
	}
	return out, nil
}
