package portfolio

import (
	"fmt"

	"gonum.org/v1/gonum/mat"
)

// Split splits the n x N_assets reward matrix by periods into N
// contiguous shards of n/N rows (the first n mod N shards one row more)
// and returns agent i's mean-variance portfolio problem on shard i. Agent
// i's F_i uses its shard's own mean and covariance, so the consensus
// problem (1/N) sum_i F_i(x) + R(x) equals the portfolio problem of the
// whole matrix only when the shard means coincide: the average of the
// shard covariances misses the spread of the shard means.
func Split(returns mat.Matrix, N int) ([]*Portfolio, error) {
	if returns == nil {
		return nil, fmt.Errorf("portfolio: split: nil reward matrix")
	}
	n, assets := returns.Dims()
	if N < 1 || n < 2*N {
		return nil, fmt.Errorf("portfolio: split: %d periods for %d agents, need at least 2 per agent", n, N)
	}
	all := mat.DenseCopyOf(returns)
	out := make([]*Portfolio, N)
	lo := 0
	for i := range N {
		hi := lo + n/N
		if i < n%N {
			hi++
		}
		p, err := New(all.Slice(lo, hi, 0, assets))
		if err != nil {
			return nil, fmt.Errorf("portfolio: split: shard %d: %w", i, err)
		}
		out[i] = p
		lo = hi
	}
	return out, nil
}
