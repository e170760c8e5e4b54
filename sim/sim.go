// Package sim runs consim scenarios from Go: the library behind the
// consim command. Run takes a scenario (loaded from a file, or built in
// code with the user's own registered algorithms and problems), runs its
// agents as goroutines on the scenario's transport with the coordinator
// observing, writes the results bundle and returns the summary.
//
//	s, err := scenarios.Load("scenarios/quickstart.yaml")
//	...
//	res, err := sim.Run(ctx, s, sim.Options{Observe: func(p coordinator.Progress) { ... }})
//
// The same package runs a scenario with every agent as its own `consim
// node` process (Launch, over a supervisor that stops and reaps them),
// joins one agent process to a run (RunAgent) and coordinates a run whose
// agents are processes (DialObserver, Coordinate).
//
// sim imports scenarios, coordinator, node and the consensus packages; it
// must not import cmd.
package sim

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"regexp"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/consensus/registry"
	"github.com/consim/consim/coordinator"
	"github.com/consim/consim/node"
	"github.com/consim/consim/observe"
	"github.com/consim/consim/scenarios"
)

// ErrInput marks errors caused by the caller's input (a run id that cannot
// name subjects, an existing bundle, an unreachable NATS URL given by the
// caller), as opposed to a run that failed.
var ErrInput = errors.New("invalid input")

// inputError wraps an error caused by the caller's input: it reads as
// the error itself and matches ErrInput.
type inputError struct{ err error }

func (e inputError) Error() string        { return e.err.Error() }
func (e inputError) Unwrap() error        { return e.err }
func (e inputError) Is(target error) bool { return target == ErrInput }

// DefaultAgentGrace is how long agents may keep running after the
// coordinator has ended the run before they are cancelled.
const DefaultAgentGrace = 5 * time.Second

// Options of Run. The zero value runs with the defaults documented on
// each field.
type Options struct {
	// RunID names the run's bus subjects and its bundle directory; empty
	// generates <scenario name>-<UTC time>-<4 random hex digits>.
	RunID string
	// Logger receives structured logs; nil discards them.
	Logger hclog.Logger
	// Observe, if set, is called after each measured round with its
	// metrics, from the coordinator's goroutine: it must return quickly.
	Observe func(coordinator.Progress)
	// Agents, if set, are run instead of the scenario's own (they must be
	// Agents() of a Setup of the same scenario, possibly wrapped).
	Agents []consensus.Agent
	// AgentGrace is how long agents may keep running after the
	// coordinator has ended the run before they are cancelled (default
	// DefaultAgentGrace); one that ignores the cancellation is abandoned
	// after a second period.
	AgentGrace time.Duration
}

// Run builds s and runs it: every agent a goroutine of this process on
// the scenario's transport, the coordinator beside them. The summary is
// returned also when the run failed (with the error), when the
// coordinator got far enough to write one.
func Run(ctx context.Context, s *scenarios.Scenario, opts Options) (*coordinator.Summary, error) {
	st, err := s.Build()
	if err != nil {
		return nil, err
	}
	return RunSetup(ctx, st, opts)
}

// RunSetup runs a built scenario; see Run.
func RunSetup(ctx context.Context, st *scenarios.Setup, opts Options) (*coordinator.Summary, error) {
	s := st.Scenario
	logger := opts.Logger
	if logger == nil {
		logger = hclog.NewNullLogger()
	}
	grace := opts.AgentGrace
	if grace == 0 {
		grace = DefaultAgentGrace
	}
	runID := opts.RunID
	if runID == "" {
		runID = NewRunID(s.Name)
	}
	if err := CheckRunID(s, runID); err != nil {
		return nil, err
	}
	if s.Async.On() {
		return runAsync(ctx, st, runID, opts, logger)
	}
	if s.Runtime.Transport == scenarios.TransportStepped {
		return runStepped(ctx, st, runID, opts, logger)
	}
	agents := opts.Agents
	if agents == nil {
		var err error
		up := newStartup(logger, time.Now())
		if agents, err = BuildAgents(st, 1, up.progress("agents built")); err != nil {
			return nil, err
		}
	}
	tr, err := newTransport(s, runID, logger)
	if err != nil {
		return nil, err
	}
	defer tr.Close()
	obs, err := tr.Observer()
	if err != nil {
		return nil, fmt.Errorf("connect coordinator: %w", err)
	}
	cfg, ev, err := CoordinatorConfig(st, runID, logger, opts.Observe)
	if err != nil {
		return nil, err
	}

	agentCtx, cancelAgents := context.WithCancel(ctx)
	defer cancelAgents()
	agentsDone := make(chan error, 1)
	nopts := NodeOptions(st, logger)
	go func() { agentsDone <- node.RunAll(agentCtx, agents, tr, nopts) }()
	sum, runErr := coordinator.Run(ctx, cfg, obs, ev)
	// Nobody reads statuses any more: agents that still publish must not
	// wait for room (see node.ChanTransport).
	_ = obs.Close()

	// The coordinator has sent Stop if it ended early. Agents that do not
	// finish within the grace period are cancelled; one that ignores the
	// cancellation (a hung agent) is abandoned after a second period.
	var agentErr error
	select {
	case agentErr = <-agentsDone:
	case <-time.After(grace):
		cancelAgents()
		select {
		case agentErr = <-agentsDone:
		case <-time.After(grace):
			agentErr = fmt.Errorf("agents did not stop within %v of cancellation", 2*grace)
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

// CoordinatorConfig builds the coordinator's configuration and evaluator
// for a run of st: the central problem (with its optimum) is solved here,
// or the run's registry.Evaluator gives f* (see measurement), and the
// algorithm's resolved parameters go into the summary.
func CoordinatorConfig(st *scenarios.Setup, runID string, logger hclog.Logger, progress func(coordinator.Progress)) (coordinator.Config, coordinator.Evaluator, error) {
	s := st.Scenario
	meas, err := measurement(st)
	if err != nil {
		return coordinator.Config{}, nil, err
	}
	resolved, err := s.Marshal()
	if err != nil {
		return coordinator.Config{}, nil, err
	}
	decls := registry.MeasuresOf(st.Run)
	if err := observe.CheckMeasures(decls, coordinator.Columns()); err != nil {
		return coordinator.Config{}, nil, fmt.Errorf("algorithm %s: %w", s.Algorithm.Name, err)
	}
	reported := registry.Reported(decls)
	names := make([]string, 0, len(decls))
	for _, d := range decls {
		names = append(names, d.Name)
	}
	ev := coordinator.EvaluatorFunc(func(reps []consensus.Report) (observe.Metrics, error) {
		m, err := meas.measure(reps)
		if err != nil {
			return m, err
		}
		extra, err := observe.ReduceMeasures(reported, reps)
		m.Extra = inOrder(decls, extra, m.Extra)
		return m, err
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
		Params:       st.Resolved(),
		Measures:     names,
		Meta: map[string]any{
			"scenario":  s.Name,
			"source":    s.Source(),
			"transport": s.Runtime.Transport,
			"seed":      s.Seed,
			"algorithm": s.Algorithm.Name,
			"problem":   s.Problem.Kind,
			"f_star":    jsonNum(meas.fstar),
			"convex":    meas.convex,
		},
		Logger:   logger.Named("coordinator"),
		Progress: progress,
	}
	cfg.ContinueOnDeparture = s.Faults.ContinueOnDeparture()
	// Liveness, both ways, within runtime.agent_timeout (see NodeOptions).
	cfg.Heartbeat = node.HeartbeatPeriod(cfg.AgentTimeout)
	if a, ok := st.Run.(registry.Artefacter); ok {
		cfg.Artefacts = a.Artefacts
	}
	return cfg, ev, nil
}

// inOrder returns the values of the run's declared measures decls in
// declaration order: those the agents report from reported, the
// Evaluated ones from evaluated, each in its own order.
func inOrder(decls []consensus.Measure, reported, evaluated []observe.Named) []observe.Named {
	out := make([]observe.Named, 0, len(reported)+len(evaluated))
	for _, d := range decls {
		src := &reported
		if d.Evaluated {
			src = &evaluated
		}
		if len(*src) > 0 {
			out = append(out, (*src)[0])
			*src = (*src)[1:]
		}
	}
	return out
}

// measurer is how the coordinator measures a run: through the instance's
// Central problem (the consensus measures of observe.Measure), or through
// the run's registry.Evaluator when its agents hold different blocks or
// roles.
type measurer struct {
	fstar   float64
	convex  bool
	measure func(reps []consensus.Report) (observe.Metrics, error)
}

// measurement returns the measurer of st. A run that implements
// registry.Evaluator is measured by its Evaluation (observe.Evaluated),
// its Values in the columns of its Evaluated measures; the instance's
// Central is not called. Any other run is measured by observe.Measure
// against Central.
func measurement(st *scenarios.Setup) (measurer, error) {
	ev, ok := st.Run.(registry.Evaluator)
	if !ok {
		prob, err := st.Problem()
		if err != nil {
			return measurer{}, err
		}
		return measurer{fstar: prob.FStar, convex: prob.Convex, measure: func(reps []consensus.Report) (observe.Metrics, error) {
			return observe.Measure(prob, st.Graph, reps)
		}}, nil
	}
	fstar, convex, err := ev.Optimum()
	if err != nil {
		return measurer{}, fmt.Errorf("algorithm %s: optimum of problem %s: %w", st.Scenario.Algorithm.Name, st.Scenario.Problem.Kind, err)
	}
	cols := registry.Evaluated(registry.MeasuresOf(st.Run))
	return measurer{fstar: fstar, convex: convex, measure: func(reps []consensus.Report) (observe.Metrics, error) {
		e, err := ev.Evaluate(reps)
		if err != nil {
			return observe.Metrics{}, err
		}
		m, err := observe.Evaluated(e, cols, reps)
		if err != nil {
			return m, fmt.Errorf("algorithm %s: %w", st.Scenario.Algorithm.Name, err)
		}
		return m, nil
	}}, nil
}

// jsonNum is v, or nil (JSON null) when v is NaN or infinite, which
// JSON cannot encode: an unknown optimum.
func jsonNum(v float64) any {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return v
}

// NodeOptions are the runtime options of every agent of st: the
// scenario's rounds, deadlines and faults, the rebuild of an agent that
// crashes and loses its state, and the algorithm's oracles when its agents
// fan evaluations out.
func NodeOptions(st *scenarios.Setup, logger hclog.Logger) node.Options {
	s := st.Scenario
	o := node.Options{
		N:             s.Agents,
		Rounds:        s.Rounds,
		ReportEvery:   s.Metrics.Every,
		PhaseDeadline: s.Runtime.PhaseDeadline.Std(),
		Logger:        logger.Named("node"),
		Faults:        s.Faults.Node(s.Seed),
		Workers:       s.Runtime.Workers,
		// Heartbeats keep a slow agent live whatever metrics.every is; an
		// agent that hears nothing from its coordinator for
		// runtime.agent_timeout gives up.
		Heartbeat:          node.HeartbeatPeriod(s.Runtime.AgentTimeout.Std()),
		CoordinatorTimeout: s.Runtime.AgentTimeout.Std(),
	}
	o.Faults.Rebuild = st.Agent
	if or, ok := st.Run.(registry.Oracles); ok {
		o.Oracle = or.Oracle
	}
	return o
}

// idRE is what a run id may contain: it names NATS subjects and a
// directory.
var idRE = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

// CheckRunID rejects, before any agent starts, a run id that cannot name
// NATS subjects and a directory, or whose results bundle already exists.
// Its errors wrap ErrInput.
func CheckRunID(s *scenarios.Scenario, runID string) error {
	if err := CheckID("run id", runID); err != nil {
		return err
	}
	if err := coordinator.CheckBundle(s.Output.Dir, runID); err != nil {
		return inputError{err}
	}
	return nil
}

// CheckID rejects an id (what names it: "run id", "--sweep-id") that
// cannot name NATS subjects and a directory; its error wraps ErrInput.
func CheckID(what, id string) error {
	if !idRE.MatchString(id) {
		return inputError{fmt.Errorf("%s %q: use letters, digits, '-' and '_'", what, id)}
	}
	return nil
}

// NewRunID returns <name>-<UTC time>-<4 random hex digits>: sortable,
// and distinct for runs started in the same second.
func NewRunID(name string) string {
	var b [2]byte
	_, _ = rand.Read(b[:])
	return fmt.Sprintf("%s-%s-%s", name, time.Now().UTC().Format("20060102T150405"), hex.EncodeToString(b[:]))
}

// newTransport connects the transport of s for run runID.
func newTransport(s *scenarios.Scenario, runID string, logger hclog.Logger) (node.Transport, error) {
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
			err = inputError{err} // the URL given cannot be reached
		}
		return nil, err
	}
	return tr, nil
}
