package observe

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
			return fmt.Errorf("observe: measure %q: names are lower case letters, digits and '_', starting with a letter", d.Name)
		case seen[d.Name]:
			return fmt.Errorf("observe: measure %q is declared twice or is a fixed column", d.Name)
		}
		switch d.Reduce {
		case consensus.ReduceSum, consensus.ReduceMean, consensus.ReduceMax, consensus.ReduceMin, consensus.ReduceNorm:
		default:
			return fmt.Errorf("observe: measure %q: reduction %q is not one of sum, mean, max, min, norm", d.Name, d.Reduce)
		}
		seen[d.Name] = true
	}
	return nil
}

// ReduceMeasures reduces the declared measures over the reports of one
// round: reps[i] is agent i's report, and a report with a nil X (a
// departed agent) takes no part. The values of each measure combine in
// ascending agent order (in chunks, see Chunk), as its declaration says
// (consensus.Reduction). A report whose Measures do not match the
// declarations in length is an error naming the agent.
func ReduceMeasures(decls []consensus.Measure, reps []consensus.Report) ([]Named, error) {
	if len(decls) == 0 {
		return nil, nil
	}
	acc, n := declInit(decls), 0
	for c := range chunks(len(reps)) {
		lo, hi := span(c, len(reps))
		part := declInit(decls)
		for i := lo; i < hi; i++ {
			if reps[i].X == nil {
				continue
			}
			if err := declAdd(part, decls, i, reps[i]); err != nil {
				return nil, err
			}
			n++
		}
		declCombine(acc, decls, part)
	}
	if n == 0 {
		return nil, fmt.Errorf("observe: no agent's report to reduce")
	}
	return declFinish(acc, decls, n), nil
}

// declInit returns the identity of each declared measure's reduction: 0,
// -Inf for max, +Inf for min.
func declInit(decls []consensus.Measure) []float64 {
	acc := make([]float64, len(decls))
	for k, d := range decls {
		switch d.Reduce {
		case consensus.ReduceMax:
			acc[k] = math.Inf(-1)
		case consensus.ReduceMin:
			acc[k] = math.Inf(1)
		}
	}
	return acc
}

// declAdd reduces agent i's values of the declared measures into acc.
func declAdd(acc []float64, decls []consensus.Measure, i int, r consensus.Report) error {
	if len(r.Measures) != len(decls) {
		return fmt.Errorf("observe: agent %d reports %d measures, its algorithm declares %d", i, len(r.Measures), len(decls))
	}
	declCombine(acc, decls, r.Measures)
	return nil
}

// declCombine reduces the values vs (one agent's, or a chunk's partial
// reduction) into acc.
func declCombine(acc []float64, decls []consensus.Measure, vs []float64) {
	for k, d := range decls {
		switch d.Reduce {
		case consensus.ReduceMax:
			acc[k] = math.Max(acc[k], vs[k])
		case consensus.ReduceMin:
			acc[k] = math.Min(acc[k], vs[k])
		default:
			acc[k] += vs[k]
		}
	}
}

// declFinish turns the reduction acc over n agents into the measures'
// values: the mean divides by n, the norm takes the square root.
func declFinish(acc []float64, decls []consensus.Measure, n int) []Named {
	out := make([]Named, len(decls))
	for k, d := range decls {
		v := acc[k]
		switch d.Reduce {
		case consensus.ReduceMean:
			v /= float64(n)
		case consensus.ReduceNorm:
			v = math.Sqrt(v)
		}
		out[k] = Named{Name: d.Name, Value: v}
	}
	return out
}
