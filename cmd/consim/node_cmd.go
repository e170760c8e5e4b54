package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/spf13/cobra"

	"github.com/consim/consim/node"
	"github.com/consim/consim/sim"
)

// readyRepeat is how often an agent process repeats its ready status
// until the coordinator's first control arrives (node.Options.ReadyRepeat).
const readyRepeat = time.Second

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
	cmd := &cobra.Command{
		Use:   "node SCENARIO",
		Short: "join a run as one agent process (see launch)",
		Long: `Node runs agent --id of a run in this process. It rebuilds the scenario
from the file, the --set overrides and the run seed, so that its data and
draws match the other agents' and nothing large crosses the bus; joins
run --run-id at the NATS server --nats; and runs until the last round or
the coordinator's stop. Every agent and the coordinator must be given the
same scenario file and --set overrides.`,
		Example: `  consim node --nats nats://host0:4222 --run-id r1 --id 3 scenarios/quickstart.yaml
  CONSIM_NATS_URL=nats://host0:4222 consim node --run-id r1 --id 3 scenarios/quickstart.yaml`,
		Args:              scenarioArgs,
		ValidArgsFunction: completeScenario,
	}
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
		if err := checkNATSURL(f.natsURL); err != nil {
			return err
		}
		logger, err := newLogger("node", f.logLevel, a.stderr)
		if err != nil {
			return err
		}
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		return runNode(ctx, args[0], f.sets, f.natsURL, f.runID, f.id, f.sec, logger)
	})
	return cmd
}

// runNode runs agent id of the scenario at path (with the overrides sets)
// over the NATS server at url, in run runID, with the credentials and TLS
// files of sec.
func runNode(ctx context.Context, path string, sets []string, url, runID string, id int, sec natsSecurity, logger hclog.Logger) error {
	s, err := loadProcessScenario(path, sets, 1)
	if err != nil {
		return err
	}
	if id >= s.Agents {
		return usagef("--id %d: scenario %s has agents 0..%d", id, s.Name, s.Agents-1)
	}
	st, err := buildScenario(s)
	if err != nil {
		return err
	}
	agent, err := st.Agent(id)
	if err != nil {
		return err
	}
	logger = logger.With("agent", id)
	nopts := node.NATSOptions{
		RunID:            runID,
		URL:              url,
		Agents:           s.Agents,
		ReconnectTimeout: s.Runtime.AgentTimeout.Std(),
		Logger:           logger.Named("transport"),
		// One agent per process: the server delivers it only its frames.
		PerDestination: true,
	}
	if err := sec.apply(&nopts); err != nil {
		return err
	}
	tr, err := node.NewNATSTransport(nopts)
	if err != nil {
		// Input, as for run and coordinator: the URL, or a key or
		// credentials file.
		return usageError{fmt.Errorf("agent %d: --nats %s: %w", id, redactURL(url), err)}
	}
	defer tr.Close()
	ep, err := tr.Endpoint(id)
	if err != nil {
		return fmt.Errorf("agent %d: %w", id, err)
	}
	opts := sim.NodeOptions(st, logger)
	// The coordinator refuses the run unless every process holds its
	// scenario (see coordinate).
	if opts.Scenario, err = s.Canonical(); err != nil {
		return usageError{err}
	}
	// The coordinator may subscribe after this process starts (agents on
	// several hosts): repeat ready until its start arrives.
	opts.ReadyRepeat = readyRepeat
	runErr := node.Run(ctx, agent, ep, opts)
	if err := ep.Close(); err != nil {
		logger.Warn("closing the endpoint", "error", err)
	}
	if lost := tr.Lost(); lost != nil && runErr != nil {
		return fmt.Errorf("%w (%w)", runErr, lost)
	}
	return runErr
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
