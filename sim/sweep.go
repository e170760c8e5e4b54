package sim

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/coordinator"
	"github.com/consim/consim/coordinator/report"
	"github.com/consim/consim/scenarios"
)

// SweepOptions configure NewSweep. The zero value of a field is its
// documented default.
type SweepOptions struct {
	// ID names the sweep's directory and its runs (<ID>-NNN); empty
	// generates <name>-<UTC time>-<random>.
	ID string
	// Parallel is how many runs go at once: < 0 takes the scenario's
	// sweep.parallel, 0 the number of CPUs.
	Parallel int
	// Logger receives the runs' logs, each named by its run id; nil
	// discards them.
	Logger hclog.Logger
	// AgentGrace is Options.AgentGrace of every run.
	AgentGrace time.Duration
}

// Sweep is the sweep of a scenario, expanded and with its directory made:
// output.dir/<ID>/ with scenario.yaml (the sweep as resolved); Run writes
// runs/<ID>-NNN/ (one bundle per run, in expansion order), sweep.csv,
// aggregate.csv, aggregate.md and plots/.
//
// Each run is a goroutine-mode run (RunSetup) on the scenario's transport,
// so callers that want the in-memory one set runtime.transport before.
type Sweep struct {
	ID, Dir string
	// Points are the runs, one per (grid point, seed).
	Points []scenarios.SweepPoint
	// Parallel is how many run at once.
	Parallel int
	// Tolerance is what "rounds to tolerance" counts up to:
	// sweep.tolerance, else metrics.tolerance, relative to
	// scenarios.DefaultSweepRelTolerance.
	Tolerance report.Tolerance

	s    *scenarios.Scenario
	opts SweepOptions
}

// NewSweep expands the sweep block of s and makes its directory, which
// must not exist, so that a sweep never rewrites earlier output. Errors
// of the caller's input (no sweep block, a bad grid or id, an existing
// directory) wrap ErrInput.
func NewSweep(s *scenarios.Scenario, o SweepOptions) (*Sweep, error) {
	if o.ID != "" {
		if err := CheckID("--sweep-id", o.ID); err != nil {
			return nil, err
		}
	}
	if s.Sweep == nil {
		return nil, inputError{fmt.Errorf("%s has no sweep block", s.Source())}
	}
	points, err := s.Expand()
	if err != nil {
		return nil, inputError{err}
	}
	if o.Logger == nil {
		o.Logger = hclog.NewNullLogger()
	}
	sw := &Sweep{ID: o.ID, Points: points, Parallel: o.Parallel, s: s, opts: o}
	if sw.Parallel < 0 {
		sw.Parallel = s.Sweep.Parallel
	}
	if sw.Parallel == 0 {
		sw.Parallel = runtime.NumCPU()
	}
	if sw.ID == "" {
		sw.ID = NewRunID(s.Name)
	}
	sw.Tolerance = report.Tolerance{Abs: s.Sweep.Tolerance, Rel: scenarios.DefaultSweepRelTolerance}
	if sw.Tolerance.Abs == 0 {
		sw.Tolerance.Abs = s.Metrics.Tolerance
	}
	if sw.Dir, err = createSweepDir(s, sw.ID); err != nil {
		return nil, err
	}
	return sw, nil
}

// SweepProgress is a run of a sweep that has ended.
type SweepProgress struct {
	// Done of Total runs have ended.
	Done, Total int
	Point       scenarios.SweepPoint
	Row         *report.SweepRow
}

// SweepResult is what Run wrote.
type SweepResult struct {
	// Table holds the row of every run that started, in expansion order.
	Table *report.SweepTable
	// Paths are the files report.WriteSweep wrote.
	Paths []string
	// Failed counts the runs whose status is not ok.
	Failed int
}

// Run runs the points, at most Parallel at once, until all ran or ctx is
// cancelled, calling done (if set, one call at a time) as each run ends,
// and writes the sweep's tables and plots. It returns an error when the
// tables could not be written, when ctx ended before every run started,
// or when a run failed; the result is returned with it.
func (sw *Sweep) Run(ctx context.Context, done func(SweepProgress)) (*SweepResult, error) {
	r := &sweeper{
		id: sw.ID, runs: filepath.Join(sw.Dir, report.RunsDir), tol: sw.Tolerance, logger: sw.opts.Logger,
		grace: sw.opts.AgentGrace, done: done, total: len(sw.Points), rows: make([]*report.SweepRow, len(sw.Points)),
	}
	r.runAll(ctx, sw.Points, sw.Parallel)
	res := &SweepResult{Table: &report.SweepTable{}}
	for _, ax := range sw.s.Sweep.Grid {
		res.Table.Keys = append(res.Table.Keys, ax.Key)
	}
	for _, row := range r.rows {
		if row == nil {
			continue // not started: interrupted
		}
		if row.Stats.Status != coordinator.StatusOK {
			res.Failed++
		}
		res.Table.Rows = append(res.Table.Rows, *row)
	}
	paths, werr := report.WriteSweep(sw.Dir, res.Table)
	res.Paths = paths
	switch {
	case werr != nil:
		return res, werr
	case ctx.Err() != nil:
		return res, fmt.Errorf("interrupted after %d of %d runs", len(res.Table.Rows), len(sw.Points))
	case res.Failed > 0:
		return res, fmt.Errorf("%d of %d runs failed (see the status and error columns of %s)", res.Failed, len(sw.Points), report.SweepCSV)
	}
	return res, nil
}

// createSweepDir makes output.dir/id with the resolved scenario.yaml; it
// refuses an existing directory, so a sweep never rewrites earlier output.
func createSweepDir(s *scenarios.Scenario, id string) (string, error) {
	if err := os.MkdirAll(s.Output.Dir, 0o755); err != nil {
		return "", fmt.Errorf("create results root: %w", err)
	}
	dir := filepath.Join(s.Output.Dir, id)
	if err := os.Mkdir(dir, 0o755); err != nil {
		if errors.Is(err, os.ErrExist) {
			return "", inputError{fmt.Errorf("%s exists: a sweep never rewrites earlier output; choose another --sweep-id", dir)}
		}
		return "", fmt.Errorf("create sweep directory: %w", err)
	}
	resolved, err := s.Marshal()
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(dir, coordinator.ScenarioFile), resolved, 0o644); err != nil {
		return "", fmt.Errorf("write sweep scenario: %w", err)
	}
	return dir, nil
}

// sweeper runs the points of a sweep and keeps one row per run.
type sweeper struct {
	id     string
	runs   string // directory of the run bundles
	tol    report.Tolerance
	logger hclog.Logger
	grace  time.Duration
	done   func(SweepProgress)
	total  int

	mu    sync.Mutex
	ended int
	rows  []*report.SweepRow // by expansion index; nil if never started
}

// runAll runs the points, at most parallel at once, until all ran or ctx
// is cancelled.
func (sw *sweeper) runAll(ctx context.Context, points []scenarios.SweepPoint, parallel int) {
	sem := make(chan struct{}, parallel)
	var wg sync.WaitGroup
	for i := range points {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			sw.runOne(ctx, i, points[i])
		}()
	}
	wg.Wait()
}

// runOne runs one point into runs/<sweep-id>-NNN and records its row.
func (sw *sweeper) runOne(ctx context.Context, i int, pt scenarios.SweepPoint) {
	s := pt.Scenario
	s.Output.Dir = sw.runs
	runID := fmt.Sprintf("%s-%03d", sw.id, i)
	row := &report.SweepRow{
		RunID: runID, Point: pt.Point, Replica: pt.Replica, Seed: s.Seed, PredictedRate: math.NaN(),
		Stats: report.RunStats{Status: coordinator.StatusFailed, FinalConsensusErr: math.NaN(), Tolerance: math.NaN(),
			RoundsToTol: math.NaN(), Rate: math.NaN(), FinalOptGap: math.NaN(), FinalFeasibility: math.NaN(),
			Msgs: math.NaN(), Bytes: math.NaN(), Dropouts: math.NaN(), WallSeconds: math.NaN()},
	}
	for _, l := range pt.Labels {
		row.Labels = append(row.Labels, report.Label{Key: l.Key, Value: l.Value})
	}
	sum, err := sw.run(ctx, s, runID, row)
	if sum != nil && sum.Bundle != "" {
		if r, rerr := report.ReadRun(sum.Bundle); rerr == nil {
			row.Stats = report.StatsOf(r, sw.tol.Abs, sw.tol.Rel)
		} else if err == nil {
			err = rerr
		}
	}
	if err != nil {
		row.Stats.Status = coordinator.StatusFailed
		row.Error = strings.ReplaceAll(err.Error(), "\n", "; ")
	}
	sw.mu.Lock()
	defer sw.mu.Unlock()
	sw.rows[i] = row
	sw.ended++
	if sw.done != nil {
		sw.done(SweepProgress{Done: sw.ended, Total: sw.total, Point: pt, Row: row})
	}
}

// consensusPredictor is implemented by an algorithm's run that predicts
// the consensus-error curve of its mean iterate without fitted constants
// (the ALM: alm's PredictedConsensus). The sweep fits that curve by the
// rule it fits the observed one with (report.SeriesRate).
type consensusPredictor interface {
	PredictedConsensus(rounds, every int, done func(errs []float64) bool) ([]int, []float64, error)
}

// run builds the point's scenario, records its predicted rate (NaN when
// the algorithm has none or it does not apply, with the reason logged)
// and runs it.
func (sw *sweeper) run(ctx context.Context, s *scenarios.Scenario, runID string, row *report.SweepRow) (*coordinator.Summary, error) {
	st, err := s.Build()
	if err != nil {
		return nil, err
	}
	if cp, ok := st.Run.(consensusPredictor); ok {
		done := func(errs []float64) bool { return report.PastTolerance(errs, sw.tol.Abs, sw.tol.Rel) }
		if rounds, errs, err := cp.PredictedConsensus(s.Rounds, s.Metrics.Every, done); err == nil {
			row.PredictedRate = report.SeriesRate(rounds, errs, sw.tol.Abs, sw.tol.Rel)
		} else {
			sw.logger.Info("no rate prediction", "run", runID, "reason", err)
		}
	}
	var agents []consensus.Agent // an asynchronous run builds its own
	if !s.Async.On() {
		if agents, err = st.Agents(); err != nil {
			return nil, err
		}
	}
	return RunSetup(ctx, st, Options{RunID: runID, Logger: sw.logger.Named(runID), Agents: agents, AgentGrace: sw.grace})
}
