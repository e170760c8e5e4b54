package engine

import (
	"fmt"

	"github.com/consim/consim/consensus"
)

// Evaluate answers the requests reqs with the oracle o, in request order:
// out[k] holds the values of reqs[k]. It reuses the storage of out and
// its slices, and returns the first failure as an error naming the
// request.
func Evaluate(o consensus.Oracle, reqs []consensus.EvalRequest, out [][]float64) ([][]float64, error) {
	if cap(out) < len(reqs) {
		out = append(out[:cap(out)], make([][]float64, len(reqs)-cap(out))...)
	}
	out = out[:len(reqs)]
	for k, req := range reqs {
		v, err := o.Evaluate(req, out[k][:0])
		if err != nil {
			return out, fmt.Errorf("eval request %d of %d (op %d): %w", k, len(reqs), req.Op, err)
		}
		out[k] = v
	}
	return out, nil
}
