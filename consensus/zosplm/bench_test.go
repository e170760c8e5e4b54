package zosplm

import (
	"fmt"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/problems/qcqp"
)

// cpuTime is the process's user + system CPU time, so that the figures of
// the benchmarks hold on a machine shared with other jobs.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkIteration is one ZO-SPLM iteration (k + 1 evaluations and the
// update) at k = 10,000 and n = 50, 100, 200 with the in-line driver. Run
// with -cpu 1: cpu-ms/op is the CPU time per iteration on one core, which
// holds on a machine shared with other jobs; 0 allocs/op shows that the
// 10,000 directions cost no allocation.
func BenchmarkIteration(b *testing.B) {
	for _, n := range []int{50, 100, 200} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			q, err := qcqp.New(n, 1, 1)
			if err != nil {
				b.Fatal(err)
			}
			s, err := NewServer(0, q.Box, 1, make([]float64, n), DefaultSPLMParams(n), 1)
			if err != nil {
				b.Fatal(err)
			}
			d := NewDriver(s, NewOracle(q))
			if err := d.Round(); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			c0 := cpuTime()
			for b.Loop() {
				if err := d.Round(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(cpuTime()-c0)/float64(b.N)/1e6, "cpu-ms/op")
		})
	}
}

// BenchmarkEval is one joint value (f, h) at n = 50; cpu-ms/1e4 is the
// cost of the 10,000 perturbed points of an iteration.
func BenchmarkEval(b *testing.B) {
	n := 50
	q, _ := qcqp.New(n, 1, 1)
	x := make([]float64, n)
	for i := range x {
		x[i] = float64(i%7) - 3
	}
	v, w := make([]float64, 2), make([]float64, q.WorkLen())
	c0 := cpuTime()
	for b.Loop() {
		q.Eval(x, v, w)
	}
	b.ReportMetric(float64(cpuTime()-c0)/float64(b.N)*1e4/1e6, "cpu-ms/1e4")
}

// BenchmarkFill is one sphere direction at n = 50; cpu-ms/1e4 is the
// cost of an iteration's directions.
func BenchmarkFill(b *testing.B) {
	d := NewDirections()
	out := make([]float64, 50)
	i := 0
	c0 := cpuTime()
	for b.Loop() {
		d.Fill(7, i, Sphere, out)
		i++
	}
	b.ReportMetric(float64(cpuTime()-c0)/float64(b.N)*1e4/1e6, "cpu-ms/1e4")
}

// BenchmarkWorkers is one ZO-SPLM iteration at n = 50, k = 10,000 with W
// concurrent oracle workers (goroutines, each with its own Oracle, taking
// the chunk requests in turn): the fan-out the runtime does, without a
// transport. ns/op is wall time per iteration; on a machine with P free
// cores it falls as min(W, P) grows, while cpu-ms/op stays put. The
// iterates are the same for every W (TestWorkersBitIdentical).
func BenchmarkWorkers(b *testing.B) {
	n := 50
	q, err := qcqp.New(n, 1, 1)
	if err != nil {
		b.Fatal(err)
	}
	for _, W := range []int{1, 2, 4, 8} {
		b.Run(fmt.Sprintf("W=%d", W), func(b *testing.B) {
			s, err := NewServer(0, q.Box, 1, make([]float64, n), DefaultSPLMParams(n), 1)
			if err != nil {
				b.Fatal(err)
			}
			oracles := make([]*Oracle, W)
			for w := range oracles {
				oracles[w] = NewOracle(q)
			}
			bufs := make([][]float64, DefaultEstimator().Chunks())
			round := func(t int) {
				for ph := range s.Phases(t) {
					out := s.Send(t, ph)
					res := bufs[:len(out.Evals)]
					var wg sync.WaitGroup
					for w := range W {
						wg.Add(1)
						go func() {
							defer wg.Done()
							for i := w; i < len(out.Evals); i += W {
								v, err := oracles[w].Evaluate(out.Evals[i], res[i][:0])
								if err != nil {
									panic(err)
								}
								res[i] = v
							}
						}()
					}
					wg.Wait()
					if err := s.Receive(t, ph, consensus.Inbox{Evals: res}); err != nil {
						b.Fatal(err)
					}
				}
			}
			round(0)
			t := 1
			b.ResetTimer()
			c0 := cpuTime()
			for b.Loop() {
				round(t)
				t++
			}
			b.ReportMetric(float64(cpuTime()-c0)/float64(b.N)/1e6, "cpu-ms/op")
		})
	}
}
