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
	sets         stringList
}

// coordinatorCommand observes a run whose agents are separate processes
// (`consim node`), here or on other hosts: it waits for them, starts the
// run, writes the results bundle and prints the summary.
func coordinatorCommand(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("coordinator", "coordinator --nats URL --run ID SCENARIO [--out DIR] [--set key=value ...]", stderr)
	var f coordinatorFlags
	fs.StringVar(&f.natsURL, "nats", "", "URL of the run's NATS server, e.g. nats://10.0.0.5:4222 (required)")
	fs.StringVar(&f.runID, "run", "", "run id shared with every agent (required)")
	fs.StringVar(&f.out, "out", "", "results root directory (scenario output.dir); the bundle is DIR/<run-id>")
	fs.DurationVar(&f.readyTimeout, "ready-timeout", coordinator.DefaultReadyTimeout, "how long to wait for every agent's ready status")
	fs.StringVar(&f.logLevel, "log-level", "info", "log level: trace, debug, info, warn, error, off")
	fs.Var(&f.sets, "set", "override a scenario key, as given to every agent (repeatable)")
	path, err := scenarioPath(fs, args)
	if err != nil {
		return err
	}
	switch {
	case f.natsURL == "":
		return usagef("--nats URL is required")
	case f.runID == "":
		return usagef("--run ID is required")
	case f.readyTimeout <= 0:
		return usagef("--ready-timeout %v: must be positive", f.readyTimeout)
	}
	logger, err := newLogger("consim", f.logLevel, stderr)
	if err != nil {
		return err
	}
	sets := append([]string(nil), f.sets...)
	if f.out != "" {
		sets = append(sets, "output.dir="+f.out)
	}
	s, err := loadScenario(path, sets)
	if err != nil {
		return err
	}
	st, err := buildScenario(s)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	tr, obs, err := dialObserver(s, f.natsURL, f.runID, logger)
	if err != nil {
		return err
	}
	defer tr.Close()
	fmt.Fprintf(stderr, "run %s: waiting for %d agents at %s\n", f.runID, s.Agents, f.natsURL)
	sum, err := coordinate(ctx, st, f.runID, tr, obs, f.readyTimeout, logger, newProgressPrinter(stderr))
	if sum != nil {
		printSummary(stdout, sum)
	}
	return err
}

// dialObserver connects the coordinator of run runID of s to the NATS
// server at url. Connection failures are usage errors: the URL is input.
func dialObserver(s *scenarios.Scenario, url, runID string, logger hclog.Logger) (*node.NATSTransport, node.Observer, error) {
	tr, err := node.NewNATSTransport(node.NATSOptions{
		RunID:            runID,
		URL:              url,
		ReconnectTimeout: s.Runtime.AgentTimeout.Std(),
		Logger:           logger.Named("transport"),
	})
	if err != nil {
		return nil, nil, usageError{fmt.Errorf("--nats %s: %w", url, err)}
	}
	obs, err := tr.Observer()
	if err != nil {
		tr.Close()
		return nil, nil, fmt.Errorf("connect coordinator: %w", err)
	}
	return tr, obs, nil
}

// coordinate runs the coordinator of st over obs, a connection of tr,
// with agents in separate processes. A connection the transport gave up
// on is named in the error.
func coordinate(ctx context.Context, st *scenarios.Setup, runID string, tr *node.NATSTransport, obs node.Observer,
	readyTimeout time.Duration, logger hclog.Logger, progress func(coordinator.Progress)) (*coordinator.Summary, error) {
	cfg, ev, err := sim.CoordinatorConfig(st, runID, logger, progress)
	if err != nil {
		return nil, err
	}
	cfg.ReadyTimeout = readyTimeout
	cfg.Meta["transport"] = string(node.TransportNATSTCP)
	cfg.Meta["mode"] = "processes"
	sum, err := coordinator.Run(ctx, cfg, obs, ev)
	if lost := tr.Lost(); lost != nil && err != nil {
		err = fmt.Errorf("%w (%w)", err, lost)
	}
	return sum, err
}
