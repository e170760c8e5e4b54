package scenarios_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/consim/consim/catalog"
	"github.com/consim/consim/consensus/registry"
	"github.com/consim/consim/internal/units"
	"github.com/consim/consim/scenarios"
	"github.com/consim/consim/sim"
)

const quickstart = "quickstart.yaml"

func TestParseByteSize(t *testing.T) {
	good := []struct {
		in   string
		want scenarios.ByteSize
	}{
		{"8GiB", 8 << 30},
		{"512MiB", 512 << 20},
		{"1000000", 1000000},
		{"1000000B", 1000000},
		{"1.5GB", 1500000000},
		{"2 KiB", 2048},
		{"8gib", 8 << 30},
		{"1TiB", 1 << 40},
		{".5KiB", 512},
	}
	for _, tc := range good {
		got, err := scenarios.ParseByteSize(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("ParseByteSize(%q) = %d, %v; want %d", tc.in, got, err, tc.want)
		}
	}
	bad := []struct{ in, want string }{
		{"8XB", `unknown unit "XB" (allowed: B, KB, MB, GB, TB, KiB, MiB, GiB, TiB)`},
		{"8G", `unknown unit "G"`},
		{"-1GiB", "is not a size"},
		{"GiB", "is not a size"},
		{"eight", "is not a size"},
		{"1.5B", "not a whole number of bytes"},
		{"9000000TiB", "too large"},
	}
	for _, tc := range bad {
		_, err := scenarios.ParseByteSize(tc.in)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseByteSize(%q) = %v; want an error containing %q", tc.in, err, tc.want)
		}
	}
}

func TestByteSizeStringRoundTrips(t *testing.T) {
	for _, b := range []scenarios.ByteSize{1, 1000000, 1024, 8 << 30, 1536 << 20, 3 << 40} {
		got, err := scenarios.ParseByteSize(b.String())
		if err != nil || got != b {
			t.Errorf("ParseByteSize(%q) = %d, %v; want %d", b.String(), got, err, b)
		}
	}
}

const minimalScenario = `agents: 4
graph: {topology: ring}
problem: {kind: least_squares, dim: 3}
algorithm: {name: alm}
rounds: 10
`

func TestMemoryLimitKey(t *testing.T) {
	for _, tc := range []struct {
		value string
		want  scenarios.ByteSize
	}{
		{"8GiB", 8 << 30},
		{"512MiB", 512 << 20},
		{"1073741824", 1 << 30},
		{`"2 GB"`, 2e9},
	} {
		s, err := scenarios.Parse([]byte(minimalScenario+"runtime: {memory_limit: "+tc.value+"}\n"), "x.yaml")
		if err != nil {
			t.Fatalf("memory_limit %s: %v", tc.value, err)
		}
		if s.Runtime.MemoryLimit != tc.want {
			t.Errorf("memory_limit %s = %d, want %d", tc.value, s.Runtime.MemoryLimit, tc.want)
		}
		if err := s.Validate(); err != nil {
			t.Errorf("memory_limit %s: %v", tc.value, err)
		}
		out, err := s.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		back, err := scenarios.Parse(out, "back.yaml")
		if err != nil || back.Runtime.MemoryLimit != tc.want {
			t.Errorf("memory_limit %s after Marshal:\n%s\nreads %v, %v", tc.value, out, back.Runtime.MemoryLimit, err)
		}
	}
	for _, tc := range []struct{ value, want string }{
		{"8 gigs", `x.yaml:6:25: runtime.memory_limit: "8 gigs": unknown unit "gigs" (allowed: B, KB, MB, GB, TB, KiB, MiB, GiB, TiB)`},
		{"1.5", `x.yaml:6:25: runtime.memory_limit: expected a size such as 8GiB, 512MiB or a number of bytes, got 1.5`},
		{"[8]", `x.yaml:6:25: runtime.memory_limit: expected a size such as 8GiB, 512MiB or a number of bytes, got`},
	} {
		_, err := scenarios.Parse([]byte(minimalScenario+"runtime: {memory_limit: "+tc.value+"}\n"), "x.yaml")
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("memory_limit %s: got %v, want %q", tc.value, err, tc.want)
		}
	}
	s, err := scenarios.Parse([]byte(minimalScenario+"runtime: {memory_limit: 0}\n"), "x.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Validate(); err == nil || !strings.Contains(err.Error(), "runtime.memory_limit: must be a size > 0 such as 8GiB, got 0") {
		t.Errorf("memory_limit 0: %v", err)
	}
	s, err = scenarios.Parse([]byte(minimalScenario), "x.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Set("runtime.memory_limit=3 TB"); err != nil || s.Runtime.MemoryLimit != 3e12 {
		t.Errorf("--set runtime.memory_limit=3 TB: %v, %d", err, s.Runtime.MemoryLimit)
	}
	if err := s.Set("runtime.memory_limit=3 terabytes"); err == nil || !strings.Contains(err.Error(), `unknown unit "terabytes"`) {
		t.Errorf("--set runtime.memory_limit=3 terabytes: %v", err)
	}
}

func TestEstimateQuickstart(t *testing.T) {
	s, err := scenarios.Load(quickstart)
	if err != nil {
		t.Fatal(err)
	}
	e, err := scenarios.EstimateMemory(s)
	if err != nil {
		t.Fatal(err)
	}
	// quickstart: 8 agents on a ring at p = 0.7, least squares in dim 10
	// with 50 rows per agent, ALM, 40000 rounds measured every 100, nats.
	if e.Agents != 8 || e.Dim != 10 || e.MeanDegree != 2 || e.MaxDegree != 2 {
		t.Errorf("agents %d dim %d degree %g/%g, want 8, 10, 2/2", e.Agents, e.Dim, e.MeanDegree, e.MaxDegree)
	}
	if e.DataFloats != 50*11 {
		t.Errorf("data values per agent %g, want 50 rows x (10 + 1)", e.DataFloats)
	}
	if e.QueuedRounds != 3 {
		t.Errorf("queued rounds %d, want ceil(1/0.7) + 1 = 3", e.QueuedRounds)
	}
	if e.MetricRows != 401 {
		t.Errorf("metric rows %d, want 40000/100 + 1", e.MetricRows)
	}
	vecs := float64(registry.DefaultVectorsPerAgent + 2*registry.DefaultVectorsPerNeighbor)
	if got, want := e.Part("vectors").Bytes, 8*10*8*vecs; got != want {
		t.Errorf("vectors %g bytes, want %g", got, want)
	}
	if got, want := e.Part("messages").Bytes, 8*2*(10*8+64)*3.0; got != want {
		t.Errorf("messages %g bytes, want %g", got, want)
	}
	if got, want := e.Part("data").Bytes, 8*550*8.0; got != want {
		t.Errorf("data %g bytes, want %g", got, want)
	}
	var sum float64
	for _, p := range e.Parts {
		if p.Bytes < 0 || p.Formula == "" {
			t.Errorf("part %+v", p)
		}
		sum += p.Bytes
	}
	if sum != e.Total {
		t.Errorf("total %g, parts sum to %g", e.Total, sum)
	}
	str := e.String()
	for _, want := range []string{"about 33.", "vectors: agents 8 x dim 10 x 8 bytes x 10 vectors = 6.25 KiB",
		"messages: agents 8 x degree 2 x (dim 10 x 8 + 64) bytes x 3 queued rounds", "data: agents 8 x 550 values x 8 bytes",
		"embedded NATS server"} {
		if !strings.Contains(str, want) {
			t.Errorf("estimate %q lacks %q", str, want)
		}
	}

	// The stepped engine queues one round and runs no server.
	if err := s.Set("runtime.transport=stepped"); err != nil {
		t.Fatal(err)
	}
	st, err := scenarios.EstimateMemory(s)
	if err != nil {
		t.Fatal(err)
	}
	if st.QueuedRounds != 1 || st.Total >= e.Total || strings.Contains(st.String(), "NATS") {
		t.Errorf("stepped: %d queued rounds, total %g (nats %g): %s", st.QueuedRounds, st.Total, e.Total, st)
	}
}

func TestEstimateDegrees(t *testing.T) {
	for _, tc := range []struct {
		sets      []string
		mean, max float64
	}{
		{[]string{"graph.topology=complete"}, 7, 7},
		{[]string{"graph.topology=path"}, 2 * 7.0 / 8, 2},
		{[]string{"graph.topology=star"}, 2 * 7.0 / 8, 7},
		{[]string{"agents=9", "graph.topology=torus", "graph.rows=3", "graph.cols=3"}, 4, 4},
		{[]string{"graph.topology=grid", "graph.rows=2", "graph.cols=4"}, 2 * 10.0 / 8, 4},
		{[]string{"graph.topology=erdos_renyi", "graph.q=0.5"}, 3.5, 7},
	} {
		s, err := scenarios.LoadWith(quickstart, tc.sets...)
		if err != nil {
			t.Fatal(err)
		}
		e, err := scenarios.EstimateMemory(s)
		if err != nil {
			t.Fatal(err)
		}
		if e.MeanDegree != tc.mean || e.MaxDegree != tc.max {
			t.Errorf("%v: degree %g/%g, want %g/%g", tc.sets, e.MeanDegree, e.MaxDegree, tc.mean, tc.max)
		}
	}
}

// hugeSets makes quickstart a run of 10^5 agents in dimension 10^9: its
// vectors alone are petabytes, and building it would allocate 8 GB per
// vector.
var hugeSets = []string{"agents=100000", "problem.dim=1000000000"}

func TestHugeScenarioRefusedBeforeAllocating(t *testing.T) {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := scenarios.LoadWith(quickstart, append(hugeSets, "runtime.memory_limit=16GiB")...)
	runtime.ReadMemStats(&after)
	if err == nil {
		t.Fatal("a scenario of 10^5 agents in dimension 10^9 validated under a 16 GiB limit")
	}
	if !errors.Is(err, scenarios.ErrInvalid) {
		t.Errorf("error %v is not ErrInvalid", err)
	}
	msg := err.Error()
	for _, want := range []string{
		"--set: runtime.memory_limit: scenario needs about ",
		"vectors: agents 100000 x dim 1e9 x 8 bytes x 10 vectors = 7.11 PiB",
		"messages: agents 100000 x degree 2 x (dim 1e9 x 8 + 64) bytes x 3 queued rounds",
		"data: agents 100000 x 5e10 values x 8 bytes",
		"more than the limit 16.0 GiB (runtime.memory_limit 16GiB; raise or lower with runtime.memory_limit or --memory-limit)",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("error lacks %q:\n%s", want, msg)
		}
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 64<<20 {
		t.Errorf("validation allocated %d bytes", grew)
	}

	// Without runtime.memory_limit the limit is the machine's memory.
	_, err = scenarios.LoadWith(quickstart, hugeSets...)
	s, _ := scenarios.Load(quickstart)
	if limit, src := s.MemoryLimit(); limit == 0 {
		if err == nil || !strings.Contains(err.Error(), "more than any machine holds") {
			t.Errorf("no memory limit known: %v", err)
		}
	} else if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("more than the limit %s (%s;", units.Bytes(float64(limit)), src)) {
		t.Errorf("physical limit %d (%s): %v", limit, src, err)
	}
}

func TestMemoryLimitOverride(t *testing.T) {
	// quickstart needs tens of MiB.
	_, err := scenarios.LoadWith(quickstart, "runtime.memory_limit=1MiB")
	if err == nil || !strings.Contains(err.Error(), "more than the limit 1.00 MiB (runtime.memory_limit 1MiB;") {
		t.Errorf("quickstart under 1 MiB: %v", err)
	}
	if _, err := scenarios.LoadWith(quickstart, "runtime.memory_limit=1GiB"); err != nil {
		t.Errorf("quickstart under 1 GiB: %v", err)
	}
	// 10^5 agents in dimension 10^5 need terabytes: refused under 1 TiB,
	// accepted (validation only) under 1 PiB.
	big := []string{"agents=100000", "problem.dim=100000"}
	if _, err := scenarios.LoadWith(quickstart, append(big, "runtime.memory_limit=1TiB")...); err == nil {
		t.Error("10^5 agents in dimension 10^5 validated under 1 TiB")
	}
	s, err := scenarios.LoadWith(quickstart, append(big, "runtime.memory_limit=1024TiB")...)
	if err != nil {
		t.Fatalf("under 1 PiB: %v", err)
	}
	if limit, src := s.MemoryLimit(); limit != 1<<50 || src != "runtime.memory_limit" {
		t.Errorf("MemoryLimit = %d, %q", limit, src)
	}
}

// fatParams is an algorithm's keys that declare their vectors, and
// sizedParams a problem's keys that declare the instance's size.
type fatParams struct{}

func (fatParams) Validate() error         { return nil }
func (fatParams) VectorsPerAgent() int    { return 100 }
func (fatParams) VectorsPerNeighbor() int { return 0 }

type sizedParams struct {
	Width int `yaml:"width"`
}

func (*sizedParams) Validate() error { return nil }
func (p *sizedParams) Size(n int) registry.ProblemSize {
	return registry.ProblemSize{Dim: p.Width, Floats: float64(1000 * p.Width / n)}
}

func TestEstimateAsksTheRegistry(t *testing.T) {
	reg := catalog.Default()
	noRun := func(registry.Params, *registry.Env) (registry.Run, error) { return nil, errors.New("not built") }
	if err := reg.RegisterAlgorithm(registry.Algorithm{Name: "fat", New: func() registry.Params { return &fatParams{} }, Build: noRun}); err != nil {
		t.Fatal(err)
	}
	noInst := func(registry.Params, registry.ProblemEnv) (registry.Instance, error) {
		return nil, errors.New("not built")
	}
	if err := reg.RegisterProblem(registry.Problem{Kind: "sized", New: func() registry.Params { return &sizedParams{Width: 1} }, Build: noInst}); err != nil {
		t.Fatal(err)
	}
	s, err := scenarios.ParseWith(reg, []byte(`agents: 4
graph: {topology: ring}
problem: {kind: sized, width: 7}
algorithm: {name: fat}
rounds: 10
runtime: {transport: stepped}
`), "x.yaml")
	if err != nil {
		t.Fatal(err)
	}
	e, err := scenarios.EstimateMemory(s)
	if err != nil {
		t.Fatal(err)
	}
	if e.Dim != 7 || e.VectorsPerAgent != 100 || e.VectorsPerNeighbor != 0 || e.DataFloats != 1750 {
		t.Errorf("dim %d, vectors %d + %d, data %g; want 7, 100 + 0, 1750", e.Dim, e.VectorsPerAgent, e.VectorsPerNeighbor, e.DataFloats)
	}
	if got, want := e.Part("vectors").Bytes, 4*7*8*100.0; got != want {
		t.Errorf("vectors %g, want %g", got, want)
	}
}

// peakSampler records the largest memory the Go runtime holds from the
// system (Sys - HeapReleased) while it runs.
type peakSampler struct {
	stop chan struct{}
	done sync.WaitGroup
	peak uint64
}

func samplePeak() *peakSampler {
	p := &peakSampler{stop: make(chan struct{})}
	p.done.Add(1)
	go func() {
		defer p.done.Done()
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			p.peak = max(p.peak, ms.Sys-ms.HeapReleased)
			select {
			case <-p.stop:
				return
			case <-tick.C:
			}
		}
	}()
	return p
}

func (p *peakSampler) Stop() uint64 {
	close(p.stop)
	p.done.Wait()
	return p.peak
}

// TestEstimateMatchesRuns runs quickstart (shortened) and larger variants
// of it in this process and checks that the estimate is within 0.5x to
// 4x of the peak memory the Go runtime held during the run.
func TestEstimateMatchesRuns(t *testing.T) {
	if os.Getenv("CONSIM_LONG") == "" {
		t.Skip("set CONSIM_LONG=1 to run scenarios and measure their memory")
	}
	for _, tc := range []struct {
		name string
		sets []string
	}{
		{"quickstart nats", []string{"rounds=2000"}},
		{"quickstart chan", []string{"rounds=2000", "runtime.transport=chan"}},
		{"quickstart stepped", []string{"rounds=2000", "runtime.transport=stepped"}},
		{"2000 agents chan", []string{"rounds=200", "agents=2000", "runtime.transport=chan"}},
		{"10000 agents dim 100 stepped", []string{"rounds=20", "agents=10000", "problem.dim=100", "runtime.transport=stepped"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := t.TempDir()
			s, err := scenarios.LoadWith(quickstart, append(tc.sets, "output.dir="+out)...)
			if err != nil {
				t.Fatal(err)
			}
			e, err := scenarios.EstimateMemory(s)
			if err != nil {
				t.Fatal(err)
			}
			runtime.GC()
			debug.FreeOSMemory()
			p := samplePeak()
			sum, err := sim.Run(context.Background(), s, sim.Options{RunID: "memory"})
			peak := p.Stop()
			if err != nil {
				t.Fatal(err)
			}
			if sum.Status != "ok" {
				t.Fatalf("status %s", sum.Status)
			}
			ratio := e.Total / float64(peak)
			t.Logf("estimate %s; measured peak %s (Sys - HeapReleased); estimate/measured %.2f",
				units.Bytes(e.Total), units.Bytes(float64(peak)), ratio)
			if ratio < 0.5 || ratio > 4 {
				t.Errorf("estimate %s is %.2f x the measured %s, outside [0.5, 4]: %s",
					units.Bytes(e.Total), ratio, units.Bytes(float64(peak)), e)
			}
		})
	}
}

// TestEstimateOneProcessOfTheRun: a process that runs one agent of a
// 10^6-agent run (ProcessAgents = 1, consim node) counts the per-agent
// parts for that agent and no coordinator parts, so it validates under a
// limit the whole run exceeds (also through LoadProcessWith); the graph
// is counted whole.
func TestEstimateOneProcessOfTheRun(t *testing.T) {
	sets := []string{"agents=1000000", "graph.topology=ring", "runtime.memory_limit=1GiB"}
	if _, err := scenarios.LoadWith(quickstart, sets...); err == nil {
		t.Fatal("10^6 goroutine agents validated under 1 GiB")
	}
	if p, err := scenarios.LoadProcessWith(quickstart, 1, sets...); err != nil || p.ProcessAgents != 1 {
		t.Fatalf("LoadProcessWith of one agent under 1 GiB: %v", err)
	}
	s, err := scenarios.Load(quickstart)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range sets {
		if err := s.Set(o); err != nil {
			t.Fatal(err)
		}
	}
	whole, err := scenarios.EstimateMemory(s)
	if err != nil {
		t.Fatal(err)
	}
	s.ProcessAgents = 1
	if err := s.Validate(); err != nil {
		t.Fatalf("one agent's process under 1 GiB: %v", err)
	}
	one, err := scenarios.EstimateMemory(s)
	if err != nil {
		t.Fatal(err)
	}
	if one.Local != 1 || whole.Local != 1000000 {
		t.Errorf("Local = %d (one process) and %d (whole run), want 1 and 10^6", one.Local, whole.Local)
	}
	for _, name := range []string{"vectors", "messages", "data", "agents"} {
		if w, o := whole.Part(name).Bytes, one.Part(name).Bytes; math.Abs(o*1e6-w) > 1e-6*w {
			t.Errorf("%s: %g bytes for one agent, %g for 10^6: want a 10^6-th", name, o, w)
		}
	}
	for _, name := range []string{"reports", "metrics"} {
		if one.Part(name).Name != "" {
			t.Errorf("one agent's process counts the coordinator's %s", name)
		}
	}
	if one.Part("graph").Bytes != whole.Part("graph").Bytes {
		t.Errorf("graph: %g bytes in one process, %g in the whole run", one.Part("graph").Bytes, whole.Part("graph").Bytes)
	}
}
