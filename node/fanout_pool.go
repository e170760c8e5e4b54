package node

import (
	"errors"
	"fmt"
	"sync"

	"github.com/consim/consim/consensus"
)

// evalPool is W goroutines of one process that evaluate requests, each
// with an oracle of its own: the oracle workers of the channel transport.
// A batch is split into at most W contiguous chunks (see evaluate); chunks
// of several agents queue for the same workers.
type evalPool struct {
	jobs chan evalJob
	wg   sync.WaitGroup
	once sync.Once
	w    int
}

// evalJob is one contiguous chunk: requests reqs[lo:hi], results into
// out[lo:hi]. The first failure is reported in *fail (the chunk stops
// there), and done is signalled when the chunk ends.
type evalJob struct {
	reqs   []consensus.EvalRequest
	out    [][]float64
	lo, hi int
	fail   *evalFailure
	done   *sync.WaitGroup
}

// evalFailure is the failure of request index of a batch.
type evalFailure struct {
	index int
	err   error
}

// newEvalPool starts w workers with the oracles oracle(0..w-1).
func newEvalPool(w int, oracle func(int) consensus.Oracle) (*evalPool, error) {
	if w < 1 {
		return nil, fmt.Errorf("node: oracle pool of %d workers: need at least 1", w)
	}
	if oracle == nil {
		return nil, errors.New("node: oracle pool: Options.Oracle is nil")
	}
	oracles := make([]consensus.Oracle, w)
	for k := range oracles {
		if oracles[k] = oracle(k); oracles[k] == nil {
			return nil, fmt.Errorf("node: oracle pool: Options.Oracle(%d) returned nil", k)
		}
	}
	p := &evalPool{jobs: make(chan evalJob), w: w}
	p.wg.Add(w)
	for _, o := range oracles {
		go p.work(o)
	}
	return p, nil
}

func (p *evalPool) work(o consensus.Oracle) {
	defer p.wg.Done()
	for j := range p.jobs {
		for i := j.lo; i < j.hi; i++ {
			var err error
			if j.out[i], err = evaluate(o, j.reqs[i], j.out[i][:0]); err != nil {
				*j.fail = evalFailure{index: i, err: err}
				break
			}
		}
		j.done.Done()
	}
}

// evaluate runs one request through o, turning a panic into an error.
func evaluate(o consensus.Oracle, req consensus.EvalRequest, out []float64) (vals []float64, err error) {
	defer func() {
		if p := recover(); p != nil {
			vals, err = out, fmt.Errorf("oracle panicked: %v", p)
		}
	}()
	return o.Evaluate(req, out)
}

// evaluate computes out[i] for every request reqs[i] and returns the
// failure of the lowest failing index, if any. The n requests are split
// into c = min(W, n) contiguous chunks, chunk k holding requests
// floor(k n / c) .. floor((k+1) n / c) - 1.
func (p *evalPool) evaluate(reqs []consensus.EvalRequest, out [][]float64) *evalFailure {
	n := len(reqs)
	c := min(p.w, n)
	fails := make([]evalFailure, c)
	var done sync.WaitGroup
	done.Add(c)
	for k := range c {
		fails[k].index = -1
		p.jobs <- evalJob{reqs: reqs, out: out, lo: k * n / c, hi: (k + 1) * n / c, fail: &fails[k], done: &done}
	}
	done.Wait()
	for k := range fails {
		if fails[k].index >= 0 {
			return &fails[k]
		}
	}
	return nil
}

// close stops the workers once the queued chunks are done. It is
// idempotent; evaluate must not be called after it.
func (p *evalPool) close() {
	p.once.Do(func() {
		close(p.jobs)
		p.wg.Wait()
	})
}
