package sim

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/consensus/registry"
	"github.com/consim/consim/coordinator"
	"github.com/consim/consim/scenarios"
	"github.com/consim/consim/stepped"
)

// runStepped runs st on the stepped engine (runtime.transport: stepped):
// the agents are built and stepped on a pool of GOMAXPROCS workers, and
// every metrics.every rounds (and after the last) the workers reduce the
// measures (stepped.Engine.Measure); this goroutine writes the bundle
// (scenario.yaml, metrics.jsonl, metrics.csv, final.json, summary.json)
// as the coordinator does, and calls opts.Observe.
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
	ms := stepped.Measures{Graph: st.Graph, FStar: prob.FStar, XStar: prob.XStar}
	if l, ok := st.Env.Problem.(registry.Locals); ok {
		ms.Local = l.Local
	}
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
	b, err := newSteppedBundle(s.Output.Dir, runID, resolved, names)
	if err != nil {
		return nil, err
	}
	defer b.close()

	sum := &coordinator.Summary{
		RunID:         runID,
		Agents:        s.Agents,
		RoundsPlanned: s.Rounds,
		ReportEvery:   s.Metrics.Every,
		StartedAt:     started.UTC(),
		Params:        params(st.Resolved()),
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
			"f_star_is": fstarName(st.Env.Problem, prob.Convex),
		},
		Bundle: b.dir,
	}
	start := time.Now()
	sum.ReadySeconds = start.Sub(started).Seconds()
	logger.Info("agents ready", "agents", s.Agents, "workers", eng.Workers(), "startup_s", sum.ReadySeconds)
	measure := func(t int) (bool, error) {
		m, err := eng.Measure(ms)
		if err != nil {
			return false, err
		}
		tr := eng.Traffic()
		row := coordinator.Row{Metrics: m, Elapsed: time.Since(start), Msgs: tr.Msgs, Bytes: tr.Bytes}
		if err := b.append(row); err != nil {
			return false, err
		}
		if sum.Initial == nil {
			sum.Initial = &row
		}
		sum.Final = &row
		sum.MeasuredRounds++
		if opts.Observe != nil {
			el := row.Elapsed
			opts.Observe(coordinator.Progress{Metrics: m, Rounds: s.Rounds, Elapsed: el, RoundsPerSec: float64(t) / max(el.Seconds(), 1e-9), Msgs: row.Msgs, Bytes: row.Bytes})
		}
		if bad := divergence(m.ConsensusErr, m.Feasibility, m.ObjValue); bad != "" {
			return false, fmt.Errorf("%w at round %d: %s", coordinator.ErrDiverged, t, bad)
		}
		return s.Metrics.Tolerance > 0 && m.ConsensusErr <= s.Metrics.Tolerance, nil
	}
	t := 0
	cause := coordinator.StopRounds
	runErr := func() error {
		for ; ; t++ {
			if t%s.Metrics.Every == 0 || t == s.Rounds {
				done, err := measure(t)
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
	sum.Status, sum.StopCause = coordinator.StatusOK, cause
	switch {
	case errors.Is(runErr, coordinator.ErrDiverged):
		sum.Status, sum.StopCause, sum.Reason = coordinator.StatusDiverged, coordinator.StopDiverged, runErr.Error()
	case runErr != nil && cause == coordinator.StopInterrupted:
		sum.Status, sum.Reason = coordinator.StatusFailed, runErr.Error()
	case runErr != nil:
		sum.Status, sum.StopCause, sum.Reason = coordinator.StatusFailed, coordinator.StopError, runErr.Error()
	}
	if err := b.final(runID, eng.Agents()); err != nil && runErr == nil {
		runErr = err
	}
	if err := b.summary(sum); err != nil && runErr == nil {
		runErr = err
	}
	return sum, runErr
}

// divergence names the first measure that is NaN, infinite or beyond
// coordinator.DefaultDivergeBound (an unknown objective, NaN, is not
// divergence), or returns "".
func divergence(consensusErr, feasibility, obj float64) string {
	bound := coordinator.DefaultDivergeBound
	for _, q := range []struct {
		name string
		v    float64
		nan  bool
	}{{"consensus_err", consensusErr, true}, {"feasibility", feasibility, true}, {"obj_value", obj, false}} {
		switch {
		case math.IsNaN(q.v) && q.nan:
			return q.name + " is NaN"
		case math.IsInf(q.v, 0) || math.Abs(q.v) > bound:
			return fmt.Sprintf("%s = %g is beyond %g", q.name, q.v, bound)
		}
	}
	return ""
}

// params converts the resolved values to the summary's form.
func params(vs []registry.Value) []coordinator.Param {
	ps := make([]coordinator.Param, len(vs))
	for i, v := range vs {
		ps[i] = coordinator.Param{Name: v.Name, Value: v.Value, Note: v.Note}
	}
	return ps
}

// steppedBundle is the results bundle of a stepped run, in the
// coordinator's file layout.
type steppedBundle struct {
	dir    string
	cols   []string
	jsonl  *os.File
	csvf   *os.File
	csvw   *csv.Writer
	closed bool
}

func newSteppedBundle(root, id string, scenario []byte, measures []string) (*steppedBundle, error) {
	if err := os.MkdirAll(root, 0o755); err != nil {
		return nil, fmt.Errorf("create results root: %w", err)
	}
	dir := filepath.Join(root, id)
	if err := os.Mkdir(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create results bundle %s: %w", dir, err)
	}
	b := &steppedBundle{dir: dir, cols: append(coordinator.Columns(), measures...)}
	if err := os.WriteFile(filepath.Join(dir, coordinator.ScenarioFile), scenario, 0o644); err != nil {
		return nil, fmt.Errorf("write scenario: %w", err)
	}
	var err error
	if b.jsonl, err = os.Create(filepath.Join(dir, coordinator.MetricsJSONFile)); err != nil {
		return nil, fmt.Errorf("create metrics: %w", err)
	}
	if b.csvf, err = os.Create(filepath.Join(dir, coordinator.MetricsCSVFile)); err != nil {
		b.jsonl.Close()
		return nil, fmt.Errorf("create metrics: %w", err)
	}
	b.csvw = csv.NewWriter(b.csvf)
	return b, b.writeCSV(b.cols)
}

func (b *steppedBundle) writeCSV(rec []string) error {
	if err := b.csvw.Write(rec); err != nil {
		return fmt.Errorf("write %s: %w", b.csvf.Name(), err)
	}
	b.csvw.Flush()
	return b.csvw.Error()
}

// append writes r as one line of metrics.jsonl and, column by column in
// the same order, of metrics.csv (null as an empty field).
func (b *steppedBundle) append(r coordinator.Row) error {
	line, err := r.MarshalJSON()
	if err != nil {
		return err
	}
	if _, err := b.jsonl.Write(append(line, '\n')); err != nil {
		return fmt.Errorf("write %s: %w", b.jsonl.Name(), err)
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(line, &fields); err != nil {
		return fmt.Errorf("metrics row: %w", err)
	}
	rec := make([]string, len(b.cols))
	for k, c := range b.cols {
		v := string(fields[c])
		if v == "null" {
			v = ""
		} else if u, err := strconv.Unquote(v); err == nil {
			v = u
		}
		rec[k] = v
	}
	return b.writeCSV(rec)
}

// final writes every agent's last iterate as final.json.
func (b *steppedBundle) final(runID string, agents []consensus.Agent) error {
	f := coordinator.FinalIterates{RunID: runID, Agents: make([]coordinator.FinalIterate, len(agents))}
	for i, a := range agents {
		r := a.Report()
		f.Agents[i] = coordinator.FinalIterate{ID: i, Round: r.Round, Final: true, X: r.X}
	}
	data, err := json.Marshal(f)
	if err != nil {
		return fmt.Errorf("encode final iterates: %w", err)
	}
	return os.WriteFile(filepath.Join(b.dir, coordinator.FinalFile), append(data, '\n'), 0o644)
}

func (b *steppedBundle) summary(s *coordinator.Summary) error {
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return fmt.Errorf("encode summary: %w", err)
	}
	return os.WriteFile(filepath.Join(b.dir, coordinator.SummaryFile), append(data, '\n'), 0o644)
}

func (b *steppedBundle) close() {
	if !b.closed {
		b.closed = true
		b.jsonl.Close()
		b.csvf.Close()
	}
}
