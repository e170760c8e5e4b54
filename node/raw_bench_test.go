package node

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/consim/consim/graph"
	"github.com/nats-io/nats.go"
)

// BenchmarkRaw measures the bare exchanges the round loop is compared
// with: N goroutines on the graph of BenchmarkRounds that each send x_i
// (d = 10) to their neighbours and average what they receive, once per
// round, with no runtime, no deadlines, no MACs.
//
//   - chan: one buffered Go channel per agent; the sender puts one shared
//     frame into each neighbour's channel.
//   - nats, nats-tcp: the best raw NATS layout: one connection for the
//     process, one wildcard subscription, each agent publishing its frame
//     once per round on its own subject, and a handler that hands it to
//     the neighbours' channels (in-process connection, or TCP to an
//     embedded server on 127.0.0.1).
//
// Compare rounds/s with BenchmarkRounds/null/<transport>/N=<n>/d=10.
func BenchmarkRaw(b *testing.B) {
	for _, kind := range TransportKinds {
		for _, n := range []int{16, 64, 256, 1024} {
			b.Run(fmt.Sprintf("%s/N=%d", kind, n), func(b *testing.B) {
				g := ringChords(b, n)
				var elapsed time.Duration
				if kind == TransportChan {
					elapsed = rawChan(b, g, 10, b.N)
				} else {
					elapsed = rawNATS(b, g, 10, b.N, kind == TransportNATS)
				}
				b.ReportMetric(float64(b.N)/elapsed.Seconds(), "rounds/s")
			})
		}
	}
}

// BenchmarkVsRaw measures the null algorithm on consim's runtime and the
// raw exchange of BenchmarkRaw on the same graph, d = 10, alternately, 5
// times each per transport and N, and reports the median of the 5
// ratios consim/raw, and the medians of both rates: on a shared machine,
// interleaving keeps the ratio meaningful when the absolute rates drift.
// Each measurement runs about 0.2 s. Run with -benchtime 1x.
func BenchmarkVsRaw(b *testing.B) {
	for _, kind := range TransportKinds {
		for _, n := range []int{16, 64, 256, 1024} {
			b.Run(fmt.Sprintf("%s/N=%d", kind, n), func(b *testing.B) {
				g := ringChords(b, n)
				raw := func(rounds int) time.Duration {
					if kind == TransportChan {
						return rawChan(b, g, 10, rounds)
					}
					return rawNATS(b, g, 10, rounds, kind == TransportNATS)
				}
				ours := func(rounds int) time.Duration {
					return runRounds(b, kind, nullAgents(b, g, 10), rounds, nil)
				}
				// Calibrate: rounds for about 0.2 s of the raw exchange.
				rounds := 20
				for d := raw(rounds); d < 50*time.Millisecond; d = raw(rounds) {
					rounds *= 4
				}
				rounds = max(rounds*int(200*time.Millisecond/max(raw(rounds), time.Millisecond)), 20)
				var ratios, rawRates, ourRates []float64
				for range 5 {
					r := float64(rounds) / raw(rounds).Seconds()
					o := float64(rounds) / ours(rounds).Seconds()
					ratios, rawRates, ourRates = append(ratios, o/r), append(rawRates, r), append(ourRates, o)
				}
				b.ReportMetric(median(ratios), "ratio")
				b.ReportMetric(median(rawRates), "raw-rounds/s")
				b.ReportMetric(median(ourRates), "rounds/s")
			})
		}
	}
}

// median returns the median of xs (which it sorts).
func median(xs []float64) float64 {
	slices.Sort(xs)
	return xs[len(xs)/2]
}

// rawAgent is one agent of the raw exchanges.
type rawAgent struct {
	id    int
	nbrs  []int
	x     []float64
	in    chan []byte
	early [][]byte // frames of the next round
}

func newRawAgents(g *graph.Graph, d int) []*rawAgent {
	agents := make([]*rawAgent, g.N)
	for i := range agents {
		nb := g.Neighbors(i)
		agents[i] = &rawAgent{id: i, nbrs: nb, x: startValues(i, d), in: make(chan []byte, 4*len(nb)+4)}
	}
	return agents
}

// frame encodes (round, id, x).
func (a *rawAgent) frame(t int) []byte {
	f := make([]byte, 8+8*len(a.x))
	binary.LittleEndian.PutUint32(f, uint32(t))
	binary.LittleEndian.PutUint32(f[4:], uint32(a.id))
	for k, v := range a.x {
		binary.LittleEndian.PutUint64(f[8+8*k:], math.Float64bits(v))
	}
	return f
}

// receive averages x with the neighbours' frames of round t.
func (a *rawAgent) receive(t int) {
	sum := append([]float64(nil), a.x...)
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

// rawChan runs the channel exchange for rounds and returns its wall time.
func rawChan(b *testing.B, g *graph.Graph, d, rounds int) time.Duration {
	agents := newRawAgents(g, d)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for _, a := range agents {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			for t := range rounds {
				f := a.frame(t)
				for _, j := range a.nbrs {
					agents[j].in <- f
				}
				a.receive(t)
			}
		}()
	}
	b.ResetTimer()
	begin := time.Now()
	close(start)
	wg.Wait()
	return time.Since(begin)
}

// rawNATS runs the NATS exchange for rounds and returns its wall time.
func rawNATS(b *testing.B, g *graph.Graph, d, rounds int, inProcess bool) time.Duration {
	srv, err := StartNATSServer(NATSServerOptions{Name: "raw", Port: -1, InProcessOnly: inProcess})
	if err != nil {
		b.Fatal(err)
	}
	defer func() { srv.Shutdown(); srv.WaitForShutdown() }()
	opts := []nats.Option{nats.FlusherTimeout(0)}
	url := ""
	if inProcess {
		opts = append(opts, nats.InProcessServer(srv))
	} else {
		url = srv.ClientURL()
	}
	nc, err := nats.Connect(url, opts...)
	if err != nil {
		b.Fatal(err)
	}
	defer nc.Close()
	agents := newRawAgents(g, d)
	subjects := make([]string, g.N)
	for i := range subjects {
		subjects[i] = SubjectAgent("raw", i)
	}
	sub, err := nc.Subscribe(SubjectAgents("raw"), func(m *nats.Msg) {
		from := int(binary.LittleEndian.Uint32(m.Data[4:]))
		for _, j := range agents[from].nbrs {
			agents[j].in <- m.Data
		}
	})
	if err != nil {
		b.Fatal(err)
	}
	if err := sub.SetPendingLimits(-1, -1); err != nil {
		b.Fatal(err)
	}
	if err := nc.Flush(); err != nil {
		b.Fatal(err)
	}
	var wg sync.WaitGroup
	start := make(chan struct{})
	for _, a := range agents {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			for t := range rounds {
				if err := nc.Publish(subjects[a.id], a.frame(t)); err != nil {
					b.Error(err)
					return
				}
				a.receive(t)
			}
		}()
	}
	b.ResetTimer()
	begin := time.Now()
	close(start)
	wg.Wait()
	return time.Since(begin)
}
