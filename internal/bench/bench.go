// Package bench measures consim's runtime against raw baselines that move
// the same bytes: every agent sends its iterate x_i in R^d to each graph
// neighbour once per round, waits for the neighbours' iterates of that
// round and averages them. The baselines are written straight on the
// transport, with no round loop, deadlines, dropout accounting or MACs:
//
//   - RawChan: one goroutine per agent and one buffered Go channel per
//     agent; a sender puts one shared frame into each neighbour's channel.
//   - RawNATS: the best raw nats.go layout (one connection for the
//     process, one wildcard subscription, each agent publishing its frame
//     once per round on its own subject, and a handler that hands it to
//     the neighbours' channels), in-process or over TCP to an embedded
//     server on 127.0.0.1.
//
// Consim runs consim's runtime (node.RunAll) on the same graph with the
// null algorithm (consensus/null, the same exchange and average) or the
// stochastic ALM. Measure wraps any of them with the process-wide costs
// of a run: wall and CPU time, bytes and allocations, peak memory.
//
// bench is imported by cmd/consim (consim bench) and by its own
// benchmarks; it imports node, consensus and graph, never cmd or
// coordinator.
package bench

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/consensus/alm"
	"github.com/consim/consim/consensus/null"
	"github.com/consim/consim/graph"
	"github.com/consim/consim/node"
	"github.com/consim/consim/objective"
)

// Torus returns the torus on n agents: the rows x cols grid with wrap-around
// where rows is the largest divisor of n not above sqrt(n), so every agent
// has 4 neighbours when rows >= 3. n = 16, 64, 256, 1,024 give the square
// tori 4x4 to 32x32.
func Torus(n int) (*graph.Graph, error) {
	if n < 9 {
		return nil, fmt.Errorf("bench: torus of %d agents: need at least 9 (3 x 3)", n)
	}
	rows := int(math.Sqrt(float64(n)))
	for n%rows != 0 {
		rows--
	}
	if rows < 3 {
		return nil, fmt.Errorf("bench: torus of %d agents: its factors give %d x %d, need both at least 3", n, rows, n/rows)
	}
	return graph.Grid(rows, n/rows, true)
}

// StartValues returns agent i's starting iterate in R^d: x_k = ((7i + 3k)
// mod 11) / 3, distinct across neighbours so the averages move.
func StartValues(i, d int) []float64 {
	x := make([]float64, d)
	for k := range x {
		x[k] = float64((i*7+k*3)%11) / 3
	}
	return x
}

// rawAgent is one agent of the raw exchanges.
type rawAgent struct {
	id    int
	nbrs  []int
	x     []float64
	sum   []float64
	in    chan []byte
	early [][]byte // frames of the next round
}

func newRawAgents(g *graph.Graph, d int) []*rawAgent {
	agents := make([]*rawAgent, g.N)
	for i := range agents {
		nb := g.Neighbors(i)
		agents[i] = &rawAgent{id: i, nbrs: nb, x: StartValues(i, d), sum: make([]float64, d), in: make(chan []byte, 4*len(nb)+4)}
	}
	return agents
}

// frame encodes (round, id, x) in a new buffer: the receivers share it.
func (a *rawAgent) frame(t int) []byte {
	f := make([]byte, 8+8*len(a.x))
	binary.LittleEndian.PutUint32(f, uint32(t))
	binary.LittleEndian.PutUint32(f[4:], uint32(a.id))
	for k, v := range a.x {
		binary.LittleEndian.PutUint64(f[8+8*k:], math.Float64bits(v))
	}
	return f
}

// receive sets x to the average of x and the neighbours' frames of round
// t, keeping frames of later rounds for then.
func (a *rawAgent) receive(t int) {
	sum := a.sum
	copy(sum, a.x)
	got := 0
	add := func(f []byte) {
		for k := range sum {
			sum[k] += math.Float64frombits(binary.LittleEndian.Uint64(f[8+8*k:]))
		}
		got++
	}
	early := a.early[:0]
	for _, f := range a.early {
		if int(binary.LittleEndian.Uint32(f)) == t {
			add(f)
		} else {
			early = append(early, f)
		}
	}
	clear(a.early[len(early):])
	a.early = early
	for got < len(a.nbrs) {
		f := <-a.in
		if int(binary.LittleEndian.Uint32(f)) != t {
			a.early = append(a.early, f)
			continue
		}
		add(f)
	}
	for k := range sum {
		a.x[k] = sum[k] / float64(1+got)
	}
}

// Run is one prepared exchange: Start runs it to the end and returns its
// wall time; Close releases what it holds. Setup (connections, agents)
// happens before Start, so the time is the rounds alone.
type Run interface {
	Start() (time.Duration, error)
	Close() error
}

// RawChan prepares the channel exchange of g in R^d for the given rounds.
func RawChan(g *graph.Graph, d, rounds int) Run {
	return &rawChanRun{agents: newRawAgents(g, d), rounds: rounds}
}

type rawChanRun struct {
	agents []*rawAgent
	rounds int
}

func (r *rawChanRun) Start() (time.Duration, error) {
	var wg sync.WaitGroup
	start := make(chan struct{})
	for _, a := range r.agents {
		wg.Go(func() {
			<-start
			for t := range r.rounds {
				f := a.frame(t)
				for _, j := range a.nbrs {
					r.agents[j].in <- f
				}
				a.receive(t)
			}
		})
	}
	begin := time.Now()
	close(start)
	wg.Wait()
	return time.Since(begin), nil
}

func (r *rawChanRun) Close() error { return nil }

// RawNATS prepares the NATS exchange of g in R^d for the given rounds: an
// embedded server (in-process connections only, or on 127.0.0.1 over
// TCP), one connection and one wildcard subscription.
func RawNATS(g *graph.Graph, d, rounds int, inProcess bool) (Run, error) {
	srv, err := node.StartNATSServer(node.NATSServerOptions{Name: "raw", Port: -1, InProcessOnly: inProcess})
	if err != nil {
		return nil, fmt.Errorf("bench: raw NATS: %w", err)
	}
	r := &rawNATSRun{srv: srv, agents: newRawAgents(g, d), rounds: rounds}
	opts := []nats.Option{nats.FlusherTimeout(0)}
	url := ""
	if inProcess {
		opts = append(opts, nats.InProcessServer(srv))
	} else {
		url = srv.ClientURL()
	}
	if r.nc, err = nats.Connect(url, opts...); err != nil {
		r.Close()
		return nil, fmt.Errorf("bench: raw NATS: connect: %w", err)
	}
	r.subjects = make([]string, g.N)
	for i := range r.subjects {
		r.subjects[i] = node.SubjectAgent("raw", i)
	}
	sub, err := r.nc.Subscribe(node.SubjectAgents("raw"), func(m *nats.Msg) {
		if len(m.Data) < 8 {
			return
		}
		from := int(binary.LittleEndian.Uint32(m.Data[4:]))
		if from >= len(r.agents) {
			return
		}
		for _, j := range r.agents[from].nbrs {
			r.agents[j].in <- m.Data
		}
	})
	if err == nil {
		err = sub.SetPendingLimits(-1, -1)
	}
	if err == nil {
		err = r.nc.Flush()
	}
	if err != nil {
		r.Close()
		return nil, fmt.Errorf("bench: raw NATS: subscribe: %w", err)
	}
	return r, nil
}

type rawNATSRun struct {
	srv      natsServer
	nc       *nats.Conn
	agents   []*rawAgent
	subjects []string
	rounds   int
}

// natsServer is the part of the embedded server a raw run uses.
type natsServer interface {
	Shutdown()
	WaitForShutdown()
}

func (r *rawNATSRun) Start() (time.Duration, error) {
	var wg sync.WaitGroup
	var once sync.Once
	var failed error
	start := make(chan struct{})
	for _, a := range r.agents {
		wg.Go(func() {
			<-start
			for t := range r.rounds {
				if err := r.nc.Publish(r.subjects[a.id], a.frame(t)); err != nil {
					once.Do(func() { failed = fmt.Errorf("bench: raw NATS: agent %d publishes round %d: %w", a.id, t, err) })
					return // its neighbours then wait forever: Close ends the run
				}
				a.receive(t)
			}
		})
	}
	begin := time.Now()
	close(start)
	wg.Wait()
	return time.Since(begin), failed
}

func (r *rawNATSRun) Close() error {
	if r.nc != nil {
		r.nc.Close()
	}
	r.srv.Shutdown()
	r.srv.WaitForShutdown()
	return nil
}

// Algorithms Consim runs.
const (
	// AlgoNull is consensus/null: the exchange and average of the raw
	// baselines, through consim's runtime.
	AlgoNull = "null"
	// AlgoALM is the distributed stochastic ALM with its practical
	// preset and the global safeguard (a one-value all-reduce every 10
	// rounds) on noisy separable quadratics.
	AlgoALM = "alm"
)

// Agents returns the agents of algo on g in R^d for the given rounds.
// The ALM's local problems are f_i(x) = (1/2) sum_k c_ik (x_k - b_ik)^2
// with c_ik in [1, 2), b_ik in [-1, 1) and Gaussian gradient noise 0.1.
func Agents(algo string, g *graph.Graph, d, rounds int) ([]consensus.Agent, error) {
	agents := make([]consensus.Agent, g.N)
	switch algo {
	case AlgoNull:
		for i := range agents {
			a, err := null.NewAgent(i, g, d, StartValues(i, d))
			if err != nil {
				return nil, err
			}
			agents[i] = a
		}
		return agents, nil
	case AlgoALM:
		locals := make([]objective.Local, g.N)
		for i := range locals {
			diag, c := make([]float64, d), make([]float64, d)
			for k := range diag {
				diag[k] = 1 + graph.Uniform(7, 0, 0, uint64(i), uint64(k))
				c[k] = 2*graph.Uniform(7, 0, 1, uint64(i), uint64(k)) - 1
			}
			locals[i] = objective.QuadraticNoisy(diag, c, 0.1)
		}
		consts, err := alm.ConstantsFor(g, locals)
		if err != nil {
			return nil, fmt.Errorf("bench: ALM constants: %w", err)
		}
		cfg := alm.Config{Steps: alm.Practical(consts, rounds), Safeguard: alm.SafeguardGlobal, SafeguardEvery: 10, Seed: 1, Rounds: rounds}
		proc := graph.Bernoulli{G: g, Seed: 1}.Specialize()
		box := objective.Box{Lo: -10, Hi: 10}
		for i := range agents {
			a, err := alm.NewAgent(cfg, i, g, proc, locals[i], box, StartValues(i, d))
			if err != nil {
				return nil, fmt.Errorf("bench: ALM agent %d: %w", i, err)
			}
			agents[i] = a
		}
		return agents, nil
	}
	return nil, fmt.Errorf("bench: unknown algorithm %q: want %q or %q", algo, AlgoNull, AlgoALM)
}

// Consim prepares a run of agents on consim's runtime over a fresh
// transport of the given kind: the agents connect and report ready
// before Start, which sends the start control and waits for the last
// agent to finish. reportEvery is node.Options.ReportEvery (0: no
// progress statuses); the statuses are read and dropped as a
// coordinator would read them.
func Consim(kind node.TransportKind, agents []consensus.Agent, rounds, reportEvery int) (Run, error) {
	n := len(agents)
	tr, err := node.NewTransport(node.TransportConfig{Kind: kind, N: n, RunID: "bench"})
	if err != nil {
		return nil, fmt.Errorf("bench: %s transport: %w", kind, err)
	}
	obs, err := tr.Observer()
	if err != nil {
		tr.Close()
		return nil, fmt.Errorf("bench: %s observer: %w", kind, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	r := &consimRun{tr: tr, obs: obs, cancel: cancel, done: make(chan error, 1), drained: make(chan struct{})}
	go func() {
		r.done <- node.RunAll(ctx, agents, tr, node.Options{Rounds: rounds, PhaseDeadline: time.Minute, ReportEvery: reportEvery})
	}()
	if err := awaitReady(obs, n); err != nil {
		r.Close()
		return nil, fmt.Errorf("bench: %s: %w", kind, err)
	}
	go func() {
		defer close(r.drained)
		for range obs.Statuses() {
		}
	}()
	return r, nil
}

type consimRun struct {
	tr      node.Transport
	obs     node.Observer
	cancel  context.CancelFunc
	done    chan error
	drained chan struct{}
	closed  bool
}

func (r *consimRun) Start() (time.Duration, error) {
	begin := time.Now()
	if err := r.obs.Control(node.EncodeControl(node.Control{Kind: node.ControlStart})); err != nil {
		return 0, fmt.Errorf("bench: send start: %w", err)
	}
	err := <-r.done
	r.done = nil
	return time.Since(begin), err
}

func (r *consimRun) Close() error {
	if r.closed {
		return nil
	}
	r.closed = true
	r.cancel()
	if r.done != nil {
		<-r.done
	}
	err := errors.Join(r.obs.Close(), r.tr.Close())
	return err
}

// awaitReady reads statuses until agents 0..n-1 have all published ready.
func awaitReady(obs node.Observer, n int) error {
	ready := make([]bool, n)
	timeout := time.NewTimer(5 * time.Minute)
	defer timeout.Stop()
	for left := n; left > 0; {
		select {
		case f, ok := <-obs.Statuses():
			if !ok {
				return fmt.Errorf("status channel closed with %d of %d agents ready", n-left, n)
			}
			s, err := node.DecodeStatus(f)
			if err != nil {
				return fmt.Errorf("waiting for ready agents: %w", err)
			}
			switch {
			case s.Kind == node.StatusFailed:
				return fmt.Errorf("agent %d failed before the start: %s", s.ID, s.Err)
			case s.Kind == node.StatusReady && s.ID >= 0 && s.ID < n && !ready[s.ID]:
				ready[s.ID] = true
				left--
			}
		case <-timeout.C:
			return fmt.Errorf("%d of %d agents ready after 5 minutes", n-left, n)
		}
	}
	return nil
}
