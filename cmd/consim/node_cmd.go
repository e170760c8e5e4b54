package main

import (
	"context"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/hashicorp/go-hclog"
	"github.com/spf13/cobra"

	"github.com/consim/consim/scenarios"
	"github.com/consim/consim/sim"
)

// nodeFlags are the flags of `consim node`.
type nodeFlags struct {
	natsURL  string
	runID    string
	id       int
	logLevel string
	sets     []string
	sec      natsSecurity
}

// nodeCmd runs one agent of a run in this process: it rebuilds the
// scenario from the file and the run seed (so no data crosses the bus),
// builds agent --id only, joins the run at the NATS server and runs until
// the last round or the coordinator's stop.
func (a *app) nodeCmd() *cobra.Command {
	var f nodeFlags
	cmd := scenarioCmd("node", "join a run as one agent process (see launch)")
	addNATSFlag(cmd, &f.natsURL, "`URL` of the run's NATS server, e.g. nats://10.0.0.5:4222 (required)")
	addRunIDFlag(cmd, &f.runID, "run `ID` shared by the coordinator and every agent (required)")
	addLegacyRunFlag(cmd, &f.runID)
	cmd.Flags().IntVar(&f.id, "id", -1, "this agent's id, 0..agents-1 (required)")
	mustComplete(cmd, "id", cobra.NoFileCompletions)
	addLogLevelFlag(cmd, &f.logLevel, "warn", "log `level`")
	addSetFlag(cmd, &f.sets, ", as given to the coordinator")
	addNATSSecurityFlags(cmd, &f.sec)
	cmd.RunE = a.runE(func(cmd *cobra.Command, args []string) error {
		if err := legacyRunFlag(cmd, a.stderr); err != nil {
			return err
		}
		switch {
		case f.natsURL == "":
			return usagef("--nats URL is required (or %s)", envNATSURL)
		case f.runID == "":
			return usagef("--run-id ID is required")
		case f.id < 0:
			return usagef("--id I is required (a non-negative agent id)")
		}
		if err := sim.CheckNATSURL(f.natsURL); err != nil {
			return inputErr(err)
		}
		logger, err := newLogger("node", f.logLevel, a.stderr)
		if err != nil {
			return err
		}
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		// The memory estimate counts this process's one agent.
		s, err := scenarios.LoadProcessWith(args[0], 1, f.sets...)
		if err != nil {
			return usageError{err}
		}
		return inputErr(sim.RunAgent(ctx, s, f.id, f.natsURL, f.runID, f.sec.apply, logger))
	})
	return cmd
}

// newLogger returns a logger named name at level (a usage error if level
// is unknown) writing to w.
func newLogger(name, level string, w io.Writer) (hclog.Logger, error) {
	l := hclog.LevelFromString(level)
	if l == hclog.NoLevel {
		return nil, usagef("--log-level %q: want trace, debug, info, warn, error or off", level)
	}
	return hclog.New(&hclog.LoggerOptions{Name: name, Level: l, Output: w}), nil
}
