package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/spf13/cobra"

	"github.com/consim/consim/coordinator"
	"github.com/consim/consim/node"
	"github.com/consim/consim/scenarios"
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
}

// coordinatorCmd observes a run whose agents are separate processes
// (`consim node`), here or on other hosts: it waits for them, starts the
// run, writes the results bundle and prints the summary.
func (a *app) coordinatorCmd() *cobra.Command {
	var f coordinatorFlags
	cmd := &cobra.Command{
		Use:   "coordinator SCENARIO",
		Short: "observe a run of agent processes and write its bundle",
		Long: `Coordinator observes run --run-id over the NATS server --nats: it waits
until every agent process ('consim node', here or on other hosts) is
ready, starts the run, measures it, writes the results bundle to
DIR/<run-id> (--out, else the scenario's output.dir) and prints the
summary. Give it the scenario file and --set overrides the agents have.

With --jetstream the agents' statuses reach the coordinator through a
JetStream stream on the server ('consim nats --jetstream'), which keeps
them while no coordinator is connected. If that coordinator dies (kill
-9, a lost host), start another with --resume and the same arguments
within runtime.agent_timeout (the agents give up on a silent coordinator
after that long): it replays the run's statuses from the first, replaces
the unfinished bundle and finishes it. The stream is deleted when the
run ends.`,
		Example: `  consim coordinator --nats nats://host0:4222 --run-id r1 scenarios/quickstart.yaml
  CONSIM_NATS_URL=nats://host0:4222 consim coordinator --run-id r1 --out results scenarios/quickstart.yaml
  consim coordinator --nats nats://host0:4222 --run-id r1 --jetstream scenarios/quickstart.yaml
  consim coordinator --nats nats://host0:4222 --run-id r1 --resume scenarios/quickstart.yaml`,
		Args:              scenarioArgs,
		ValidArgsFunction: completeScenario,
	}
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
		if err := checkNATSURL(f.natsURL); err != nil {
			return err
		}
		logger, err := newLogger("consim", f.logLevel, a.stderr)
		if err != nil {
			return err
		}
		sets := append([]string(nil), f.sets...)
		if f.out != "" {
			sets = append(sets, "output.dir="+f.out)
		}
		s, err := loadScenario(args[0], sets)
		if err != nil {
			return err
		}
		st, err := buildScenario(s)
		if err != nil {
			return err
		}
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		configure := func(o *node.NATSOptions) error {
			o.StatusStream, o.Resume = f.jetstream || f.resume, f.resume
			return f.sec.apply(o)
		}
		tr, obs, err := dialObserver(s, f.natsURL, f.runID, nil, configure, logger)
		if errors.Is(err, node.ErrNoStatusStream) || errors.Is(err, node.ErrNoJetStream) {
			return usageError{err}
		}
		if err != nil {
			return err
		}
		defer tr.Close()
		if f.resume {
			fmt.Fprintf(a.stderr, "run %s: resuming at %s\n", f.runID, f.natsURL)
		} else {
			fmt.Fprintf(a.stderr, "run %s: waiting for %d agents at %s\n", f.runID, s.Agents, f.natsURL)
		}
		sum, err := coordinate(ctx, st, f.runID, tr, obs, f.readyTimeout, nil, logger, newProgressPrinter(a.stderr), f.resume)
		if sum != nil {
			printSummary(a.stdout, sum)
		}
		if r, ok := obs.(streamReleaser); ok && sum != nil {
			// The run is over (its summary is written): nothing will
			// resume it.
			if rerr := r.ReleaseStream(); rerr != nil {
				logger.Warn("status stream left on the server", "err", rerr)
			}
		}
		return err
	})
	return cmd
}

// dialObserver connects the coordinator of run runID of s to the NATS
// server at url, authenticating frames with key (nil: the run key of the
// environment, see node.EnvRunKeyFile); configure, if set, completes the
// connection's options: credentials, TLS files, the status stream.
// Connection failures are usage errors: the URL is input.
func dialObserver(s *scenarios.Scenario, url, runID string, key []byte, configure func(*node.NATSOptions) error, logger hclog.Logger) (*node.NATSTransport, node.Observer, error) {
	o := node.NATSOptions{
		RunID:            runID,
		Key:              key,
		URL:              url,
		Agents:           s.Agents,
		ReconnectTimeout: s.Runtime.AgentTimeout.Std(),
		Logger:           logger.Named("transport"),
	}
	if configure != nil {
		if err := configure(&o); err != nil {
			return nil, nil, err
		}
	}
	tr, err := node.NewNATSTransport(o)
	if err != nil {
		return nil, nil, usageError{fmt.Errorf("--nats %s: %w", redactURL(url), err)}
	}
	obs, err := tr.Observer()
	if err != nil {
		tr.Close()
		return nil, nil, fmt.Errorf("connect coordinator: %w", err)
	}
	return tr, obs, nil
}

// streamReleaser is an observer whose run's statuses are kept in a
// stream on the server until ReleaseStream deletes it.
type streamReleaser interface{ ReleaseStream() error }

// coordinate runs the coordinator of st over obs, a connection of tr,
// with agents in separate processes; lost, if not nil, delivers agents
// whose process a supervisor saw exit. A connection the transport gave up
// on is named in the error.
func coordinate(ctx context.Context, st *scenarios.Setup, runID string, tr *node.NATSTransport, obs node.Observer,
	readyTimeout time.Duration, lost <-chan coordinator.Lost, logger hclog.Logger, progress func(coordinator.Progress), resume bool) (*coordinator.Summary, error) {
	cfg, ev, err := sim.CoordinatorConfig(st, runID, logger, progress)
	if err != nil {
		return nil, err
	}
	// Each agent process loaded its own copy of the scenario: a run
	// starts only if they all hold this one.
	canonical, err := st.Scenario.Canonical()
	if err != nil {
		return nil, usageError{err}
	}
	cfg.ScenarioCheck = canonical
	cfg.ReadyTimeout = readyTimeout
	cfg.Lost = lost
	cfg.Resume = resume
	cfg.Meta["transport"] = string(node.TransportNATSTCP)
	cfg.Meta["mode"] = "processes"
	sum, err := coordinator.Run(ctx, cfg, obs, ev)
	if lost := tr.Lost(); lost != nil && err != nil {
		err = fmt.Errorf("%w (%w)", err, lost)
	}
	return sum, err
}
