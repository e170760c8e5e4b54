package node

import (
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/consim/consim/consensus"
)

// liveClock is the clock of the liveness of every agent of one process
// (one RunAll, or one Run on its own): a single goroutine that, at each
// tick, publishes the heartbeats that are due and checks each agent's
// watchdog. Agents register when their Run starts and leave when it
// ends. One goroutine and one ticker serve the whole process, so 10^5
// goroutine agents cost 10^5 entries in a list, not 2 x 10^5 goroutines
// and tickers.
//
// The tick is the watchdog period, min(max(timeout/8, 1 ms), 1 s), or the
// heartbeat period if that is shorter. An agent's heartbeat is due one
// period after its latest status (a report or a heartbeat; any status
// tells the coordinator it is alive and in which round), so an agent that
// reports more often than the period sends no heartbeat at all. A silence
// over the timeout is seen within a tick of passing it.
type liveClock struct {
	period  time.Duration // heartbeat period; 0: no heartbeats
	timeout time.Duration // coordinator timeout; 0: no watchdog
	pid     int

	mu      sync.Mutex
	members []*liveness // each at its index idx
	done    chan struct{}
	wg      sync.WaitGroup
	started bool
	stopped bool
}

// newLiveClock returns the clock for agents run with o (heartbeat period
// o.Heartbeat, watchdog o.CoordinatorTimeout), or nil when o asks for
// neither. Its goroutine starts with the first agent.
func newLiveClock(o Options) *liveClock {
	if o.Heartbeat <= 0 && o.CoordinatorTimeout <= 0 {
		return nil
	}
	return &liveClock{
		period:  o.Heartbeat,
		timeout: o.CoordinatorTimeout,
		pid:     os.Getpid(),
		done:    make(chan struct{}),
	}
}

// tick is the clock's period (see liveClock).
func (c *liveClock) tick() time.Duration {
	d := time.Duration(0)
	if c.timeout > 0 {
		d = min(max(c.timeout/8, time.Millisecond), time.Second)
	}
	if c.period > 0 && (d == 0 || c.period < d) {
		d = c.period
	}
	return d
}

// add registers l, the liveness of agent id publishing through ep; its
// first heartbeat is due one period from now.
func (c *liveClock) add(l *liveness, ep Endpoint, id int) {
	l.ep, l.id = ep, id
	l.published.Store(time.Now().UnixNano())
	c.mu.Lock()
	defer c.mu.Unlock()
	l.idx = len(c.members)
	c.members = append(c.members, l)
	if !c.started && !c.stopped {
		c.started = true
		c.wg.Add(1)
		go func() {
			defer c.wg.Done()
			c.run()
		}()
	}
}

// remove unregisters l: once it returns, the clock publishes nothing
// more for l's agent and cancels nothing of it. Removing twice is a
// no-op.
func (c *liveClock) remove(l *liveness) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.removeLocked(l)
}

func (c *liveClock) removeLocked(l *liveness) {
	k := l.idx
	if k < 0 || k >= len(c.members) || c.members[k] != l {
		return
	}
	last := len(c.members) - 1
	c.members[k] = c.members[last]
	c.members[k].idx = k
	c.members[last] = nil
	c.members = c.members[:last]
	l.idx = -1
}

// stop ends the clock's goroutine and waits for it. Agents that register
// after stop get neither heartbeats nor a watchdog.
func (c *liveClock) stop() {
	c.mu.Lock()
	if c.stopped {
		c.mu.Unlock()
		return
	}
	c.stopped = true
	close(c.done)
	c.mu.Unlock()
	c.wg.Wait()
}

func (c *liveClock) run() {
	t := time.NewTicker(c.tick())
	defer t.Stop()
	for {
		select {
		case now := <-t.C:
			c.step(now)
		case <-c.done:
			return
		}
	}
}

// step publishes the heartbeats due at now and fires the watchdogs of the
// agents that heard no control for longer than the timeout. It holds the
// lock throughout, so an agent that has left (remove) is never published
// for.
func (c *liveClock) step(now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	ns := now.UnixNano()
	for k := 0; k < len(c.members); k++ {
		l := c.members[k]
		if c.timeout > 0 {
			if h := l.lastHeard(); h != 0 && ns-h > int64(c.timeout) {
				silent := time.Duration(ns - h)
				l.cancel(fmt.Errorf("%w: no control from the coordinator for %v (deadline %v)", ErrCoordinatorLost, silent.Round(time.Millisecond), c.timeout))
				c.removeLocked(l)
				k-- // the last member moved to k
				continue
			}
		}
		if c.period > 0 && ns-l.published.Load() >= int64(c.period) {
			s := Status{Kind: StatusAlive, ID: l.id, PID: c.pid, Report: consensus.Report{ID: l.id, Round: int(l.round.Load())}}
			if f, err := EncodeStatus(s); err == nil { // a report of two integers always encodes
				_ = l.ep.Status(f) // a lost heartbeat is what the coordinator's deadline is for
			}
			l.published.Store(ns)
		}
	}
}
