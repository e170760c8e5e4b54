package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/consim/consim/coordinator"
	"github.com/consim/consim/coordinator/live"
	"github.com/consim/consim/node"
	"github.com/consim/consim/sim"
)

// coordinatorFlags are the flags of `consim coordinator`.
type coordinatorFlags struct {
	natsURL      string
	runID        string
	out          string
	readyTimeout time.Duration
	logLevel     string
	sets         []string
	sec          natsSecurity
	// jetstream and resume: statuses through the run's JetStream stream,
	// and resuming the run of a coordinator that died.
	jetstream, resume bool
	// ui is the address of the live view; empty serves nothing.
	ui string
}

// coordinatorCmd observes a run whose agents are separate processes
// (`consim node`), here or on other hosts: it waits for them, starts the
// run, writes the results bundle and prints the summary.
func (a *app) coordinatorCmd() *cobra.Command {
	var f coordinatorFlags
	cmd := scenarioCmd("coordinator", "observe a run of agent processes and write its bundle")
	addNATSFlag(cmd, &f.natsURL, "`URL` of the run's NATS server, e.g. nats://10.0.0.5:4222 (required)")
	addRunIDFlag(cmd, &f.runID, "run `ID` shared with every agent (required)")
	addLegacyRunFlag(cmd, &f.runID)
	addOutFlag(cmd, &f.out, "results root `DIR` (scenario output.dir); the bundle is DIR/<run-id>")
	cmd.Flags().DurationVar(&f.readyTimeout, "ready-timeout", coordinator.DefaultReadyTimeout, "how long to wait for every agent's ready status")
	mustComplete(cmd, "ready-timeout", cobra.NoFileCompletions)
	addLogLevelFlag(cmd, &f.logLevel, "info", "log `level`")
	addSetFlag(cmd, &f.sets, ", as given to every agent")
	addNATSSecurityFlags(cmd, &f.sec)
	cmd.Flags().BoolVar(&f.jetstream, "jetstream", false, "read the statuses through the run's JetStream stream on the server, so that a coordinator restarted with --resume loses none")
	addUIFlag(cmd, &f.ui)
	cmd.Flags().BoolVar(&f.resume, "resume", false, "resume the run of a coordinator started with --jetstream that died: replay its statuses, replace its unfinished bundle and finish the run")
	cmd.RunE = a.runE(func(cmd *cobra.Command, args []string) error {
		if err := legacyRunFlag(cmd, a.stderr); err != nil {
			return err
		}
		switch {
		case f.natsURL == "":
			return usagef("--nats URL is required (or %s)", envNATSURL)
		case f.runID == "":
			return usagef("--run-id ID is required")
		case f.readyTimeout <= 0:
			return usagef("--ready-timeout %v: must be positive", f.readyTimeout)
		}
		if err := sim.CheckNATSURL(f.natsURL); err != nil {
			return inputErr(err)
		}
		logger, err := newLogger("consim", f.logLevel, a.stderr)
		if err != nil {
			return err
		}
		s, st, err := loadAndBuild(args[0], runtimeOverrides(f.sets, "", "", f.out))
		if err != nil {
			return err
		}
		ui, err := startUI(a.stderr, f.ui, live.Info{RunID: f.runID, Scenario: s.Name, Agents: s.Agents, Rounds: s.Rounds})
		if err != nil {
			return err
		}
		defer ui.Stop()
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		configure := func(o *node.NATSOptions) error {
			o.StatusStream, o.Resume = f.jetstream || f.resume, f.resume
			return f.sec.apply(o)
		}
		sum, err := sim.RunCoordinator(ctx, st, f.natsURL, f.runID, configure, sim.CoordinateOptions{ReadyTimeout: f.readyTimeout,
			Logger: logger, Progress: ui.Tee(newProgressPrinter(a.stderr)), Resume: f.resume}, func() {
			if f.resume {
				fmt.Fprintf(a.stderr, "run %s: resuming at %s\n", f.runID, f.natsURL)
			} else {
				fmt.Fprintf(a.stderr, "run %s: waiting for %d agents at %s\n", f.runID, s.Agents, f.natsURL)
			}
		})
		ui.End(sum, err)
		if sum != nil {
			sum.WriteText(a.stdout)
		}
		return inputErr(err)
	})
	return cmd
}
