package coordinator

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/internal/wallclock"
	"github.com/consim/consim/node"
	"github.com/hashicorp/go-hclog"
)

// testConfig is a config for a run of n agents in a fresh directory. Its
// timeouts are far beyond what any test waits for, so that a loaded
// machine cannot trip them (see clock_test.go); tests of the timeouts set
// their own.
func testConfig(t *testing.T, n int) Config {
	return Config{
		RunID: "r1", N: n, OutDir: t.TempDir(),
		ReadyTimeout: 10 * time.Minute, AgentTimeout: 10 * time.Minute,
	}
}

func readRows(t *testing.T, path string) []Row {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows []Row
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var r Row
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		rows = append(rows, r)
	}
	return rows
}

func readSummary(t *testing.T, cfg Config) Summary {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(cfg.OutDir, cfg.RunID, SummaryFile))
	if err != nil {
		t.Fatal(err)
	}
	var s Summary
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatalf("summary.json: %v", err)
	}
	return s
}

func kinds(cs []node.Control) []node.ControlKind {
	var out []node.ControlKind
	for _, c := range cs {
		out = append(out, c.Kind)
	}
	return out
}

func TestRunHappyPath(t *testing.T) {
	obs := newFakeObserver()
	s := sim{n: 3, rounds: 4, every: 2, interval: time.Millisecond}
	cfg := testConfig(t, 3)
	cfg.Rounds, cfg.ReportEvery = 4, 2
	cfg.Scenario = []byte("name: test\n")
	cfg.Meta = map[string]any{"transport": "chan", "seed": 7}
	var progress []int
	var flushed []int // rows on disk when each Progress call comes
	cfg.Progress = func(p Progress) {
		progress = append(progress, p.Metrics.Round)
		flushed = append(flushed, len(readRows(t, filepath.Join(cfg.OutDir, cfg.RunID, MetricsJSONFile))))
	}
	defer s.start(t, obs)()

	sum, err := Run(context.Background(), cfg, obs, fakeEvaluator{})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(cfg.OutDir, cfg.RunID)

	// Rounds 0, 2, 4 are measured once each, although round 4 is reported
	// twice (progress and final).
	rows := readRows(t, filepath.Join(dir, MetricsJSONFile))
	if len(rows) != 3 {
		t.Fatalf("metrics.jsonl has %d rows, want 3", len(rows))
	}
	for k, r := range rows {
		tr := 2 * k
		if r.Round != tr || r.ConsensusErr != 1/float64(1+tr) || r.GradEvals != int64(30*tr+3) {
			t.Errorf("row %d = round %d, consensus %v, grad evals %d; want %d, %v, %d", k, r.Round, r.ConsensusErr, r.GradEvals, tr, 1/float64(1+tr), 30*tr+3)
		}
		if want := 6 / float64(tr+1); math.Abs(r.Feasibility-want) > 1e-15 {
			t.Errorf("row %d feasibility = %v, want %v (sum of x_i)", k, r.Feasibility, want)
		}
		if (tr == 0) != math.IsNaN(r.OptGap) {
			t.Errorf("row %d opt gap = %v; want null only at round 0", k, r.OptGap)
		}
		// sum_i MsgsSent_i(t) = sum_i (100 t + i), and 800 t + i bytes.
		if r.Msgs != int64(300*tr+3) || r.Bytes != int64(2400*tr+3) {
			t.Errorf("row %d msgs %d bytes %d; want %d, %d", k, r.Msgs, r.Bytes, 300*tr+3, 2400*tr+3)
		}
		if k > 0 && r.Elapsed < rows[k-1].Elapsed {
			t.Errorf("row %d elapsed %v before row %d's %v", k, r.Elapsed, k-1, rows[k-1].Elapsed)
		}
	}
	if !reflect.DeepEqual(progress, []int{0, 2, 4}) {
		t.Errorf("progress rounds %v, want [0 2 4]", progress)
	}
	if !reflect.DeepEqual(flushed, []int{1, 2, 3}) {
		t.Errorf("rows on disk at each progress call %v, want [1 2 3]", flushed)
	}

	// The CSV has the fixed header and the same values.
	f, err := os.Open(filepath.Join(dir, MetricsCSVFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	header := []string{"round", "elapsed_s", "consensus_err", "consensus_err_rel", "obj_value", "opt_gap",
		"dist_to_opt", "feasibility", "grad_evals", "dual_drift",
		"msgs", "bytes"}
	if !reflect.DeepEqual(recs[0], header) {
		t.Fatalf("csv header %v, want %v", recs[0], header)
	}
	if len(recs) != 4 {
		t.Fatalf("csv has %d records, want header and 3 rows", len(recs))
	}
	for k, rec := range recs[1:] {
		if want := rows[k].CSVRecord(); !reflect.DeepEqual(rec, want) {
			t.Errorf("csv row %d = %v, jsonl row gives %v", k, rec, want)
		}
	}
	if recs[1][5] != "" {
		t.Errorf("round 0 opt_gap in csv = %q, want an empty field (missing)", recs[1][5])
	}

	if got, err := os.ReadFile(filepath.Join(dir, ScenarioFile)); err != nil || string(got) != "name: test\n" {
		t.Errorf("scenario.yaml = %q, %v", got, err)
	}

	got := readSummary(t, cfg)
	if got.Status != StatusOK || got.StopCause != StopRounds || got.Reason != "" {
		t.Errorf("status %q cause %q reason %q; want ok, rounds, no reason", got.Status, got.StopCause, got.Reason)
	}
	if got.Rounds != 4 || got.MeasuredRounds != 3 || got.Agents != 3 || got.RoundsPlanned != 4 || got.ReportEvery != 2 {
		t.Errorf("rounds %d measured %d agents %d planned %d every %d; want 4 3 3 4 2", got.Rounds, got.MeasuredRounds, got.Agents, got.RoundsPlanned, got.ReportEvery)
	}
	if got.Initial == nil || got.Final == nil || got.Initial.Round != 0 || got.Final.Round != 4 {
		t.Fatalf("initial %+v final %+v; want rounds 0 and 4", got.Initial, got.Final)
	}
	if r := got.Reduction.ConsensusErr; r == nil || math.Abs(*r-5) > 1e-12 {
		t.Errorf("consensus_err reduction %v, want 1/(1/5) = 5", r)
	}
	if got.Reduction.OptGap != nil {
		t.Errorf("opt_gap reduction %v with an unknown initial gap, want absent", *got.Reduction.OptGap)
	}
	// Latest traffic per agent is that of its final status at round 4.
	wantTraffic := TrafficTotals{
		MsgsSent: 1200 + 3, BytesSent: 3*3200 + 3, MsgsRecv: 3 * 360, BytesRecv: 3 * 2880,
		Dropouts: 12, Late: 3, DropoutsByEdge: map[string]int64{"0-1": 4, "1-2": 4, "0-2": 4},
	}
	if !reflect.DeepEqual(got.Traffic, wantTraffic) {
		t.Errorf("traffic %+v, want %+v", got.Traffic, wantTraffic)
	}
	if got.Meta["transport"] != "chan" || got.Meta["seed"] != 7.0 {
		t.Errorf("meta %v", got.Meta)
	}
	if got.WallSeconds <= 0 || got.RoundsPerSec <= 0 || got.Bundle != dir {
		t.Errorf("wall %v rounds/s %v bundle %q", got.WallSeconds, got.RoundsPerSec, got.Bundle)
	}
	if sum.Rounds != got.Rounds || sum.Status != got.Status {
		t.Errorf("returned summary %+v differs from summary.json %+v", sum, got)
	}
	if k := kinds(obs.sentControls()); !reflect.DeepEqual(k, []node.ControlKind{node.ControlStart}) {
		t.Errorf("controls %v, want only start", k)
	}
}

func TestRunRefusesExistingBundle(t *testing.T) {
	obs := newFakeObserver()
	cfg := testConfig(t, 2)
	dir := filepath.Join(cfg.OutDir, cfg.RunID)
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	old := filepath.Join(dir, MetricsCSVFile)
	if err := os.WriteFile(old, []byte("earlier\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sum, err := Run(context.Background(), cfg, obs, fakeEvaluator{})
	if !errors.Is(err, ErrBundleExists) || !strings.Contains(err.Error(), dir) {
		t.Fatalf("err = %v, want ErrBundleExists naming %s", err, dir)
	}
	if sum != nil {
		t.Errorf("summary %+v, want nil", sum)
	}
	if b, _ := os.ReadFile(old); string(b) != "earlier\n" {
		t.Errorf("earlier output rewritten: %q", b)
	}
	if _, err := os.Stat(filepath.Join(dir, SummaryFile)); !os.IsNotExist(err) {
		t.Errorf("summary.json written into the earlier bundle: %v", err)
	}
	if k := kinds(obs.sentControls()); !reflect.DeepEqual(k, []node.ControlKind{node.ControlStop}) {
		t.Errorf("controls %v, want stop", k)
	}
}

func TestRunRejectsConfig(t *testing.T) {
	tests := []struct {
		name string
		edit func(*Config)
	}{
		{"empty id", func(c *Config) { c.RunID = "" }},
		{"dot dot", func(c *Config) { c.RunID = ".." }},
		{"path", func(c *Config) { c.RunID = "a/b" }},
		{"no agents", func(c *Config) { c.N = 0 }},
		{"no out dir", func(c *Config) { c.OutDir = "" }},
		{"negative timeout", func(c *Config) { c.AgentTimeout = -time.Second }},
		{"NaN tolerance", func(c *Config) { c.ConsensusTol = math.NaN() }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := testConfig(t, 2)
			tc.edit(&cfg)
			sum, err := Run(context.Background(), cfg, newFakeObserver(), fakeEvaluator{})
			if err == nil || sum != nil {
				t.Fatalf("Run = %v, %v; want an error", sum, err)
			}
		})
	}
}

func TestRunSilentAgent(t *testing.T) {
	obs := newFakeObserver()
	s := sim{n: 3, rounds: 100000, every: 1, interval: 2 * time.Millisecond, silentAfter: map[int]int{2: 0}}
	cfg := testConfig(t, 3)
	// Long beside the 2 ms between the live agents' reports, so that a
	// loaded machine does not silence one of them as long.
	cfg.AgentTimeout = time.Second
	defer s.start(t, obs)()

	begin := time.Now()
	_, err := Run(context.Background(), cfg, obs, fakeEvaluator{})
	took := time.Since(begin)
	var ae *AgentError
	if !errors.Is(err, ErrUnresponsive) || !errors.As(err, &ae) || ae.ID != 2 || ae.Round != 0 {
		t.Fatalf("err = %v, want agent 2 unresponsive after round 0", err)
	}
	if !strings.Contains(err.Error(), "agent 2 stopped answering (last status at round 0, ") {
		t.Errorf("err = %q does not name agent 2 and its last round", err)
	}
	if ae.Silent <= cfg.AgentTimeout {
		t.Errorf("silent for %v, not longer than the agent timeout %v", ae.Silent, cfg.AgentTimeout)
	}
	// Detection takes AgentTimeout plus a check period; the rest is slack
	// for a loaded machine.
	wallclock.Bound(t, "naming a silent agent (agent timeout "+cfg.AgentTimeout.String()+")", took, cfg.AgentTimeout+3*time.Second)
	got := readSummary(t, cfg)
	if got.Status != StatusFailed || got.StopCause != StopUnresponsive || !strings.Contains(got.Reason, "agent 2") {
		t.Errorf("summary status %q cause %q reason %q; want failed naming agent 2", got.Status, got.StopCause, got.Reason)
	}
	if len(got.Faults) != 1 || got.Faults[0].Agent != 2 || got.Faults[0].Kind != "unresponsive" {
		t.Errorf("faults %+v, want agent 2 unresponsive", got.Faults)
	}
	if k := kinds(obs.sentControls()); !reflect.DeepEqual(k, []node.ControlKind{node.ControlStart, node.ControlStop}) {
		t.Errorf("controls %v, want start, stop", k)
	}
	// Only round 0 was reported by all three agents.
	if got.MeasuredRounds != 1 || got.Final == nil || got.Final.Round != 0 {
		t.Errorf("measured %d rounds, final %+v; want only round 0", got.MeasuredRounds, got.Final)
	}
}

func TestRunFailedAgent(t *testing.T) {
	obs := newFakeObserver()
	s := sim{n: 3, rounds: 100000, every: 1, interval: time.Millisecond, failAt: map[int]int{1: 5}}
	cfg := testConfig(t, 3)
	defer s.start(t, obs)()

	_, err := Run(context.Background(), cfg, obs, fakeEvaluator{})
	var ae *AgentError
	if !errors.Is(err, ErrAgentFailed) || !errors.As(err, &ae) || ae.ID != 1 || ae.Msg != "x diverged" || ae.Round != 4 {
		t.Fatalf("err = %v, want agent 1 failed after round 4 with its message", err)
	}
	if !strings.Contains(err.Error(), "agent 1 failed") || !strings.Contains(err.Error(), "x diverged") {
		t.Errorf("err = %q does not name agent 1 and its message", err)
	}
	got := readSummary(t, cfg)
	if got.Status != StatusFailed || got.StopCause != StopAgentFailed {
		t.Errorf("summary status %q cause %q; want failed, agent_failed", got.Status, got.StopCause)
	}
	if len(got.Faults) != 1 || got.Faults[0] != (Fault{Agent: 1, Kind: "failed", Round: 4, Message: "x diverged"}) {
		t.Errorf("faults %+v, want agent 1 failed", got.Faults)
	}
	if k := kinds(obs.sentControls()); !reflect.DeepEqual(k, []node.ControlKind{node.ControlStart, node.ControlStop}) {
		t.Errorf("controls %v, want start, stop", k)
	}
	if got.Final == nil || got.Final.Round != 4 {
		t.Errorf("final %+v, want round 4 (the last one agent 1 reported)", got.Final)
	}
}

func TestRunReadyTimeout(t *testing.T) {
	obs := newFakeObserver()
	s := sim{n: 4, rounds: 2, every: 1, interval: time.Millisecond, notReady: map[int]bool{1: true, 3: true}}
	cfg := testConfig(t, 4)
	cfg.ReadyTimeout = time.Second // agents 0 and 2 are ready well within it, however loaded the machine
	defer s.start(t, obs)()

	_, err := Run(context.Background(), cfg, obs, fakeEvaluator{})
	if !errors.Is(err, ErrNotReady) || !strings.Contains(err.Error(), "missing 1, 3") {
		t.Fatalf("err = %v, want ErrNotReady listing agents 1, 3", err)
	}
	got := readSummary(t, cfg)
	if got.Status != StatusFailed || got.StopCause != StopNotReady || !strings.Contains(got.Reason, "1, 3") {
		t.Errorf("summary status %q cause %q reason %q", got.Status, got.StopCause, got.Reason)
	}
	if k := kinds(obs.sentControls()); !reflect.DeepEqual(k, []node.ControlKind{node.ControlStop}) {
		t.Errorf("controls %v, want stop without start", k)
	}
}

func TestRunToleranceStop(t *testing.T) {
	obs := newFakeObserver()
	s := sim{n: 2, rounds: 100000, every: 1, interval: time.Millisecond}
	cfg := testConfig(t, 2)
	cfg.ConsensusTol = 1e-3
	defer s.start(t, obs)()

	ev := fakeEvaluator{consensus: func(t int) float64 { return math.Pow(10, -float64(t)) }}
	sum, err := Run(context.Background(), cfg, obs, ev)
	if err != nil {
		t.Fatal(err)
	}
	cs := obs.sentControls()
	if k := kinds(cs); !reflect.DeepEqual(k, []node.ControlKind{node.ControlStart, node.ControlStop}) {
		t.Fatalf("controls %v, want start, stop", k)
	}
	if !strings.Contains(cs[1].Reason, "tolerance reached at round 3") {
		t.Errorf("stop reason %q, want tolerance at round 3", cs[1].Reason)
	}
	if sum.Status != StatusOK || sum.StopCause != StopTolerance {
		t.Errorf("status %q cause %q, want ok, tolerance", sum.Status, sum.StopCause)
	}
	// Agents finish the round in progress, so a few more rounds may come.
	if sum.Final == nil || sum.Final.Round < 3 || sum.Final.Round > 100 {
		t.Errorf("final %+v, want a round just past 3", sum.Final)
	}
	rows := readRows(t, filepath.Join(cfg.OutDir, cfg.RunID, MetricsJSONFile))
	for k, r := range rows {
		if r.Round != k {
			t.Fatalf("row %d is round %d", k, r.Round)
		}
	}
}

func TestRunCountsMalformedStatuses(t *testing.T) {
	bad := func(st node.Status) []byte {
		b, err := node.EncodeStatus(st)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	obs := newFakeObserver()
	s := sim{n: 2, rounds: 2, every: 1, interval: time.Millisecond, junk: [][]byte{
		[]byte("{"),
		[]byte(`{"kind":"bogus","id":0}`),
		bad(node.Status{Kind: node.StatusProgress, ID: 7}),
		bad(node.Status{Kind: node.StatusProgress, ID: 1, Report: sim{}.report(0, 0)}),
		bad(node.Status{Kind: node.StatusProgress, ID: 0, Report: consensus.Report{ID: 0, Round: -1}}),
	}}
	cfg := testConfig(t, 2)
	defer s.start(t, obs)()

	sum, err := Run(context.Background(), cfg, obs, fakeEvaluator{})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Traffic.StatusMalformed != 5 {
		t.Errorf("status_malformed = %d, want 5", sum.Traffic.StatusMalformed)
	}
	if got := readSummary(t, cfg); got.Traffic.StatusMalformed != 5 || got.MeasuredRounds != 3 {
		t.Errorf("summary.json: status_malformed %d measured %d, want 5 and 3", got.Traffic.StatusMalformed, got.MeasuredRounds)
	}
}

func TestRunTimeout(t *testing.T) {
	obs := newFakeObserver()
	s := sim{n: 2, rounds: 100000, every: 1, interval: time.Millisecond}
	cfg := testConfig(t, 2)
	cfg.Timeout = 100 * time.Millisecond
	defer s.start(t, obs)()

	sum, err := Run(context.Background(), cfg, obs, fakeEvaluator{})
	if !errors.Is(err, ErrTimeout) {
		t.Fatalf("err = %v, want ErrTimeout", err)
	}
	if sum.Status != StatusFailed || sum.StopCause != StopTimeout {
		t.Errorf("status %q cause %q, want failed, timeout", sum.Status, sum.StopCause)
	}
	if k := kinds(obs.sentControls()); !reflect.DeepEqual(k, []node.ControlKind{node.ControlStart, node.ControlStop}) {
		t.Errorf("controls %v, want start, stop", k)
	}
	if len(sum.Faults) != 0 {
		t.Errorf("faults %+v: the agents answered the stop", sum.Faults)
	}
}

func TestRunEvaluatorError(t *testing.T) {
	obs := newFakeObserver()
	s := sim{n: 2, rounds: 100000, every: 1, interval: time.Millisecond}
	cfg := testConfig(t, 2)
	defer s.start(t, obs)()

	sum, err := Run(context.Background(), cfg, obs, fakeEvaluator{fail: 3})
	if err == nil || !strings.Contains(err.Error(), "measure round 3: evaluator broke") {
		t.Fatalf("err = %v, want the evaluator's error at round 3", err)
	}
	if sum.StopCause != StopError || sum.MeasuredRounds != 3 {
		t.Errorf("cause %q measured %d, want error after 3 rows", sum.StopCause, sum.MeasuredRounds)
	}
}

func TestRunInterrupted(t *testing.T) {
	obs := newFakeObserver()
	s := sim{n: 2, rounds: 100000, every: 1, interval: time.Millisecond}
	cfg := testConfig(t, 2)
	defer s.start(t, obs)()

	ctx, cancel := context.WithCancel(context.Background())
	cfg.Progress = func(p Progress) {
		if p.Metrics.Round == 2 {
			cancel()
		}
	}
	sum, err := Run(ctx, cfg, obs, fakeEvaluator{})
	if !errors.Is(err, context.Canceled) || sum.StopCause != StopInterrupted {
		t.Fatalf("err = %v, cause %q; want context.Canceled, interrupted", err, sum.StopCause)
	}
	if got := readSummary(t, cfg); got.Status != StatusFailed {
		t.Errorf("summary status %q, want failed", got.Status)
	}
}

func TestRunAgentIgnoresStop(t *testing.T) {
	obs := newFakeObserver()
	cfg := testConfig(t, 2)
	cfg.ConsensusTol = 10          // met at round 0
	cfg.AgentTimeout = time.Second // agent 0's final status comes well within it
	send := func(st node.Status) {
		b, err := node.EncodeStatus(st)
		if err != nil {
			t.Error(err)
			return
		}
		obs.statuses <- b
	}
	s := sim{n: 2}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		send(node.Status{Kind: node.StatusReady, ID: 0})
		send(node.Status{Kind: node.StatusReady, ID: 1})
		<-obs.controls // start
		send(s.status(node.StatusProgress, 0, 0))
		send(s.status(node.StatusProgress, 1, 0))
		<-obs.controls // stop
		send(s.status(node.StatusFinal, 0, 0))
		// Agent 1 keeps reporting and never sends its final status.
		for r := 1; ; r++ {
			select {
			case <-ctx.Done():
				return
			case <-time.After(5 * time.Millisecond):
				send(s.status(node.StatusProgress, 1, r))
			}
		}
	}()
	defer func() { cancel(); <-done }()

	sum, err := Run(context.Background(), cfg, obs, fakeEvaluator{})
	if !errors.Is(err, ErrUnresponsive) || !strings.Contains(err.Error(), "agent 1 sent no final status") {
		t.Fatalf("err = %v, want agent 1 named for not finishing after stop", err)
	}
	if len(sum.Faults) != 1 || sum.Faults[0].Agent != 1 || sum.Faults[0].Kind != "unresponsive" {
		t.Errorf("faults %+v, want agent 1 unresponsive", sum.Faults)
	}
	if sum.Status != StatusFailed || sum.StopCause != StopUnresponsive || sum.MeasuredRounds != 1 {
		t.Errorf("status %q cause %q measured %d", sum.Status, sum.StopCause, sum.MeasuredRounds)
	}
}

// TestRunDiverged: a measured round whose consensus error is NaN, or
// beyond the bound, ends the run as diverged, naming the round and the
// measure, with the row written.
func TestRunDiverged(t *testing.T) {
	for _, c := range []struct {
		name string
		v    float64
		want string
	}{{"nan", math.NaN(), "consensus_err is NaN"}, {"blow-up", 1e60, "consensus_err = 1e+60 is beyond 1e+50"}} {
		t.Run(c.name, func(t *testing.T) {
			obs := newFakeObserver()
			s := sim{n: 2, rounds: 100000, every: 1, interval: time.Millisecond}
			cfg := testConfig(t, 2)
			defer s.start(t, obs)()
			ev := fakeEvaluator{consensus: func(r int) float64 {
				if r >= 3 {
					return c.v
				}
				return 1
			}}
			_, err := Run(context.Background(), cfg, obs, ev)
			if !errors.Is(err, ErrDiverged) || !strings.Contains(err.Error(), "round 3") || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want ErrDiverged at round 3: %s", err, c.want)
			}
			got := readSummary(t, cfg)
			if got.Status != StatusDiverged || got.StopCause != StopDiverged || got.Final == nil || got.Final.Round != 3 {
				t.Errorf("summary status %q cause %q final %+v; want diverged at round 3", got.Status, got.StopCause, got.Final)
			}
		})
	}
}

func TestIDsListsTwentyThenCounts(t *testing.T) {
	if got := ids([]int{1, 3}); got != "1, 3" {
		t.Errorf("ids(1, 3) = %q", got)
	}
	long := make([]int, 20_000)
	for k := range long {
		long[k] = k
	}
	got := ids(long)
	if want := "0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19 and 19980 more (20000 in all)"; got != want {
		t.Errorf("ids of 20,000 agents = %q, want %q", got, want)
	}
}

func TestFurtherFailuresSummarized(t *testing.T) {
	var buf bytes.Buffer
	r := &run{obs: newFakeObserver(), log: hclog.New(&hclog.LoggerOptions{Output: &buf, Level: hclog.Warn})}
	for k := range 1 + loggedFailures + 500 {
		r.fail(StopLost, fmt.Errorf("agent %d lost", k))
	}
	r.logFurther()
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if want := 1 + loggedFailures + 1; len(lines) != want {
		t.Fatalf("%d log lines for 511 failures, want %d:\n%s", len(lines), want, buf.String())
	}
	if last := lines[len(lines)-1]; !strings.Contains(last, "count=500") || !strings.Contains(last, "agent 510 lost") {
		t.Errorf("summary line %q: want count=500 and the last failure", last)
	}
	if !strings.Contains(lines[0], "agent 0 lost") || r.cause != StopLost {
		t.Errorf("first line %q, cause %q: want the first failure", lines[0], r.cause)
	}
}

// TestReadyTimeoutCountsFromTheLatestReady: agents that become ready one
// every 300 ms, 1.5 s in all, are waited for with a ReadyTimeout of 1 s,
// since each ready status restarts it.
func TestReadyTimeoutCountsFromTheLatestReady(t *testing.T) {
	obs := newFakeObserver()
	s := sim{n: 5, rounds: 2, every: 1, interval: time.Millisecond, readyGap: 300 * time.Millisecond, readySent: make(chan time.Time, 5)}
	cfg := testConfig(t, 5)
	cfg.ReadyTimeout = time.Second
	begin := time.Now()
	defer s.start(t, obs)()
	if _, err := Run(context.Background(), cfg, obs, fakeEvaluator{}); err != nil {
		// A loaded machine may hold a ready status back longer than the
		// timeout: then timing out was right, and the test says so.
		last, gap := begin, time.Duration(0)
		for len(s.readySent) > 0 {
			at := <-s.readySent
			gap, last = max(gap, at.Sub(last)), at
		}
		if gap = max(gap, time.Since(last)); gap >= cfg.ReadyTimeout {
			t.Skipf("a loaded machine held a ready status back %v, beyond the ready timeout %v: %v", gap, cfg.ReadyTimeout, err)
		}
		t.Fatalf("agents kept becoming ready within the timeout: %v", err)
	}
	if got := readSummary(t, cfg); got.Status != StatusOK {
		t.Errorf("summary status %q cause %q reason %q, want ok", got.Status, got.StopCause, got.Reason)
	}
}
