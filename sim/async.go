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
	"github.com/consim/consim/consensus/metrics"
	"github.com/consim/consim/consensus/registry"
	"github.com/consim/consim/coordinator"
	"github.com/consim/consim/scenarios"
)

// runAsync runs an asynchronous scenario (async.mode simulated or
// realtime; docs/async.md): the event engine in simulated time, or a
// goroutine per agent on the scenario's transport in real time. Every
// async.every of simulated time, and at the horizon, the agents' reports
// are measured (metrics.Measure, the algorithm's declared measures) and
// written as a row of the bundle, with round the agents' updates so far
// and the columns of async.Sample (time, staleness) after the declared
// measures; the bundle has the layout of every run's.
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
	b, decls, err := openBundle(st, runID, async.SampleColumns...)
	if err != nil {
		return nil, err
	}
	defer b.close()
	sum := &coordinator.Summary{
		RunID:     runID,
		Agents:    s.Agents,
		StartedAt: started.UTC(),
		Params:    params(st.Resolved()),
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
		Bundle: b.dir,
	}
	if s.Async.Mode == scenarios.AsyncRealtime {
		sum.Meta["transport"] = s.Runtime.Transport
		sum.Meta["time_scale"] = s.Async.TimeScale.String()
	}
	start := time.Now()
	sum.ReadySeconds = start.Sub(started).Seconds()
	logger.Info("agents ready", "agents", s.Agents, "mode", s.Async.Mode, "startup_s", sum.ReadySeconds)
	var traffic struct{ msgs, values int64 }
	var last []consensus.Report
	cause := coordinator.StopRounds
	var same []consensus.Report
	measure := func(reps []consensus.Report, smp async.Sample) error {
		// The agents' reports count their own updates; the measures take
		// them as one sample.
		same = append(same[:0], reps...)
		for i := range same {
			same[i].Round = 0
		}
		m, err := metrics.Measure(prob, st.Graph, same)
		if err != nil {
			return err
		}
		if m.Extra, err = metrics.ReduceMeasures(decls, reps); err != nil {
			return err
		}
		m.Round = int(smp.Updates)
		for k, v := range smp.Values() {
			m.Extra = append(m.Extra, metrics.Named{Name: async.SampleColumns[k], Value: v})
		}
		traffic.msgs, traffic.values = smp.Sent, smp.Floats
		row := coordinator.Row{Metrics: m, Elapsed: time.Since(start), Msgs: smp.Sent, Bytes: 8 * smp.Floats}
		if err := b.append(row); err != nil {
			return err
		}
		if sum.Initial == nil {
			sum.Initial = &row
		}
		sum.Final, last = &row, reps
		sum.MeasuredRounds++
		if opts.Observe != nil {
			el := time.Since(start)
			opts.Observe(coordinator.Progress{Metrics: m, Elapsed: el, RoundsPerSec: float64(m.Round) / max(el.Seconds(), 1e-9)})
		}
		if bad := divergence(m.ConsensusErr, m.Feasibility, m.ObjValue); bad != "" {
			return fmt.Errorf("%w at time %v: %s", coordinator.ErrDiverged, smp.Time, bad)
		}
		if s.Metrics.Tolerance > 0 && m.ConsensusErr <= s.Metrics.Tolerance {
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
	if sum.Final != nil {
		sum.Rounds = sum.Final.Round
	}
	sum.WallSeconds = wall.Seconds()
	sum.RoundsPerSec = float64(sum.Rounds) / max(wall.Seconds(), 1e-9)
	sum.Traffic.MsgsSent, sum.Traffic.BytesSent = traffic.msgs, 8*traffic.values
	endStatus(sum, runErr, cause)
	if last != nil {
		if err := b.finalReports(runID, last); err != nil && runErr == nil {
			runErr = err
		}
	}
	if err := b.summary(sum); err != nil && runErr == nil {
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
