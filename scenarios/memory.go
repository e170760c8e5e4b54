package scenarios

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"reflect"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/consim/consim/consensus/registry"
	"github.com/consim/consim/node"
)

// Constants of the memory estimate. The per-agent and fixed costs were
// measured with `consim scale` (peak resident set size) on linux/amd64
// for 8 to 10^5 agents in dimension 10, where the vectors, messages and
// data are small, and rounded.
const (
	// memFloat is the size of a float64.
	memFloat = 8
	// memFrameHeader is the wire header and slice bookkeeping of one
	// buffered frame, beyond its dim float64 values.
	memFrameHeader = 64
	// memGoroutineAgent is what an agent costs on a goroutine transport
	// (chan, nats, nats-tcp) beyond its vectors: the stack of its
	// goroutine (8 to 16 KiB at the depth of the round loop), its inbox
	// and control queues and its runner's state (maps of peers, future
	// slots, phase buffers). 24 KiB is calibrated against the peak RSS
	// of the goroutine runs of docs/benchmarks.md (Scale).
	memGoroutineAgent = 24 << 10
	// memNATSAgent is what an agent's NATS connection and subscriptions
	// add to memGoroutineAgent on the nats transports.
	memNATSAgent = 8 << 10
	// memSteppedAgent is what an agent costs on the stepped engine beyond
	// its vectors: its state struct, its slot and its neighbour lists.
	memSteppedAgent = 2 << 10
	// memGraphEdge and memGraphAgent are the expected graph and the edge
	// process: an edge's endpoints, p_ij and index in both adjacency
	// lists, and an agent's list headers.
	memGraphEdge  = 128
	memGraphAgent = 64
	// memMetricRow is one row of the coordinator's metrics (the measures
	// of one measured round, in memory and in the writers' buffers).
	memMetricRow = 512
	// memBase is the fixed cost of a consim process (runtime, code, the
	// coordinator and the bundle writers); memBaseNATS is what the
	// embedded NATS server adds.
	memBase     = 24 << 20
	memBaseNATS = 8 << 20
	// memDefaultDim is the dimension assumed for a problem whose keys
	// say nothing of it (see EstimateMemory).
	memDefaultDim = 100
	// memDefaultRows is the number of data rows per agent assumed for a
	// problem whose keys say nothing of them.
	memDefaultRows = 100
)

// MemoryPart is one named term of an Estimate.
type MemoryPart struct {
	// Name is what the term counts: vectors, messages, data, ...
	Name string
	// Bytes is its size.
	Bytes float64
	// Formula spells out the product, e.g. "agents 8 x dim 10 x 8 bytes
	// x 10 vectors".
	Formula string
}

// Estimate is the estimated peak memory of a run (see EstimateMemory).
// It is an estimate, not a bound: the parts say what it counts.
type Estimate struct {
	// Agents is N and Dim the length of an agent's block x_i.
	Agents, Dim int
	// Local is the number of agents the per-agent parts count: N, or
	// Scenario.ProcessAgents for a process that runs only some of them.
	Local int
	// MeanDegree and MaxDegree are those of the expected graph (MaxDegree
	// equals MeanDegree where only the mean is known, e.g. an edge list).
	MeanDegree, MaxDegree float64
	// VectorsPerAgent and VectorsPerNeighbor are the algorithm's vectors
	// (registry.VectorFootprint, or its defaults).
	VectorsPerAgent, VectorsPerNeighbor int
	// DataFloats is the float64 values of problem data per agent.
	DataFloats float64
	// QueuedRounds is the number of rounds of frames an agent is assumed
	// to hold at once.
	QueuedRounds int
	// MetricRows is the number of measured rounds, rounds/metrics.every + 1.
	MetricRows int
	// Parts are the terms, in a fixed order; Total is their sum.
	Parts []MemoryPart
	Total float64
}

// String formats e on one line: the total and every part with its
// formula.
func (e Estimate) String() string {
	var b strings.Builder
	b.WriteString("about ")
	b.WriteString(FormatBytes(e.Total))
	b.WriteString(" (")
	for i, p := range e.Parts {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s: %s = %s", p.Name, p.Formula, FormatBytes(p.Bytes))
	}
	b.WriteString(")")
	return b.String()
}

// Part returns the part called name (zero when there is none).
func (e Estimate) Part(name string) MemoryPart {
	for _, p := range e.Parts {
		if p.Name == name {
			return p
		}
	}
	return MemoryPart{}
}

// EstimateMemory estimates the peak memory of running s in one process,
// from its keys alone: it builds no graph and generates or reads no data,
// so it is cheap for scenarios far too large to run. With N agents, block
// length n, mean degree d of the expected graph and, per agent, V vectors
// plus Vn per neighbour (registry.VectorFootprint of the algorithm's
// keys, else registry.DefaultVectorsPerAgent and
// DefaultVectorsPerNeighbor), D float64 values of data, Q queued rounds
// of frames and a transport cost A:
//
//	vectors     N * n * 8 * (V + Vn*d)
//	messages    N * d * (8n + 64) * Q
//	data        N * D * 8
//	agents      N * A
//	reports     N * n * 8                  (one measured round's x_i at the coordinator)
//	metrics     (T/k + 1) * 512            (T rounds, every k-th measured)
//	graph       E * 128 + N * 64           (E edges)
//	gc headroom GOGC% of the parts above   (the Go heap grows to (1+GOGC/100) x live)
//	runtime     24 MiB, + 8 MiB for an embedded NATS server
//
// n and D come from the problem's keys: registry.Sizer when its keys
// implement it (a zero n or D taking the defaults below); otherwise the key dim (or n, assets) gives n and D is
// rows x (n+1) with rows the key samples_per_agent, or samples, periods
// or train divided by N; a missing dimension counts as 100 and missing
// rows as 100 per agent. Data files named by registry.Path keys count at
// least one float64 per byte of file per agent's share, as text rows
// hold fewer than 8 bytes per value.
//
// Q is 1 on the stepped transport, which exchanges one round at a time.
// On the goroutine transports an agent whose link is absent runs ahead of
// its neighbour by about 1/p rounds (p the smallest presence probability;
// gilbert_elliott adds the mean bad spell 1/p_bg), so Q = ceil(1/p) + 1,
// at most node.DefaultFutureWindow (256), the rounds of frames an agent
// buffers at worst. A is 24 KiB per agent for the goroutine and queues
// of chan, 32 KiB with a NATS connection, 2 KiB on stepped.
//
// For a process that runs only some agents (Scenario.ProcessAgents = k,
// e.g. consim node), the vectors, messages, data and agents parts count k
// agents instead of N, and the reports and metrics parts, which the
// coordinator holds, are left out; the graph is whole in every process.
//
// The arithmetic is in float64, so absurd sizes give huge totals rather
// than overflow. The error is for a scenario that lacks what the estimate
// needs (agents, a known problem with decoded keys).
func EstimateMemory(s *Scenario) (Estimate, error) {
	if s.Agents < 1 {
		return Estimate{}, fmt.Errorf("memory estimate: agents = %d: need at least 1", s.Agents)
	}
	if s.Problem.Params == nil {
		return Estimate{}, fmt.Errorf("memory estimate: the keys of problem %q were not decoded", s.Problem.Kind)
	}
	n := float64(s.Agents)
	mean, maxd, edges, err := s.expectedDegree()
	if err != nil {
		return Estimate{}, fmt.Errorf("memory estimate: %w", err)
	}
	size := problemSize(s.Problem.Params, s.Agents)
	v, vn := registry.DefaultVectorsPerAgent, registry.DefaultVectorsPerNeighbor
	if fp, ok := s.Algorithm.Params.(registry.VectorFootprint); ok {
		v, vn = max(fp.VectorsPerAgent(), 0), max(fp.VectorsPerNeighbor(), 0)
	}
	local, coordinator := n, true
	if s.ProcessAgents > 0 {
		local, coordinator = float64(min(s.ProcessAgents, s.Agents)), false
	}
	e := Estimate{
		Agents: s.Agents, Dim: size.Dim, Local: int(local),
		MeanDegree: mean, MaxDegree: maxd,
		VectorsPerAgent: v, VectorsPerNeighbor: vn,
		DataFloats:   size.Floats,
		QueuedRounds: s.queuedRounds(),
		MetricRows:   s.Rounds/max(s.Metrics.Every, 1) + 1,
	}
	dim := float64(size.Dim)
	vecs := float64(v) + float64(vn)*mean
	agentCost, agentWhat := s.agentCost()
	add := func(name string, bytes float64, format string, args ...any) {
		e.Parts = append(e.Parts, MemoryPart{Name: name, Bytes: bytes, Formula: fmt.Sprintf(format, args...)})
	}
	add("vectors", local*dim*memFloat*vecs, "agents %s x dim %s x 8 bytes x %s vectors", count(local), count(dim), count(vecs))
	add("messages", local*mean*(memFloat*dim+memFrameHeader)*float64(e.QueuedRounds),
		"agents %s x degree %s x (dim %s x 8 + %d) bytes x %d queued rounds", count(local), count(mean), count(dim), memFrameHeader, e.QueuedRounds)
	add("data", local*size.Floats*memFloat, "agents %s x %s values x 8 bytes", count(local), count(size.Floats))
	add("agents", local*agentCost, "agents %s x %s (%s)", count(local), FormatBytes(agentCost), agentWhat)
	if coordinator {
		add("reports", n*dim*memFloat, "agents %s x dim %s x 8 bytes", count(n), count(dim))
		add("metrics", float64(e.MetricRows)*memMetricRow, "%d rows x %d bytes", e.MetricRows, memMetricRow)
	}
	add("graph", edges*memGraphEdge+n*memGraphAgent, "edges %s x %d + agents %s x %d bytes", count(edges), memGraphEdge, count(n), memGraphAgent)
	var heap float64
	for _, p := range e.Parts {
		heap += p.Bytes
	}
	gogc := gcPercent()
	add("gc headroom", heap*gogc/100, "GOGC %s%% of %s", count(gogc), FormatBytes(heap))
	base, baseWhat := float64(memBase), "Go runtime and coordinator"
	if (s.Runtime.Transport == TransportNATS || s.Runtime.Transport == TransportNATSTCP) && s.Async.Mode != AsyncSimulated {
		if s.Runtime.NATSURL == "" {
			base += memBaseNATS
			baseWhat += " and embedded NATS server"
		}
	}
	add("runtime", base, "%s", baseWhat)
	for _, p := range e.Parts {
		e.Total += p.Bytes
	}
	return e, nil
}

// agentCost is the per-agent cost of the transport beyond its vectors.
func (s *Scenario) agentCost() (bytes float64, what string) {
	if s.Async.Mode == AsyncSimulated {
		return memSteppedAgent, "state on the event engine"
	}
	switch s.Runtime.Transport {
	case TransportStepped:
		return memSteppedAgent, "state on the stepped engine"
	case TransportNATS, TransportNATSTCP:
		return memGoroutineAgent + memNATSAgent, "goroutine stack, queues and NATS connection"
	}
	return memGoroutineAgent, "goroutine stack and queues"
}

// queuedRounds is Q of EstimateMemory.
func (s *Scenario) queuedRounds() int {
	if s.Runtime.Transport == TransportStepped || s.Async.Mode == AsyncSimulated {
		return 1
	}
	p := s.Graph.P
	if r := s.Graph.PRange; r != nil {
		p = r.Lo()
	}
	ahead := 0.0
	if s.Edges.Model == EdgeModelGilbertElliott {
		ge := s.Edges.GilbertElliott
		if ge.PBad > 0 {
			p = math.Min(p, ge.PBad)
		}
		if ge.PBG > 0 {
			ahead += math.Ceil(1 / ge.PBG)
		}
	}
	if p > 0 {
		ahead += math.Ceil(1 / p)
	} else {
		ahead = node.DefaultFutureWindow
	}
	return int(math.Min(ahead+1, node.DefaultFutureWindow))
}

// expectedDegree returns the mean and largest degree of the expected
// graph and its number of edges, from the topology's keys (an edge
// list is counted, not parsed).
func (s *Scenario) expectedDegree() (mean, maxd, edges float64, err error) {
	n := float64(s.Agents)
	g := s.Graph
	switch g.Topology {
	case TopologyComplete:
		edges = n * (n - 1) / 2
		maxd = n - 1
	case TopologyRing:
		switch {
		case s.Agents >= 3:
			edges = n
		case s.Agents == 2:
			edges = 1
		}
		maxd = math.Min(2, n-1)
	case TopologyPath:
		edges, maxd = n-1, math.Min(2, n-1)
	case TopologyStar:
		edges, maxd = n-1, n-1
	case TopologyGrid, TopologyTorus:
		r, c := float64(g.Rows), float64(g.Cols)
		edges, maxd = r*(c-1)+c*(r-1), math.Min(4, n-1)
		if g.Topology == TopologyTorus {
			edges = 2 * r * c
		}
	case TopologyErdosRenyi:
		edges = g.Q * n * (n - 1) / 2
		m := g.Q * (n - 1)
		maxd = math.Min(n-1, math.Ceil(m+4*math.Sqrt(m)+1))
	case TopologyGeometric:
		// A disc of radius r holds about pi r^2 of the unit square.
		m := math.Min(n-1, (n-1)*math.Pi*g.Radius*g.Radius)
		edges = n * m / 2
		maxd = math.Min(n-1, math.Ceil(m+4*math.Sqrt(m)+1))
	case TopologyDirectedRing, TopologyDigraph, TopologyKOut, TopologyDirectedSequence:
		edges, maxd = s.directedDegree()
	case TopologyFile:
		lines, err := countEdgeLines(g.File)
		if err != nil {
			return 0, 0, 0, err
		}
		edges = lines
		maxd = math.Min(n-1, 2*edges/n)
	default:
		return 0, 0, 0, fmt.Errorf("graph.topology %q has no degree estimate", g.Topology)
	}
	if n > 0 {
		mean = 2 * edges / n
	}
	return mean, math.Max(maxd, mean), edges, nil
}

// countEdgeLines counts the lines of an edge list that hold an edge (not
// blank, not a # comment).
func countEdgeLines(path string) (float64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, fmt.Errorf("count the edges of graph.file: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	lines := 0.0
	for sc.Scan() {
		l := bytes.TrimSpace(sc.Bytes())
		if len(l) > 0 && l[0] != '#' {
			lines++
		}
	}
	if err := sc.Err(); err != nil {
		return 0, fmt.Errorf("count the edges of graph.file %s: %w", path, err)
	}
	return lines, nil
}

// Conventional keys of problem blocks that EstimateMemory reads when the
// block does not implement registry.Sizer.
var (
	dimKeys          = []string{"dim", "n", "assets"}
	rowsPerAgentKeys = []string{"samples_per_agent"}
	totalRowsKeys    = []string{"samples", "periods", "train"}
)

// problemSize is what EstimateMemory assumes of the instance of p for n
// agents.
func problemSize(p registry.Params, n int) registry.ProblemSize {
	if sz, ok := p.(registry.Sizer); ok {
		size := sz.Size(n)
		if size.Dim <= 0 {
			size.Dim = memDefaultDim
		}
		if size.Floats <= 0 {
			size.Floats = memDefaultRows * float64(size.Dim+1)
		}
		return size
	}
	v := reflect.ValueOf(p)
	for v.Kind() == reflect.Pointer && !v.IsNil() {
		v = v.Elem()
	}
	var size registry.ProblemSize
	var files float64
	if v.Kind() == reflect.Struct {
		ints := make(map[string]int)
		collectSizeKeys(v, ints, &files)
		for _, k := range dimKeys {
			if d, ok := ints[k]; ok && d > 0 {
				size.Dim = d
				break
			}
		}
		rows := -1.0
		for _, k := range rowsPerAgentKeys {
			if r, ok := ints[k]; ok && r > 0 {
				rows = float64(r)
				break
			}
		}
		if rows < 0 {
			for _, k := range totalRowsKeys {
				if r, ok := ints[k]; ok && r > 0 {
					rows = math.Ceil(float64(r) / float64(n))
					break
				}
			}
		}
		if rows >= 0 {
			size.Floats = rows * float64(max(size.Dim, 1)+1)
		}
	}
	if size.Dim <= 0 {
		size.Dim = memDefaultDim
	}
	if size.Floats == 0 {
		size.Floats = memDefaultRows * float64(size.Dim+1)
	}
	size.Floats = math.Max(size.Floats, files/float64(n))
	return size
}

// collectSizeKeys records the int keys of the struct v (its yaml names)
// and adds the size in bytes of every data file its registry.Path keys
// name, at any depth.
func collectSizeKeys(v reflect.Value, ints map[string]int, files *float64) {
	t := v.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		fv := v.Field(i)
		switch {
		case f.Type == pathType:
			if p := fv.String(); p != "" {
				if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
					*files += float64(st.Size())
				}
			}
		case fv.Kind() == reflect.Int:
			if _, seen := ints[name]; !seen && name != "" && name != "-" {
				ints[name] = int(fv.Int())
			}
		case fv.Kind() == reflect.Struct:
			collectSizeKeys(fv, ints, files)
		case fv.Kind() == reflect.Pointer && !fv.IsNil() && fv.Elem().Kind() == reflect.Struct:
			collectSizeKeys(fv.Elem(), ints, files)
		}
	}
}

// gcPercent is the GOGC setting of this process (100 unless the GOGC
// environment variable sets another percentage; off counts as 100).
func gcPercent() float64 {
	if g, err := strconv.Atoi(os.Getenv("GOGC")); err == nil && g >= 0 {
		return float64(g)
	}
	return 100
}

// count formats a count or size factor compactly: integers below 10^7 in
// full, others with at most three significant digits ("1e9", "2.5").
func count(x float64) string {
	if x == math.Trunc(x) && math.Abs(x) < 1e7 {
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	if math.Abs(x) < 1e7 {
		return strconv.FormatFloat(x, 'g', 3, 64)
	}
	s := strconv.FormatFloat(x, 'g', 3, 64)
	return strings.Replace(strings.Replace(s, "e+0", "e", 1), "e+", "e", 1)
}

// FormatBytes formats a size in bytes with a binary unit and three
// significant digits, e.g. "41.2 GiB" ("1.2e6 EiB" past the units).
func FormatBytes(b float64) string {
	if math.IsNaN(b) || math.IsInf(b, 0) {
		return fmt.Sprintf("%v bytes", b)
	}
	units := []string{"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}
	u := 0
	for math.Abs(b) >= 1024 && u < len(units)-1 {
		b /= 1024
		u++
	}
	if u == 0 {
		return strconv.FormatFloat(b, 'f', 0, 64) + " bytes"
	}
	switch {
	case math.Abs(b) >= 1024:
		return count(b) + " " + units[u]
	case math.Abs(b) >= 100:
		return strconv.FormatFloat(b, 'f', 0, 64) + " " + units[u]
	case math.Abs(b) >= 10:
		return strconv.FormatFloat(b, 'f', 1, 64) + " " + units[u]
	}
	return strconv.FormatFloat(b, 'f', 2, 64) + " " + units[u]
}

// ByteSize is a size in bytes, written in a scenario as an integer
// number of bytes or as a number with a unit: B, KB, MB, GB, TB (powers
// of 1000) or KiB, MiB, GiB, TiB (powers of 1024), e.g. 8GiB, 512MiB,
// 1.5GB. Units are case-insensitive.
type ByteSize int64

// byteUnits are the units ParseByteSize accepts, lower-cased.
var byteUnits = map[string]float64{
	"": 1, "b": 1,
	"kb": 1e3, "mb": 1e6, "gb": 1e9, "tb": 1e12,
	"kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30, "tib": 1 << 40,
}

const byteUnitList = "B, KB, MB, GB, TB, KiB, MiB, GiB, TiB"

var byteSizeRE = regexp.MustCompile(`^([0-9]+(?:\.[0-9]*)?|\.[0-9]+)\s*([A-Za-z]*)$`)

// ParseByteSize reads a size such as "8GiB", "512MiB", "1.5GB" or
// "1000000" (bytes). The number must be non-negative and the unit one of
// B, KB, MB, GB, TB, KiB, MiB, GiB, TiB; the result must be a whole
// number of bytes below 2^63.
func ParseByteSize(s string) (ByteSize, error) {
	m := byteSizeRE.FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return 0, fmt.Errorf("%q is not a size: expected a number of bytes or a number with a unit (%s), e.g. 8GiB or 512MiB", s, byteUnitList)
	}
	unit, ok := byteUnits[strings.ToLower(m[2])]
	if !ok {
		return 0, fmt.Errorf("%q: unknown unit %q (allowed: %s)", s, m[2], byteUnitList)
	}
	x, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		return 0, fmt.Errorf("%q: bad number: %w", s, err)
	}
	b := x * unit
	if b >= math.MaxInt64 {
		return 0, fmt.Errorf("%q is too large (at most 8EiB)", s)
	}
	if b != math.Trunc(b) {
		return 0, fmt.Errorf("%q is not a whole number of bytes", s)
	}
	return ByteSize(b), nil
}

// String writes b exactly, in the largest binary unit that divides it
// ("8GiB", "1536MiB"), else in bytes ("1000000").
func (b ByteSize) String() string {
	for _, u := range []struct {
		name string
		size int64
	}{{"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if b != 0 && int64(b)%u.size == 0 {
			return strconv.FormatInt(int64(b)/u.size, 10) + u.name
		}
	}
	return strconv.FormatInt(int64(b), 10)
}

// MarshalYAML writes b as String does, or as a YAML integer when it is
// not a whole number of KiB; Parse reads it back exactly.
func (b ByteSize) MarshalYAML() (any, error) {
	if b%1024 != 0 {
		return int64(b), nil
	}
	return b.String(), nil
}

// decodeYAML reads an integer number of bytes or a size string.
func (b *ByteSize) decodeYAML(d *decoder, n *yaml.Node, key string) {
	for n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	if n.Kind == yaml.ScalarNode {
		switch n.ShortTag() {
		case "!!int":
			var i int64
			if n.Decode(&i) != nil {
				d.errs.add(d.at(n), key, "integer %s is out of range", n.Value)
				return
			}
			*b = ByteSize(i)
			return
		case "!!str":
			v, err := ParseByteSize(n.Value)
			if err != nil {
				d.errs.add(d.at(n), key, "%v", err)
				return
			}
			*b = v
			return
		}
	}
	d.errs.add(d.at(n), key, "expected a size such as 8GiB, 512MiB or a number of bytes, got %s", describe(n))
}

// Sources of MemoryLimit.
const (
	limitFromScenario = "runtime.memory_limit"
	limitFromMeminfo  = "physical memory from /proc/meminfo"
	limitFromCgroup   = "the cgroup's memory.max"
)

// physicalMemory returns the memory of the machine (MemTotal of
// /proc/meminfo, or the cgroup's memory.max when smaller) and its source;
// 0 where neither is known (systems without /proc).
func physicalMemory() (int64, string) {
	total, err := memTotal("/proc/meminfo")
	if err != nil {
		return 0, ""
	}
	src := limitFromMeminfo
	if b, err := os.ReadFile("/sys/fs/cgroup/memory.max"); err == nil {
		if c, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64); err == nil && c > 0 && c < total {
			total, src = c, limitFromCgroup
		}
	}
	return total, src
}

// memTotal reads MemTotal (in kB) from a meminfo file.
func memTotal(path string) (int64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		rest, ok := strings.CutPrefix(line, "MemTotal:")
		if !ok {
			continue
		}
		f := strings.Fields(rest)
		if len(f) == 2 && f[1] == "kB" {
			kb, err := strconv.ParseInt(f[0], 10, 64)
			if err == nil && kb > 0 {
				return kb << 10, nil
			}
		}
		return 0, fmt.Errorf("%s: cannot read %q", path, line)
	}
	return 0, errors.New(path + ": no MemTotal line")
}

// MemoryLimit is what Validate compares the memory estimate with, and
// where it comes from: runtime.memory_limit when set, else the physical
// memory (MemTotal of /proc/meminfo, or the cgroup's memory.max when
// smaller), else 0 for no limit (systems without /proc).
func (s *Scenario) MemoryLimit() (bytes int64, source string) {
	if s.Runtime.MemoryLimit > 0 {
		return int64(s.Runtime.MemoryLimit), limitFromScenario
	}
	return physicalMemory()
}

// CheckMemory estimates the memory of s (EstimateMemory) and returns an
// error when it exceeds MemoryLimit, or is beyond any machine (infinite
// or above 2^63 bytes) when there is no limit. The error names the
// estimate with its parts and the limit with its source.
func (s *Scenario) CheckMemory() (Estimate, error) {
	e, err := EstimateMemory(s)
	if err != nil {
		return e, err
	}
	limit, src := s.MemoryLimit()
	if !(e.Total < math.MaxInt64) || limit > 0 && e.Total > float64(limit) {
		if limit <= 0 {
			return e, fmt.Errorf("scenario needs %s, more than any machine holds (no memory limit is known here; runtime.memory_limit or --memory-limit sets one)", e)
		}
		how := src
		if src == limitFromScenario {
			how += " " + s.Runtime.MemoryLimit.String()
		}
		return e, fmt.Errorf("scenario needs %s, more than the limit %s (%s; raise or lower with runtime.memory_limit or --memory-limit)", e, FormatBytes(float64(limit)), how)
	}
	return e, nil
}
