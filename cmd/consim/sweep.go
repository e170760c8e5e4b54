package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/spf13/cobra"

	"github.com/consim/consim/coordinator"
	"github.com/consim/consim/coordinator/report"
	"github.com/consim/consim/node"
	"github.com/consim/consim/scenarios"
	"github.com/consim/consim/sim"
)

// sweepFlags are the flags of `consim sweep`.
type sweepFlags struct {
	out       string
	parallel  int
	transport string
	sec       natsSecurity
	natsURL   string
	sweepID   string
	logLevel  string
	sets      []string
}

// bind adds the flags of `consim sweep` to cmd.
func (f *sweepFlags) bind(cmd *cobra.Command) {
	addOutFlag(cmd, &f.out, "results root `DIR` (scenario output.dir); the sweep is written to DIR/<sweep-id>")
	cmd.Flags().IntVar(&f.parallel, "parallel", -1, "runs at once (default: the scenario's sweep.parallel; 0 = number of CPUs)")
	mustComplete(cmd, "parallel", cobra.NoFileCompletions)
	addTransportFlag(cmd, &f.transport, string(node.TransportChan), "transport of every run: chan (the sweep default), nats, nats-tcp")
	addNATSFlag(cmd, &f.natsURL, "`URL` of an external NATS server (implies --transport nats-tcp)")
	addNATSSecurityFlags(cmd, &f.sec)
	cmd.Flags().StringVar(&f.sweepID, "sweep-id", "", "sweep `ID` (default: <name>-<UTC time>-<random>); run ids are <sweep-id>-NNN")
	mustComplete(cmd, "sweep-id", cobra.NoFileCompletions)
	addLogLevelFlag(cmd, &f.logLevel, "warn", "log `level` of the runs")
	addSetFlag(cmd, &f.sets, " before the grid, e.g. --set rounds=500")
}

// scenario loads the scenario at path with the --set overrides and those
// that --transport, --nats and --out stand for.
func (f *sweepFlags) scenario(cmd *cobra.Command, path string) (*scenarios.Scenario, error) {
	transport, url, err := transportAndURL(cmd.Flags(), f.transport, f.natsURL)
	if err != nil {
		return nil, err
	}
	if err := f.sec.export(); err != nil {
		return nil, err
	}
	return loadScenario(path, runtimeOverrides(f.sets, transport, url, f.out))
}

var idRE = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

// sweepCmd runs every (grid point, seed) of a scenario's sweep block
// and writes DIR/<sweep-id>/ with scenario.yaml (the sweep as resolved),
// runs/<run-id>/ (one results bundle per run, run id <sweep-id>-NNN in
// expansion order), sweep.csv, aggregate.csv, aggregate.md and plots/.
//
// Each run is a goroutine-mode run (runScenario) on its own transport.
// Sweeps use the in-memory chan transport unless --transport says
// otherwise: the scenario's runtime.transport is not used, since many
// small runs are what a sweep is, and the bus adds nothing to their
// results. --set overrides apply to the scenario before the grid, so a
// swept key's grid values win over them.
func (a *app) sweepCmd() *cobra.Command {
	var f sweepFlags
	cmd := &cobra.Command{
		Use:   "sweep SCENARIO",
		Short: "run a scenario's sweep grid over seeds and write tables and plots",
		Long: `Sweep runs every point of the scenario's sweep grid for every seed, at
most --parallel at once, each as a goroutine-mode run on the in-memory
chan transport unless --transport or --nats says otherwise (the
scenario's runtime.transport is not used). It writes DIR/<sweep-id>/ with
scenario.yaml (the sweep as resolved), runs/<sweep-id>-NNN/ (one bundle
per run), sweep.csv, aggregate.csv, aggregate.md and plots/, and prints
the aggregate table. --set overrides apply before the grid, so a swept
key's grid values win over them. An existing sweep directory is never
rewritten.`,
		Example: `  consim sweep scenarios/dropout_sweep.yaml
  consim sweep scenarios/admm_vs_alm.yaml --parallel 2 --sweep-id cmp --out results --set rounds=500`,
		Args:              scenarioArgs,
		ValidArgsFunction: completeScenario,
	}
	f.bind(cmd)
	cmd.RunE = a.runE(func(cmd *cobra.Command, args []string) error {
		return f.sweep(cmd, args[0], a.stdout, a.stderr)
	})
	return cmd
}

// sweep runs the sweep of the scenario at path.
func (f *sweepFlags) sweep(cmd *cobra.Command, path string, stdout, stderr io.Writer) error {
	logger, err := newLogger("consim", f.logLevel, stderr)
	if err != nil {
		return err
	}
	if f.sweepID != "" && !idRE.MatchString(f.sweepID) {
		return usagef("--sweep-id %q: use letters, digits, '-' and '_'", f.sweepID)
	}
	s, err := f.scenario(cmd, path)
	if err != nil {
		return err
	}
	if s.Sweep == nil {
		return usagef("%s has no sweep block; add one (sweep: {grid: {graph.p: [1, 0.5]}, seeds: 3}) or use 'consim run' for a single run", path)
	}
	if err := probeNATS(s.Runtime.NATSURL); err != nil {
		return err
	}
	points, err := s.Expand()
	if err != nil {
		return usageError{err}
	}
	parallel := f.parallel
	if parallel < 0 {
		parallel = s.Sweep.Parallel
	}
	if parallel == 0 {
		parallel = runtime.NumCPU()
	}
	id := f.sweepID
	if id == "" {
		id = sim.NewRunID(s.Name)
	}
	dir, err := createSweepDir(s, id)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	tol := report.Tolerance{Abs: s.Sweep.Tolerance, Rel: scenarios.DefaultSweepRelTolerance}
	if tol.Abs == 0 {
		tol.Abs = s.Metrics.Tolerance
	}
	fmt.Fprintf(stdout, "sweep %s: %d runs (%d grid points x %d seeds), %d at once, transport %s\n",
		id, len(points), len(points)/s.Sweep.Seeds, s.Sweep.Seeds, parallel, s.Runtime.Transport)
	start := time.Now()
	sw := &sweeper{
		id: id, runs: filepath.Join(dir, report.RunsDir), tol: tol, logger: logger,
		out: stdout, total: len(points), rows: make([]*report.SweepRow, len(points)),
	}
	sw.runAll(ctx, points, parallel)

	table := &report.SweepTable{}
	for _, ax := range s.Sweep.Grid {
		table.Keys = append(table.Keys, ax.Key)
	}
	failed := 0
	for _, r := range sw.rows {
		if r == nil {
			continue // not started: interrupted
		}
		if r.Stats.Status != coordinator.StatusOK {
			failed++
		}
		table.Rows = append(table.Rows, *r)
	}
	paths, werr := report.WriteSweep(dir, table)
	if md, err := os.ReadFile(filepath.Join(dir, report.AggregateMD)); err == nil {
		fmt.Fprintf(stdout, "\n%s\n", md)
	}
	fmt.Fprintf(stdout, "sweep %s: %d runs in %.1fs (tolerance: %s)\n  results %s\n", id, len(table.Rows), time.Since(start).Seconds(), tol, dir)
	for _, p := range paths {
		rel, _ := filepath.Rel(dir, p)
		fmt.Fprintf(stdout, "  wrote %s\n", rel)
	}
	switch {
	case werr != nil:
		return werr
	case ctx.Err() != nil:
		return fmt.Errorf("interrupted after %d of %d runs", len(table.Rows), len(points))
	case failed > 0:
		return fmt.Errorf("%d of %d runs failed (see the status and error columns of %s)", failed, len(points), report.SweepCSV)
	}
	return nil
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
			return "", usagef("%s exists: a sweep never rewrites earlier output; choose another --sweep-id", dir)
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
	out    io.Writer
	total  int

	mu   sync.Mutex
	done int
	rows []*report.SweepRow // by expansion index; nil if never started
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
	sw.done++
	status := row.Stats.Status
	if row.Error != "" {
		status += ": " + row.Error
	}
	fmt.Fprintf(sw.out, "[%*d/%d] %-28s seed %-4d final consensus err %.3e  rounds to tol %s  %.2fs  %s\n",
		len(fmt.Sprint(sw.total)), sw.done, sw.total, labelString(pt.Labels), s.Seed,
		row.Stats.FinalConsensusErr, roundsString(row.Stats.RoundsToTol), row.Stats.WallSeconds, status)
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
	st, err := buildScenario(s)
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
	agents, err := st.Agents()
	if err != nil {
		return nil, err
	}
	return runAgents(ctx, st, agents, runID, sw.logger.Named(runID), nil)
}

func labelString(ls []scenarios.Label) string {
	parts := make([]string, len(ls))
	for i, l := range ls {
		parts[i] = l.Key + "=" + l.Value
	}
	return strings.Join(parts, " ")
}

func roundsString(r float64) string {
	if math.IsNaN(r) {
		return "-"
	}
	return fmt.Sprintf("%.0f", r)
}
