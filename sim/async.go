package sim

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/consim/consim/async"
	"github.com/consim/consim/async/realtime"
	"github.com/consim/consim/consensus"
	"github.com/consim/consim/consensus/registry"
	"github.com/consim/consim/coordinator"
	"github.com/consim/consim/observe"
	"github.com/consim/consim/observe/bundle"
	"github.com/consim/consim/scenarios"
)

// runAsync runs an asynchronous scenario (async.mode simulated or
// realtime; docs/async.md): the event engine in simulated time, or a
// goroutine per agent on the scenario's transport in real time. Every
// async.every of simulated time, and at the horizon, the agents' reports
// are measured (observe.Measure, the algorithm's declared measures) and
// recorded with the coordinator's Recorder into the one results bundle
// format (observe/bundle), with round the agents' updates so far and the
// columns of async.Sample (time, staleness) after the declared measures.
func runAsync(ctx context.Context, st *scenarios.Setup, runID string, opts Options, logger hclog.Logger) (*coordinator.Summary, error) {
	s := st.Scenario
	if _, ok := st.Run.(registry.Evaluator); ok {
		return nil, inputError{fmt.Errorf("async.mode %s: algorithm %s measures its run with its own evaluator, which an asynchronous run does not support", s.Async.Mode, s.Algorithm.Name)}
	}
	started := time.Now()
	up := newStartup(logger, started)
	agents, err := st.AsyncAgents()
	if err != nil {
		return nil, err
	}
	up.step("agents built")
	prob, err := st.Problem()
	if err != nil {
		return nil, err
	}
	up.step("central problem solved")
	var decls []consensus.Measure
	if m, ok := st.Run.(registry.Measurer); ok {
		decls = m.Measures()
	}
	names := make([]string, 0, len(decls)+len(async.SampleColumns))
	for _, d := range decls {
		names = append(names, d.Name)
	}
	resolved, err := s.Marshal()
	if err != nil {
		return nil, err
	}
	b, err := bundle.Create(s.Output.Dir, runID, resolved, append(names, async.SampleColumns...), false)
	if err != nil {
		return nil, err
	}
	defer b.Close()
	rec := coordinator.NewRecorder(b, coordinator.Config{ConsensusTol: s.Metrics.Tolerance, Progress: opts.Observe})
	sum := &coordinator.Summary{
		RunID:     runID,
		Agents:    s.Agents,
		StartedAt: started.UTC(),
		Params:    coordinator.ParamsOf(st.Resolved()),
		Meta: map[string]any{
			"scenario":   s.Name,
			"source":     s.Source(),
			"async_mode": s.Async.Mode,
			"horizon":    s.Async.Horizon,
			"seed":       s.Seed,
			"algorithm":  s.Algorithm.Name,
			"problem":    s.Problem.Kind,
			"f_star":     jsonNum(prob.FStar),
			"convex":     prob.Convex,
		},
		Bundle: b.Dir(),
	}
	if s.Async.Mode == scenarios.AsyncRealtime {
		sum.Meta["transport"] = s.Runtime.Transport
		sum.Meta["time_scale"] = s.Async.TimeScale.String()
	}
	start := time.Now()
	sum.ReadySeconds = start.Sub(started).Seconds()
	logger.Info("agents ready", "agents", s.Agents, "mode", s.Async.Mode, "startup_s", sum.ReadySeconds)
	var last []consensus.Report
	var same []consensus.Report
	cause := coordinator.StopRounds
	measure := func(reps []consensus.Report, smp async.Sample) error {
		// The agents' reports count their own updates; the measures take
		// them as one sample.
		same = append(same[:0], reps...)
		for i := range same {
			same[i].Round = 0
		}
		m, err := observe.Measure(prob, st.Graph, same)
		if err != nil {
			return err
		}
		if m.Extra, err = observe.ReduceMeasures(decls, reps); err != nil {
			return err
		}
		m.Round = int(smp.Updates)
		for k, v := range smp.Values() {
			m.Extra = append(m.Extra, observe.Named{Name: async.SampleColumns[k], Value: v})
		}
		sum.Traffic.MsgsSent, sum.Traffic.BytesSent = smp.Sent, 8*smp.Floats
		last = reps
		done, err := rec.Record(coordinator.Row{Metrics: m, Elapsed: time.Since(start), Msgs: smp.Sent, Bytes: 8 * smp.Floats})
		if err != nil {
			return err
		}
		if done {
			cause = coordinator.StopTolerance
			return realtime.ErrStop
		}
		return nil
	}
	var runErr error
	switch s.Async.Mode {
	case scenarios.AsyncSimulated:
		runErr = simulate(ctx, st, agents, measure)
	case scenarios.AsyncRealtime:
		runErr = liveRun(ctx, st, runID, agents, measure, logger)
	}
	if errors.Is(runErr, realtime.ErrStop) {
		runErr = nil
	}
	if ctx.Err() != nil && runErr != nil {
		cause = coordinator.StopInterrupted
	}
	wall := time.Since(start)
	rec.Summarize(sum)
	if sum.Final != nil {
		sum.Rounds = sum.Final.Round
	}
	sum.WallSeconds = wall.Seconds()
	sum.RoundsPerSec = float64(sum.Rounds) / max(wall.Seconds(), 1e-9)
	endStatus(sum, runErr, cause)
	if last != nil {
		f := bundle.FinalIterates{RunID: runID, Agents: make([]bundle.FinalIterate, len(last))}
		for i, r := range last {
			f.Agents[i] = bundle.FinalIterate{ID: i, Round: r.Round, Final: true, X: r.X}
		}
		if err := b.WriteFinal(f); err != nil && runErr == nil {
			runErr = err
		}
	}
	if err := b.Close(); err != nil && runErr == nil {
		runErr = err
	}
	if err := b.WriteSummary(sum); err != nil && runErr == nil {
		runErr = err
	}
	return sum, runErr
}

// simulate runs the agents on the event engine to the horizon, measuring
// every async.every and at the horizon.
func simulate(ctx context.Context, st *scenarios.Setup, agents []consensus.AsyncAgent, measure func([]consensus.Report, async.Sample) error) error {
	s := st.Scenario
	eng, err := async.New(agents, async.Options{Clock: s.AsyncClock(), Link: st.AsyncLink()})
	if err != nil {
		return err
	}
	reps := make([]consensus.Report, len(agents))
	for m := 0; ; m++ {
		t := math.Min(float64(m)*s.Async.Every, s.Async.Horizon)
		if err := eng.Run(t); err != nil {
			return err
		}
		for i := range reps {
			reps[i] = eng.Report(i)
		}
		if err := measure(reps, eng.Sample()); err != nil {
			return err
		}
		if t == s.Async.Horizon {
			return nil
		}
		if err := ctx.Err(); err != nil {
			return err
		}
	}
}

// liveRun runs the agents in real time on the scenario's transport.
func liveRun(ctx context.Context, st *scenarios.Setup, runID string, agents []consensus.AsyncAgent, measure func([]consensus.Report, async.Sample) error, logger hclog.Logger) error {
	s := st.Scenario
	tr, err := newTransport(s, runID, logger)
	if err != nil {
		return err
	}
	defer tr.Close()
	ctx, cancel := context.WithTimeout(ctx, time.Duration(s.Runtime.Timeout))
	defer cancel()
	res, err := realtime.Run(ctx, agents, tr, realtime.Config{
		Clock: s.AsyncClock(), Link: st.AsyncLink(), Scale: time.Duration(s.Async.TimeScale),
		Horizon: s.Async.Horizon, Every: s.Async.Every,
		Observe: func(reps []consensus.Report, smp async.Sample) error {
			return measure(reps, smp)
		},
	})
	logger.Info("real-time run ended", "samples", res.Samples, "messages", res.Sent, "lost", res.Lost, "malformed", res.Malformed, "late", res.Late)
	return err
}
