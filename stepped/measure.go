package stepped

import (
	"fmt"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/graph"
	"github.com/consim/consim/objective"
	"github.com/consim/consim/observe"
)

// Measures describes what Measure computes besides the agents' reports:
// the arguments of observe.Measure and observe.ReduceMeasures.
type Measures struct {
	// Graph is the run's graph (for the feasibility); required.
	Graph *graph.Graph
	// Problem is the run's central problem: its local objectives, f* and
	// x*; nil leaves ObjValue, OptGap and DistToOpt NaN.
	Problem *objective.Problem
	// Decls are the algorithm's declared measures, reduced as declared.
	Decls []consensus.Measure
}

// Measure returns the observe.Metrics of the agents' current state, as
// observe.Measure and observe.ReduceMeasures define them over every
// agent's Report, with the same bits: the workers compute the chunks of
// an observe.Measurement (each worker a contiguous run of chunks), and
// the calling goroutine combines them, so its
// work is O(N/observe.Chunk dim), not O(N). DualDrift is NaN.
func (e *Engine) Measure(m Measures) (observe.Metrics, error) {
	if m.Graph == nil || m.Graph.N != len(e.agents) {
		return observe.Metrics{}, fmt.Errorf("stepped: measure: the graph must have the engine's %d agents", len(e.agents))
	}
	ms, err := observe.NewMeasurement(m.Graph, observe.ProblemObjective(m.Problem), m.Decls)
	if err != nil {
		return observe.Metrics{}, fmt.Errorf("stepped: measure: %w", err)
	}
	n := len(e.agents)
	err = e.chunked((n+observe.Chunk-1)/observe.Chunk, func(c int) error {
		for i := c * observe.Chunk; i < min((c+1)*observe.Chunk, n); i++ {
			if err := ms.Add(i, e.agents[i].Report()); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return observe.Metrics{}, fmt.Errorf("stepped: measure: %w", err)
	}
	if err := ms.Mean(); err != nil {
		return observe.Metrics{}, fmt.Errorf("stepped: measure: %w", err)
	}
	_ = e.chunked(ms.Chunks(), func(c int) error { ms.Spread(c); return nil })
	return ms.Metrics(), nil
}

// chunked runs f(c) for the chunks c = 0..nc-1 on the workers, worker w
// taking a contiguous run of them in ascending order, and returns the
// error of the lowest chunk that failed.
func (e *Engine) chunked(nc int, f func(c int) error) error {
	w := len(e.blocks)
	return e.parallel(func(k, _, _ int) error {
		for c := k * nc / w; c < (k+1)*nc/w; c++ {
			if err := f(c); err != nil {
				return err
			}
		}
		return nil
	})
}
