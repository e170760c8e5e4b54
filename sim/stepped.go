package sim

import (
	"context"
	"fmt"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/consensus/registry"
	"github.com/consim/consim/coordinator"
	"github.com/consim/consim/observe/bundle"
	"github.com/consim/consim/scenarios"
	"github.com/consim/consim/stepped"
)

// runStepped runs st on the stepped engine (runtime.transport: stepped):
// the agents are built and stepped on a pool of GOMAXPROCS workers, and
// every metrics.every rounds (and after the last) the workers reduce the
// measures (stepped.Engine.Measure); this goroutine records the rows with
// the coordinator's Recorder into the one results bundle format
// (observe/bundle: scenario.yaml, metrics.jsonl, metrics.csv, final.json,
// summary.json), which calls opts.Observe.
func runStepped(ctx context.Context, st *scenarios.Setup, runID string, opts Options, logger hclog.Logger) (*coordinator.Summary, error) {
	s := st.Scenario
	if _, ok := st.Run.(registry.Evaluator); ok {
		return nil, inputError{fmt.Errorf("transport %s: algorithm %s measures its run with its own evaluator; use chan, nats or nats-tcp", s.Runtime.Transport, s.Algorithm.Name)}
	}
	started := time.Now()
	up := newStartup(logger, started)
	agents := opts.Agents
	if agents == nil {
		var err error
		if agents, err = BuildAgents(st, 0, up.progress("agents built")); err != nil {
			return nil, err
		}
	}
	var oracle func(int) consensus.Oracle
	if or, ok := st.Run.(registry.Oracles); ok {
		oracle = or.Oracle
	}
	eng, err := stepped.New(agents, stepped.Options{Oracle: oracle})
	if err != nil {
		return nil, err
	}
	prob, err := st.Problem()
	if err != nil {
		return nil, err
	}
	up.step("central problem solved")
	ms := stepped.Measures{Graph: st.Graph, Problem: prob}
	if m, ok := st.Run.(registry.Measurer); ok {
		ms.Decls = m.Measures()
	}
	names := make([]string, len(ms.Decls))
	for k, d := range ms.Decls {
		names[k] = d.Name
	}
	resolved, err := s.Marshal()
	if err != nil {
		return nil, err
	}
	b, err := bundle.Create(s.Output.Dir, runID, resolved, names, false)
	if err != nil {
		return nil, err
	}
	defer b.Close()
	rec := coordinator.NewRecorder(b, coordinator.Config{Rounds: s.Rounds, ConsensusTol: s.Metrics.Tolerance, Progress: opts.Observe})

	sum := &coordinator.Summary{
		RunID:         runID,
		Agents:        s.Agents,
		RoundsPlanned: s.Rounds,
		ReportEvery:   s.Metrics.Every,
		StartedAt:     started.UTC(),
		Params:        coordinator.ParamsOf(st.Resolved()),
		Meta: map[string]any{
			"scenario":  s.Name,
			"source":    s.Source(),
			"transport": s.Runtime.Transport,
			"workers":   eng.Workers(),
			"seed":      s.Seed,
			"algorithm": s.Algorithm.Name,
			"problem":   s.Problem.Kind,
			"f_star":    jsonNum(prob.FStar),
			"convex":    prob.Convex,
		},
		Bundle: b.Dir(),
	}
	start := time.Now()
	sum.ReadySeconds = start.Sub(started).Seconds()
	logger.Info("agents ready", "agents", s.Agents, "workers", eng.Workers(), "startup_s", sum.ReadySeconds)
	measure := func() (bool, error) {
		m, err := eng.Measure(ms)
		if err != nil {
			return false, err
		}
		tr := eng.Traffic()
		return rec.Record(coordinator.Row{Metrics: m, Elapsed: time.Since(start), Msgs: tr.Msgs, Bytes: tr.Bytes})
	}
	t := 0
	cause := coordinator.StopRounds
	runErr := func() error {
		for ; ; t++ {
			if t%s.Metrics.Every == 0 || t == s.Rounds {
				done, err := measure()
				if err != nil {
					return err
				}
				if done {
					cause = coordinator.StopTolerance
					return nil
				}
			}
			if t == s.Rounds {
				return nil
			}
			if err := ctx.Err(); err != nil {
				cause = coordinator.StopInterrupted
				return err
			}
			if err := eng.Round(t); err != nil {
				return err
			}
		}
	}()
	wall := time.Since(start)
	sum.Rounds = t
	sum.WallSeconds = wall.Seconds()
	sum.RoundsPerSec = float64(t) / max(wall.Seconds(), 1e-9)
	tr := eng.Traffic()
	sum.Traffic.MsgsSent, sum.Traffic.BytesSent = tr.Msgs, tr.Bytes
	rec.Summarize(sum)
	endStatus(sum, runErr, cause)
	if err := b.WriteFinal(finalIterates(runID, eng.Agents())); err != nil && runErr == nil {
		runErr = err
	}
	if err := b.Close(); err != nil && runErr == nil {
		runErr = err
	}
	if err := b.WriteSummary(sum); err != nil && runErr == nil {
		runErr = err
	}
	return sum, runErr
}

// finalIterates is final.json of agents at the end of a stepped run.
func finalIterates(runID string, agents []consensus.Agent) bundle.FinalIterates {
	f := bundle.FinalIterates{RunID: runID, Agents: make([]bundle.FinalIterate, len(agents))}
	for i, a := range agents {
		r := a.Report()
		f.Agents[i] = bundle.FinalIterate{ID: i, Round: r.Round, Final: true, X: r.X}
	}
	return f
}
