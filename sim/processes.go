package sim

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/consim/consim/coordinator"
	"github.com/consim/consim/node"
	"github.com/consim/consim/scenarios"
)

// ReadyRepeat is how often an agent process repeats its ready status
// until the coordinator's first control arrives (node.Options.ReadyRepeat).
const ReadyRepeat = time.Second

// DialObserver connects the coordinator of run runID of s to the NATS
// server at url, authenticating frames with key (nil: the run key of the
// environment, see node.EnvRunKeyFile); configure, if set, completes the
// connection's options: credentials, TLS files, the status stream. A
// connection that fails is an error wrapping ErrInput: the URL is input.
func DialObserver(s *scenarios.Scenario, url, runID string, key []byte, configure func(*node.NATSOptions) error, logger hclog.Logger) (*node.NATSTransport, node.Observer, error) {
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
		return nil, nil, inputError{fmt.Errorf("--nats %s: %w", RedactURL(url), err)}
	}
	obs, err := tr.Observer()
	if err != nil {
		tr.Close()
		return nil, nil, fmt.Errorf("connect coordinator: %w", err)
	}
	return tr, obs, nil
}

// CoordinateOptions configure Coordinate.
type CoordinateOptions struct {
	// ReadyTimeout is how long to wait for every agent's ready status.
	ReadyTimeout time.Duration
	// Lost, if not nil, delivers agents whose process a supervisor saw
	// exit.
	Lost <-chan coordinator.Lost
	// Logger receives the coordinator's logs (required).
	Logger hclog.Logger
	// Progress, if set, is called after each measured round.
	Progress func(coordinator.Progress)
	// Resume replays the statuses of a coordinator that died
	// (coordinator.Config.Resume).
	Resume bool
}

// Coordinate runs the coordinator of st over obs, a connection of tr,
// with the agents in separate processes. A connection the transport gave
// up on is named in the error.
func Coordinate(ctx context.Context, st *scenarios.Setup, runID string, tr *node.NATSTransport, obs node.Observer, o CoordinateOptions) (*coordinator.Summary, error) {
	cfg, ev, err := CoordinatorConfig(st, runID, o.Logger, o.Progress)
	if err != nil {
		return nil, err
	}
	// Each agent process loaded its own copy of the scenario: a run
	// starts only if they all hold this one.
	canonical, err := st.Scenario.Canonical()
	if err != nil {
		return nil, inputError{err}
	}
	cfg.ScenarioCheck = canonical
	cfg.ReadyTimeout = o.ReadyTimeout
	cfg.Lost = o.Lost
	cfg.Resume = o.Resume
	cfg.Meta["transport"] = string(node.TransportNATSTCP)
	cfg.Meta["mode"] = "processes"
	sum, err := coordinator.Run(ctx, cfg, obs, ev)
	if lost := tr.Lost(); lost != nil && err != nil {
		err = fmt.Errorf("%w (%w)", err, lost)
	}
	return sum, err
}

// RunCoordinator coordinates run runID of st, whose agents are processes
// (`consim node`, here or on other hosts), over the NATS server at url:
// it connects (DialObserver, with configure), calls dialed, coordinates
// (Coordinate) and, once the summary is written, deletes the run's status
// stream if it has one, since nothing will resume the run. A server
// without JetStream, or without the stream a resume needs, is an error
// wrapping ErrInput.
func RunCoordinator(ctx context.Context, st *scenarios.Setup, url, runID string, configure func(*node.NATSOptions) error, o CoordinateOptions, dialed func()) (*coordinator.Summary, error) {
	tr, obs, err := DialObserver(st.Scenario, url, runID, nil, configure, o.Logger)
	if errors.Is(err, node.ErrNoStatusStream) || errors.Is(err, node.ErrNoJetStream) {
		return nil, inputError{err}
	}
	if err != nil {
		return nil, err
	}
	defer tr.Close()
	if dialed != nil {
		dialed()
	}
	sum, err := Coordinate(ctx, st, runID, tr, obs, o)
	if r, ok := obs.(interface{ ReleaseStream() error }); ok && sum != nil {
		if rerr := r.ReleaseStream(); rerr != nil {
			o.Logger.Warn("status stream left on the server", "err", rerr)
		}
	}
	return sum, err
}

// RunAgent builds s and runs its agent id in this process over the NATS
// server at url, in run runID, until the last round or the coordinator's
// stop: what `consim node` does with the scenario file and overrides every
// process of the run is given. secure, if set, completes the connection's
// options (credentials, TLS files). An id outside the scenario and an
// invalid scenario are errors wrapping ErrInput.
func RunAgent(ctx context.Context, s *scenarios.Scenario, id int, url, runID string, secure func(*node.NATSOptions) error, logger hclog.Logger) error {
	if id >= s.Agents {
		return inputError{fmt.Errorf("--id %d: scenario %s has agents 0..%d", id, s.Name, s.Agents-1)}
	}
	st, err := s.Build()
	if errors.Is(err, scenarios.ErrInvalid) {
		return inputError{err}
	}
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
		ReconnectTimeout: st.Scenario.Runtime.AgentTimeout.Std(),
		Logger:           logger.Named("transport"),
		// One agent per process: the server delivers it only its frames.
		PerDestination: true,
	}
	if secure != nil {
		if err := secure(&nopts); err != nil {
			return err
		}
	}
	tr, err := node.NewNATSTransport(nopts)
	if err != nil {
		// Input, as for run and coordinator: the URL, or a key or
		// credentials file.
		return inputError{fmt.Errorf("agent %d: --nats %s: %w", id, RedactURL(url), err)}
	}
	defer tr.Close()
	ep, err := tr.Endpoint(id)
	if err != nil {
		return fmt.Errorf("agent %d: %w", id, err)
	}
	opts := NodeOptions(st, logger)
	// The coordinator refuses the run unless every process holds its
	// scenario (see Coordinate).
	if opts.Scenario, err = s.Canonical(); err != nil {
		return inputError{err}
	}
	// The coordinator may subscribe after this process starts (agents on
	// several hosts): repeat ready until its start arrives.
	opts.ReadyRepeat = ReadyRepeat
	runErr := node.Run(ctx, agent, ep, opts)
	if err := ep.Close(); err != nil {
		logger.Warn("closing the endpoint", "error", err)
	}
	if lost := tr.Lost(); lost != nil && runErr != nil {
		return fmt.Errorf("%w (%w)", runErr, lost)
	}
	return runErr
}

// RedactURL returns u with any password replaced by "REDACTED".
func RedactURL(u string) string {
	p, err := url.Parse(strings.TrimSpace(u))
	if err != nil || p.User == nil {
		return u
	}
	return p.Redacted()
}
