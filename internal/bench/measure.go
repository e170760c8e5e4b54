package bench

import (
	"runtime"
	"runtime/metrics"
	"sync"
	"time"
)

// Cost is what one run cost the process. Allocations, bytes and CPU time
// are process-wide, so they include the NATS server's and client's work
// when the run uses NATS; the measurement runs alone in its process.
type Cost struct {
	// Wall is the wall time of the rounds (Run.Start).
	Wall time.Duration
	// CPU is the process's user + system CPU time over the rounds (zero
	// where the platform does not report it).
	CPU time.Duration
	// Allocs and Bytes are the heap allocations over the rounds.
	Allocs, Bytes uint64
	// PeakBytes is the peak of heap objects plus goroutine stacks, from
	// before the setup to the end of the rounds, sampled every 5 ms, above
	// what was in use before the setup (after a GC).
	PeakBytes uint64
}

// Measure sets up a run with setup (connections, agents), runs it, closes
// it and returns its cost.
func Measure(setup func() (Run, error)) (Cost, error) {
	runtime.GC()
	base := inUse()
	var peak uint64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			peak = max(peak, inUse())
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	})
	finish := func() uint64 {
		close(stop)
		wg.Wait()
		return max(peak, inUse())
	}
	r, err := setup()
	if err != nil {
		finish()
		return Cost{}, err
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	cpu0 := cpuTime()
	wall, err := r.Start()
	cpu1 := cpuTime()
	runtime.ReadMemStats(&after)
	p := finish()
	if cerr := r.Close(); err == nil {
		err = cerr
	}
	c := Cost{Wall: wall, CPU: cpu1 - cpu0, Allocs: after.Mallocs - before.Mallocs, Bytes: after.TotalAlloc - before.TotalAlloc}
	if p > base {
		c.PeakBytes = p - base
	}
	return c, err
}

// memSamples are the runtime metrics whose sum is the memory in use.
var memSamples = []string{"/memory/classes/heap/objects:bytes", "/memory/classes/heap/stacks:bytes"}

// inUse returns the bytes of heap objects and goroutine stacks.
func inUse() uint64 {
	s := make([]metrics.Sample, len(memSamples))
	for i, name := range memSamples {
		s[i].Name = name
	}
	metrics.Read(s)
	var total uint64
	for _, x := range s {
		if x.Value.Kind() == metrics.KindUint64 {
			total += x.Value.Uint64()
		}
	}
	return total
}
