package coordinator

import (
	"fmt"

	"github.com/consim/consim/observe"
	"github.com/consim/consim/observe/bundle"
)

// Recorder records the measured rounds of a run into its results bundle
// the same way for every engine (the coordinator's runs on transports and
// sim's stepped runs): it appends each Row to the bundle, keeps the
// summary's initial, final and peak rows, tests the row for divergence
// (observe.Diverged, against Config.DivergeBound), calls Config.Progress,
// the hook that sees every measured row, and tests Config's tolerances.
// It is used from one goroutine.
type Recorder struct {
	w        *bundle.Writer
	cfg      Config
	measured int
	initial  *Row
	final    *Row
	peak     *Peak // largest finite consensus error measured, nil before one
	// describe makes the Progress of a row; the coordinator's adds the
	// agents' counters.
	describe func(Row) Progress
}

// NewRecorder returns the recorder of a run writing to w, with cfg's
// DivergeBound, ConsensusTol, OptGapTol, Rounds and Progress. Its
// Progress holds the row (a run without agents' statuses, the stepped
// engine's, has no Traffic or Agents).
func NewRecorder(w *bundle.Writer, cfg Config) *Recorder {
	return &Recorder{w: w, cfg: cfg, describe: cfg.progressOf}
}

// progressOf is the Progress of row, from the row alone.
func (c Config) progressOf(row Row) Progress {
	return Progress{Metrics: row.Metrics, Rounds: c.Rounds, Elapsed: row.Elapsed,
		RoundsPerSec: perSecond(row.Round, row.Elapsed), Msgs: row.Msgs, Bytes: row.Bytes}
}

// Record records row, the measured round row.Round. It returns an error
// when the row cannot be written, or one wrapping ErrDiverged, naming the
// round and the measure, when the run has diverged; else whether the
// tolerances are met.
func (r *Recorder) Record(row Row) (done bool, err error) {
	if err := r.w.Append(row); err != nil {
		return false, fmt.Errorf("record round %d: %w", row.Round, err)
	}
	r.measured++
	if r.initial == nil {
		first := row
		r.initial = &first
	}
	r.final = &row
	r.peak = peakOf(r.peak, row.Round, row.ConsensusErr)
	if err := observe.Diverged(row.Metrics, r.cfg.DivergeBound); err != nil {
		return false, fmt.Errorf("%w at round %d: %v", ErrDiverged, row.Round, err)
	}
	if r.cfg.Progress != nil {
		r.cfg.Progress(r.describe(row))
	}
	return r.cfg.tolerancesMet(row.Metrics), nil
}

// Summarize fills the measured part of s: the initial and final rows,
// their number and the reductions between them.
func (r *Recorder) Summarize(s *Summary) {
	s.MeasuredRounds = r.measured
	s.Initial, s.Final = r.initial, r.final
	s.Reduction = reduction(r.initial, r.final, r.peak)
}
