package node

import (
	"context"
	"errors"
	"testing"
	"time"
)

// statusRecorder is an Endpoint that keeps the statuses published through
// it and tells when a control last reached it (controlHeard).
type statusRecorder struct {
	Endpoint
	statuses []Status
	heard    int64
}

func (e *statusRecorder) Status(f []byte) error {
	s, err := DecodeStatus(f)
	if err != nil {
		return err
	}
	e.statuses = append(e.statuses, s)
	return nil
}

func (e *statusRecorder) lastControl() int64 { return e.heard }

// member registers an agent with c as startLiveness does, over ep.
func (c *liveClock) member(t *testing.T, id int, ep *statusRecorder) *liveness {
	t.Helper()
	l := &liveness{done: make(chan struct{}), clock: c, heardFrom: ep}
	l.ctx, l.cancel = context.WithCancelCause(context.Background())
	c.add(l, ep, id)
	return l
}

// TestLiveClockStep drives the clock by hand (step at chosen times): a
// heartbeat is due one period after the agent's latest status, and not
// before; a status of the agent's own resets the count; the watchdog
// fires once no control has come for longer than the timeout, and only
// then, and the agent leaves the clock.
func TestLiveClockStep(t *testing.T) {
	const period, timeout = time.Second, 10 * time.Second
	c := newLiveClock(Options{Heartbeat: period, CoordinatorTimeout: timeout})
	c.started = true // no goroutine: the test steps the clock itself
	defer c.stop()
	if c.tick() != period {
		t.Errorf("tick %v, want the heartbeat period %v (shorter than timeout/8)", c.tick(), period)
	}
	t0 := time.Now()
	a, b := &statusRecorder{heard: t0.UnixNano()}, &statusRecorder{heard: t0.UnixNano()}
	la, lb := c.member(t, 3, a), c.member(t, 4, b)
	la.published.Store(t0.UnixNano())
	lb.published.Store(t0.UnixNano())
	la.setRound(7)

	c.step(t0.Add(period / 2))
	if len(a.statuses)+len(b.statuses) != 0 {
		t.Fatalf("heartbeats half a period after the last status: %v %v", a.statuses, b.statuses)
	}
	lb.published.Store(t0.Add(period / 2).UnixNano()) // b reported
	c.step(t0.Add(period))
	if len(a.statuses) != 1 || a.statuses[0].Kind != StatusAlive || a.statuses[0].ID != 3 || a.statuses[0].Report.Round != 7 {
		t.Fatalf("agent 3 after a period: %+v, want one alive status at round 7", a.statuses)
	}
	if len(b.statuses) != 0 {
		t.Fatalf("agent 4 reported half a period ago, yet got a heartbeat: %+v", b.statuses)
	}
	c.step(t0.Add(3 * period / 2))
	if len(b.statuses) != 1 || len(a.statuses) != 1 {
		t.Fatalf("after 1.5 periods: %d and %d heartbeats, want 1 and 1", len(a.statuses), len(b.statuses))
	}

	b.heard = t0.Add(5 * time.Second).UnixNano() // b heard a control later
	c.step(t0.Add(timeout + time.Millisecond))
	if err := context.Cause(la.ctx); !errors.Is(err, ErrCoordinatorLost) {
		t.Errorf("agent 3 silent for over the timeout: cause %v, want ErrCoordinatorLost", err)
	}
	if err := context.Cause(lb.ctx); err != nil {
		t.Errorf("agent 4 heard a control 5 s ago: cancelled with %v", err)
	}
	if len(c.members) != 1 || c.members[0] != lb || lb.idx != 0 || la.idx != -1 {
		t.Errorf("members after the watchdog: %d (agent 3 index %d, agent 4 index %d), want agent 4 alone at 0", len(c.members), la.idx, lb.idx)
	}
	c.remove(la) // removing twice is a no-op
	c.remove(lb)
	if len(c.members) != 0 {
		t.Errorf("%d members after both left", len(c.members))
	}
}
