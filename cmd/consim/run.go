package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/consensus/metrics"
	"github.com/consim/consim/coordinator"
	"github.com/consim/consim/node"
	"github.com/consim/consim/scenarios"
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
	agents, err := st.Agents()
	if err != nil {
		return nil, err
	}
	return runAgents(ctx, st, agents, runID, logger, progress)
}

// runAgents runs the given agents of st as goroutines on the scenario's
// transport, with the coordinator observing, and returns its summary.
func runAgents(ctx context.Context, st *scenarios.Setup, agents []consensus.Agent, runID string, logger hclog.Logger, progress func(coordinator.Progress)) (*coordinator.Summary, error) {
	s := st.Scenario
	if runID == "" {
		runID = newRunID(s.Name)
	}
	if err := checkRunID(s, runID); err != nil {
		return nil, err
	}
	tr, err := node.NewTransport(node.TransportConfig{
		Kind:   node.TransportKind(s.Runtime.Transport),
		N:      s.Agents,
		RunID:  runID,
		URL:    s.Runtime.NATSURL,
		Logger: logger.Named("transport"),
	})
	if err != nil {
		err = fmt.Errorf("transport %s: %w", s.Runtime.Transport, err)
		if s.Runtime.NATSURL != "" {
			err = usageError{err} // the URL given cannot be reached
		}
		return nil, err
	}
	defer tr.Close()
	obs, err := tr.Observer()
	if err != nil {
		return nil, fmt.Errorf("connect coordinator: %w", err)
	}
	cfg, ev, err := coordinatorConfig(st, runID, logger, progress)
	if err != nil {
		return nil, err
	}

	agentCtx, cancelAgents := context.WithCancel(ctx)
	defer cancelAgents()
	agentsDone := make(chan error, 1)
	opts := nodeOptions(s, logger)
	opts.Faults.Rebuild = st.Agent // a crash that loses state restarts from the initial agent
	go func() { agentsDone <- node.RunAll(agentCtx, agents, tr, opts) }()
	sum, runErr := coordinator.Run(ctx, cfg, obs, ev)

	// The coordinator has sent Stop if it ended early. Agents that do not
	// finish within the grace period are cancelled; one that ignores the
	// cancellation (a hung agent) is abandoned after a second period.
	var agentErr error
	select {
	case agentErr = <-agentsDone:
	case <-time.After(agentGrace):
		cancelAgents()
		select {
		case agentErr = <-agentsDone:
		case <-time.After(agentGrace):
			agentErr = fmt.Errorf("agents did not stop within %v of cancellation", 2*agentGrace)
		}
	}
	if runErr != nil {
		return sum, runErr
	}
	if agentErr != nil && !errors.Is(agentErr, context.Canceled) {
		return sum, fmt.Errorf("agents: %w", agentErr)
	}
	return sum, nil
}

// coordinatorConfig builds the coordinator's configuration and evaluator
// for a run of st: the central problem (with its optimum) is solved here.
func coordinatorConfig(st *scenarios.Setup, runID string, logger hclog.Logger, progress func(coordinator.Progress)) (coordinator.Config, coordinator.Evaluator, error) {
	s := st.Scenario
	prob, err := st.Problem()
	if err != nil {
		return coordinator.Config{}, nil, err
	}
	resolved, err := s.Marshal()
	if err != nil {
		return coordinator.Config{}, nil, err
	}
	ev := coordinator.EvaluatorFunc(func(reps []consensus.Report) (metrics.Metrics, error) {
		return metrics.Measure(prob, st.Graph, reps)
	})
	cfg := coordinator.Config{
		RunID:        runID,
		N:            s.Agents,
		Rounds:       s.Rounds,
		ReportEvery:  s.Metrics.Every,
		ConsensusTol: s.Metrics.Tolerance,
		Timeout:      s.Runtime.Timeout.Std(),
		AgentTimeout: s.Runtime.AgentTimeout.Std(),
		OutDir:       s.Output.Dir,
		Scenario:     resolved,
		Meta: map[string]any{
			"scenario":  s.Name,
			"source":    s.Source(),
			"transport": s.Runtime.Transport,
			"seed":      s.Seed,
			"algorithm": s.Algorithm.Name,
			"f_star":    prob.FStar,
			"convex":    prob.Convex,
		},
		Logger:   logger.Named("coordinator"),
		Progress: progress,
	}
	cfg.ContinueOnDeparture = s.Faults.ContinueOnDeparture()
	return cfg, ev, nil
}

// nodeOptions are the runtime options of every agent of s.
func nodeOptions(s *scenarios.Scenario, logger hclog.Logger) node.Options {
	return node.Options{
		N:             s.Agents,
		Rounds:        s.Rounds,
		ReportEvery:   s.Metrics.Every,
		PhaseDeadline: s.Runtime.PhaseDeadline.Std(),
		Logger:        logger.Named("node"),
		Faults:        s.Faults.Node(s.Seed),
	}
}

// checkRunID rejects, before any agent starts, a run id that cannot name
// NATS subjects and a directory, or whose results bundle already exists.
func checkRunID(s *scenarios.Scenario, runID string) error {
	if !idRE.MatchString(runID) {
		return usagef("run id %q: use letters, digits, '-' and '_'", runID)
	}
	if err := coordinator.CheckBundle(s.Output.Dir, runID); err != nil {
		return usageError{err}
	}
	return nil
}

// newRunID returns <name>-<UTC time>-<4 random hex digits>: sortable,
// and distinct for runs started in the same second.
func newRunID(name string) string {
	var b [2]byte
	_, _ = rand.Read(b[:])
	return fmt.Sprintf("%s-%s-%s", name, time.Now().UTC().Format("20060102T150405"), hex.EncodeToString(b[:]))
}
