package sim

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/scenarios"
)

// startupQuiet is how long start-up may run before it logs its progress.
const startupQuiet = time.Second

// startup logs the steps of a run's start-up at info level once it has
// taken more than startupQuiet, so a large run does not sit silent.
type startup struct {
	log     hclog.Logger
	started time.Time
}

func newStartup(log hclog.Logger, started time.Time) *startup {
	return &startup{log: log, started: started}
}

// step logs that what is done, with the time since start-up began, if
// that exceeds startupQuiet.
func (s *startup) step(what string) {
	if el := time.Since(s.started); el > startupQuiet {
		s.log.Info("start-up: "+what, "elapsed_s", el.Round(time.Millisecond).Seconds())
	}
}

// progress returns a callback for BuildAgents that logs, at most once a
// second after startupQuiet, how many of the agents are built, and what
// when the last one is.
func (s *startup) progress(what string) func(done, total int) {
	var mu sync.Mutex
	last := s.started
	return func(done, total int) {
		mu.Lock()
		defer mu.Unlock()
		now := time.Now()
		switch {
		case done == total:
			s.step(what)
		case now.Sub(s.started) > startupQuiet && now.Sub(last) >= time.Second:
			last = now
			s.log.Info("start-up: building agents", "built", done, "of", total, "elapsed_s", now.Sub(s.started).Round(time.Millisecond).Seconds())
		}
	}
}

// BuildAgents builds every agent of st on w goroutines (w = GOMAXPROCS
// when w <= 0), each building a contiguous block of ids, and calls
// progress (if not nil) with the number built every 1024 agents and at
// the end. It returns the error of the lowest agent id that failed. The
// agents are those of st.Agents: an agent's constructor reads only the
// shared, already built Setup.
func BuildAgents(st *scenarios.Setup, w int, progress func(done, total int)) ([]consensus.Agent, error) {
	n := st.Scenario.Agents
	if w <= 0 {
		w = runtime.GOMAXPROCS(0)
	}
	w = max(1, min(w, n))
	as := make([]consensus.Agent, n)
	errs := make([]error, w)
	var built atomic.Int64
	var wg sync.WaitGroup
	for k := range w {
		lo, hi := k*n/w, (k+1)*n/w
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := lo; i < hi; i++ {
				a, err := st.Agent(i)
				if err != nil {
					errs[k] = err
					return
				}
				as[i] = a
				if d := built.Add(1); progress != nil && d%1024 == 0 && int(d) != n {
					progress(int(d), n)
				}
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	if progress != nil {
		progress(n, n)
	}
	return as, nil
}
