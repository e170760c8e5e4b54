package dataset

import (
	"fmt"
	"strconv"
)

// SignLabels returns the labels y mapped to the classes {-1, +1} of
// logistic regression: labels that are all in {-1, +1} are kept (a9a's
// convention), labels that are all in {0, 1} map 0 -> -1 and 1 -> +1. Any
// other label, or a mix of the two conventions (e.g. -1, 0 and 1), is an
// error naming the first offending row (0-based) and its value. y is not
// modified.
func SignLabels(y []float64) ([]float64, error) {
	// pm and zo say whether the labels so far fit {-1,+1} and {0,1}.
	pm, zo := true, true
	for k, v := range y {
		pm = pm && (v == -1 || v == 1)
		zo = zo && (v == 0 || v == 1)
		if !pm && !zo {
			if v == -1 || v == 0 || v == 1 {
				return nil, fmt.Errorf("dataset: row %d: label %s mixes the label conventions {-1, +1} and {0, 1} used by the rows before it; want two classes coded one way", k, strconv.FormatFloat(v, 'g', -1, 64))
			}
			return nil, fmt.Errorf("dataset: row %d: label %s is not a binary class label; want -1/+1 or 0/1 for logistic regression", k, strconv.FormatFloat(v, 'g', -1, 64))
		}
	}
	out := make([]float64, len(y))
	for k, v := range y {
		if pm || v == 1 {
			out[k] = v
		} else {
			out[k] = -1
		}
	}
	return out, nil
}

// SignLabels replaces d.Y by SignLabels(d.Y), naming d's source in the
// error.
func (d *Dataset) SignLabels() error {
	y, err := SignLabels(d.Y)
	if err != nil {
		return fmt.Errorf("%s: %w", d.name(), err)
	}
	d.Y = y
	return nil
}
