package main

import (
	"context"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/consim/consim/coordinator"
	"github.com/consim/consim/coordinator/live"
	"github.com/consim/consim/sim"
)

// launchOptions are the flags of `consim launch`.
type launchOptions struct {
	path         string   // scenario file
	sets         []string // --set overrides, passed to every agent process as given
	natsURL      string   // external NATS server; empty starts one on loopback
	runID        string   // empty: generated
	out          string   // results root; empty: the scenario's output.dir
	logLevel     string   // the launcher's log level
	nodeLogLevel string   // the agent processes' log level
	readyTimeout time.Duration
	grace        time.Duration
	// sec are the credentials and TLS files for the external server
	// --nats, handed to the agent processes as paths.
	sec natsSecurity
	// ui is the address of the live view; empty serves nothing.
	ui string

	// exe is the consim binary the agents run; empty: this executable.
	exe string
	// started, if set, is called with each agent's id and process id
	// once it has started.
	started func(id, pid int)
}

func (a *app) launchCmd() *cobra.Command {
	var o launchOptions
	cmd := scenarioCmd("launch", "run a scenario with every agent as its own process")
	addNATSFlag(cmd, &o.natsURL, "`URL` of an external NATS server (default: start one on 127.0.0.1 at a free port)")
	addOutFlag(cmd, &o.out, "results root `DIR` (scenario output.dir); the bundle is DIR/<run-id>")
	addRunIDFlag(cmd, &o.runID, "run `ID` (default: <name>-<UTC time>-<random>)")
	addLogLevelFlag(cmd, &o.logLevel, "info", "log `level` of the launcher and coordinator")
	cmd.Flags().StringVar(&o.nodeLogLevel, "node-log-level", "warn", "log `level` of the agent processes (their stderr is shown prefixed with the agent)")
	mustComplete(cmd, "node-log-level", cobra.FixedCompletions(logLevels, cobra.ShellCompDirectiveNoFileComp))
	cmd.Flags().DurationVar(&o.readyTimeout, "ready-timeout", coordinator.DefaultReadyTimeout, "how long to wait for every agent process to be ready")
	cmd.Flags().DurationVar(&o.grace, "grace", sim.DefaultStopGrace, "how long agent processes have to exit after the run, and after SIGTERM before SIGKILL")
	noFileCompletion(cmd, "ready-timeout", "grace")
	addSetFlag(cmd, &o.sets, " for this process and every agent, e.g. --set graph.p=0.3")
	addNATSSecurityFlags(cmd, &o.sec)
	addUIFlag(cmd, &o.ui)
	cmd.RunE = a.runE(func(_ *cobra.Command, args []string) error {
		o.path = args[0]
		if o.readyTimeout <= 0 || o.grace <= 0 {
			return usagef("--ready-timeout %v and --grace %v must be positive", o.readyTimeout, o.grace)
		}
		if _, err := newLogger("node", o.nodeLogLevel, io.Discard); err != nil {
			return usagef("--node-log-level %q: want trace, debug, info, warn, error or off", o.nodeLogLevel)
		}
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		sum, err := launch(ctx, o, a.stderr)
		if sum != nil {
			sum.WriteText(a.stdout)
		}
		return err
	})
	return cmd
}

// launch loads and builds the scenario of o and runs it with sim.Launch:
// every agent its own `consim node` process, the coordinator in this
// process; logs, progress and the agents' stderr go to stderr.
func launch(ctx context.Context, o launchOptions, stderr io.Writer) (*coordinator.Summary, error) {
	out := sim.NewSyncWriter(stderr)
	logger, err := newLogger("consim", o.logLevel, out)
	if err != nil {
		return nil, err
	}
	s, st, err := loadAndBuild(o.path, runtimeOverrides(o.sets, "", "", o.out))
	if err != nil {
		return nil, err
	}
	runID := o.runID
	if runID == "" {
		runID = sim.NewRunID(s.Name)
	}
	if err := sim.CheckRunID(s, runID); err != nil {
		return nil, inputErr(err)
	}
	ui, err := startUI(out, o.ui, live.Info{RunID: runID, Scenario: s.Name, Agents: s.Agents, Rounds: s.Rounds})
	if err != nil {
		return nil, err
	}
	defer ui.Stop()
	if err := sim.CheckNATSURL(o.natsURL); err != nil {
		return nil, inputErr(err)
	}
	sum, err := sim.Launch(ctx, st, sim.LaunchOptions{
		Path: o.path, Sets: o.sets, NATSURL: o.natsURL, RunID: runID, NodeLogLevel: o.nodeLogLevel,
		ReadyTimeout: o.readyTimeout, Grace: o.grace, Secure: o.sec.apply, ChildArgs: o.sec.args(),
		Exe: o.exe, Started: o.started, Stderr: out, Logger: logger, Progress: ui.Tee(newProgressPrinter(out)),
	})
	ui.End(sum, err)
	return sum, inputErr(err)
}
