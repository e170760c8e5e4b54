package main

import (
	"context"
	"errors"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/coordinator"
	"github.com/consim/consim/node"
	"github.com/consim/consim/scenarios"
	"github.com/consim/consim/sim"
)

// agentGrace is how long agents may keep running after the coordinator
// has ended the run (it sends Stop) before they are cancelled.
var agentGrace = 5 * time.Second

// runFlags are the flags of `consim run`.
type runFlags struct {
	transport string
	natsURL   string
	out       string
	runID     string
	logLevel  string
	sets      stringList
}

func runCommand(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("run", "run SCENARIO [--transport chan|nats|nats-tcp] [--nats URL] [--out DIR] [--set key=value ...]", stderr)
	var f runFlags
	fs.StringVar(&f.transport, "transport", "", "transport: chan (in-memory), nats (embedded server, in-process; the default), nats-tcp (embedded server on loopback TCP, or --nats URL)")
	fs.StringVar(&f.natsURL, "nats", "", "URL of an external NATS server, e.g. nats://127.0.0.1:4222 (implies --transport nats-tcp)")
	fs.StringVar(&f.out, "out", "", "results root directory (scenario output.dir); the bundle is DIR/<run-id>")
	fs.StringVar(&f.runID, "run-id", "", "run id (default: <name>-<UTC time>-<random>)")
	fs.StringVar(&f.logLevel, "log-level", "info", "log level: trace, debug, info, warn, error, off")
	fs.Var(&f.sets, "set", "override a scenario key, e.g. --set graph.p=0.3 (repeatable)")
	path, err := scenarioPath(fs, args)
	if err != nil {
		return err
	}
	logger, err := newLogger("consim", f.logLevel, stderr)
	if err != nil {
		return err
	}
	if f.natsURL != "" && f.transport == "" {
		f.transport = string(node.TransportNATSTCP)
	}
	s, err := loadScenario(path, runtimeOverrides(f.sets, f.transport, f.natsURL, f.out))
	if err != nil {
		return err
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	sum, err := runScenario(ctx, s, f.runID, logger, newProgressPrinter(stderr))
	if sum != nil {
		printSummary(stdout, sum)
	}
	return err
}

// runScenario runs s with every agent as a goroutine of this process on
// the scenario's transport, and the coordinator beside them.
func runScenario(ctx context.Context, s *scenarios.Scenario, runID string, logger hclog.Logger, progress func(coordinator.Progress)) (*coordinator.Summary, error) {
	st, err := buildScenario(s)
	if err != nil {
		return nil, err
	}
	return runAgents(ctx, st, nil, runID, logger, progress)
}

// runAgents runs st (with agents instead of its own, when not nil) through
// sim.RunSetup; the caller's input errors become usage errors.
func runAgents(ctx context.Context, st *scenarios.Setup, agents []consensus.Agent, runID string, logger hclog.Logger, progress func(coordinator.Progress)) (*coordinator.Summary, error) {
	sum, err := sim.RunSetup(ctx, st, sim.Options{RunID: runID, Logger: logger, Observe: progress, Agents: agents, AgentGrace: agentGrace})
	if errors.Is(err, sim.ErrInput) {
		err = usageError{err}
	}
	return sum, err
}
