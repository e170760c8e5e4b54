package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

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

// sweepCmd is `consim sweep` (help/sweep.txt): sim.Sweep of a scenario's
// sweep block, on the in-memory chan transport unless --transport or
// --nats says otherwise, a line printed per run and the aggregate table.
func (a *app) sweepCmd() *cobra.Command {
	var f sweepFlags
	cmd := &cobra.Command{
		Use:               "sweep SCENARIO",
		Short:             "run a scenario's sweep grid over seeds and write tables and plots",
		Args:              scenarioArgs,
		ValidArgsFunction: completeScenario,
	}
	withHelp(cmd, "sweep")
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
	if f.sweepID != "" {
		if err := sim.CheckID("--sweep-id", f.sweepID); err != nil {
			return inputErr(err)
		}
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
	sw, err := sim.NewSweep(s, sim.SweepOptions{ID: f.sweepID, Parallel: f.parallel, Logger: logger, AgentGrace: agentGrace})
	if err != nil {
		return inputErr(err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	fmt.Fprintf(stdout, "sweep %s: %d runs (%d grid points x %d seeds), %d at once, transport %s\n",
		sw.ID, len(sw.Points), len(sw.Points)/s.Sweep.Seeds, s.Sweep.Seeds, sw.Parallel, s.Runtime.Transport)
	start := time.Now()
	res, err := sw.Run(ctx, func(p sim.SweepProgress) {
		row, status := p.Row, p.Row.Stats.Status
		if row.Error != "" {
			status += ": " + row.Error
		}
		fmt.Fprintf(stdout, "[%*d/%d] %-28s seed %-4d final consensus err %.3e  rounds to tol %s  %.2fs  %s\n",
			len(fmt.Sprint(p.Total)), p.Done, p.Total, labelString(p.Point.Labels), p.Point.Scenario.Seed,
			row.Stats.FinalConsensusErr, roundsString(row.Stats.RoundsToTol), row.Stats.WallSeconds, status)
	})
	if md, rerr := os.ReadFile(filepath.Join(sw.Dir, report.AggregateMD)); rerr == nil {
		fmt.Fprintf(stdout, "\n%s\n", md)
	}
	fmt.Fprintf(stdout, "sweep %s: %d runs in %.1fs (tolerance: %s)\n  results %s\n", sw.ID, len(res.Table.Rows), time.Since(start).Seconds(), sw.Tolerance, sw.Dir)
	for _, p := range res.Paths {
		rel, _ := filepath.Rel(sw.Dir, p)
		fmt.Fprintf(stdout, "  wrote %s\n", rel)
	}
	return err
}

// labelString renders a grid point's assignments as key=value words.
func labelString(ls []scenarios.Label) string {
	parts := make([]string, len(ls))
	for i, l := range ls {
		parts[i] = l.Key + "=" + l.Value
	}
	return strings.Join(parts, " ")
}

// roundsString renders rounds to tolerance, "-" when not reached.
func roundsString(r float64) string {
	if math.IsNaN(r) {
		return "-"
	}
	return fmt.Sprintf("%.0f", r)
}
