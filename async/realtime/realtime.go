// Package realtime runs asynchronous agents (consensus.AsyncAgent) in
// real time on consim's transports (node.Endpoint: in-memory channels,
// NATS in-process, NATS over TCP): one goroutine per agent with a real
// clock. Simulated time is wall time divided by Config.Scale since the
// run's start: an agent's clock interval of d simulated units is d*Scale
// of wall time, a message's latency L is held back L*Scale before it is
// published (the transport's own delay comes on top), and a message
// whose link is absent comes back to its sender L*Scale after it was
// sent. Clock intervals, latencies and link draws are those of the event
// engine (package async: the same Clock, Link and Port), keyed by the
// same counters, so a real-time run is the simulated one up to the
// transport's delays and the timers' lateness: its statistics match, its
// bits do not.
//
// Frames. A message travels as a node data frame (node.FrameData, the
// frame every round-based agent sends) with one destination, whose round
// field carries the sender's update count (AsyncMsg.Version), whose
// phase field carries AsyncMsg.Kind, and whose values are the send time,
// the Tag and the data: [Sent, Tag, Data...] (docs/protocol.md, async
// frames). On NATS it is sealed with the run's MAC like every frame. A
// frame that does not decode as such a message is counted (Result.
// Malformed) and dropped.
//
// Observation. Every Config.Every of simulated time (and at the end),
// each agent's goroutine records its report and the ages of the values
// it used since its previous record; once every agent has recorded a
// sample, Config.Observe gets the reports and the run's Sample, in time
// order, from the goroutine that called Run. The age of a value in its
// sender's updates reads the sender's update count, which the agents'
// goroutines publish to each other in memory: the agents of a run share
// one process.
//
// realtime imports async, consensus and node; it must not import
// coordinator, scenarios or cmd.
package realtime

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/consim/consim/async"
	"github.com/consim/consim/consensus"
	"github.com/consim/consim/node"
)

// Config configures Run.
type Config struct {
	// Clock and Link are the models of the run, as for the event engine.
	Clock async.Clock
	Link  async.Link
	// Scale is the wall time of one simulated unit, > 0.
	Scale time.Duration
	// Horizon is the simulated time the run lasts, > 0.
	Horizon float64
	// Every is the period of the samples in simulated time, > 0.
	Every float64
	// Observe, if set, gets every sample: the agents' reports and the
	// run's Sample. An error ends the run with it; ErrStop ends it
	// without error.
	Observe func(reps []consensus.Report, s async.Sample) error
}

// ErrStop, returned by Config.Observe, ends the run early without error.
var ErrStop = errors.New("realtime: stop")

// Result counts what a run did.
type Result struct {
	// Sent, Delivered and Lost count messages: sent by the agents,
	// handed to their addressees, and returned to their senders because
	// their link was absent.
	Sent, Delivered, Lost int64
	// Values is the float64 values the sent messages carried.
	Values int64
	// Bytes is the size of the frames published.
	Bytes int64
	// Updates is the agents' updates, summed.
	Updates int64
	// Malformed counts frames that did not decode as a message for the
	// agent that got them.
	Malformed int64
	// Samples is the number of samples observed.
	Samples int
	// Late is the largest lateness of a timer, in simulated units: how
	// long after its time an event was handled; MeanLate is the mean over
	// the timers. They say how well the machine kept the time scale.
	Late, MeanLate float64
}

// Run runs agents (agents[i].ID() == i) over tr until Config.Horizon and
// returns what they did. It connects every endpoint, starts every agent
// at time 0 and closes the endpoints when all have ended. The first
// error of an agent, of a frame publish or of Observe ends the run.
func Run(ctx context.Context, agents []consensus.AsyncAgent, tr node.Transport, cfg Config) (Result, error) {
	n := len(agents)
	switch {
	case n == 0:
		return Result{}, errors.New("realtime: no agents")
	case !(cfg.Scale > 0):
		return Result{}, fmt.Errorf("realtime: time scale %v: must be > 0", cfg.Scale)
	case !(cfg.Horizon > 0) || math.IsInf(cfg.Horizon, 0):
		return Result{}, fmt.Errorf("realtime: horizon %v: must be finite and > 0", cfg.Horizon)
	case !(cfg.Every > 0) || math.IsInf(cfg.Every, 0):
		return Result{}, fmt.Errorf("realtime: sample period %v: must be finite and > 0", cfg.Every)
	}
	if err := cfg.Clock.Validate(n); err != nil {
		return Result{}, err
	}
	if err := cfg.Link.Validate(); err != nil {
		return Result{}, err
	}
	r := &run{cfg: cfg, n: n, updates: make([]atomic.Int64, n), agents: make([]*agent, n)}
	r.samples = int(math.Floor(cfg.Horizon/cfg.Every)) + 1
	if float64(r.samples-1)*cfg.Every < cfg.Horizon {
		r.samples++ // the last sample is at the horizon
	}
	r.slots = make([]sampleSlot, r.samples)
	for m := range r.slots {
		r.slots[m].reps = make([]consensus.Report, n)
		r.slots[m].ages = make([]async.Ages, n)
		r.slots[m].cnt = make([][3]int64, n)
	}
	r.ready = make(chan int, r.samples)
	for i, a := range agents {
		if a == nil || a.ID() != i {
			return Result{}, fmt.Errorf("realtime: agent at index %d is nil or has another ID", i)
		}
		ep, err := tr.Endpoint(i)
		if err != nil {
			r.closeAll()
			return Result{}, fmt.Errorf("realtime: connect agent %d: %w", i, err)
		}
		r.agents[i] = &agent{r: r, id: i, ep: ep, port: async.NewPort(a, n, &r.cfg.Clock, &r.cfg.Link)}
	}
	defer r.closeAll()
	g, gctx := errgroup.WithContext(ctx)
	r.start = time.Now()
	for _, a := range r.agents {
		g.Go(func() error { return a.loop(gctx) })
	}
	var res Result
	var timers int64
	g.Go(func() error { return r.observe(gctx, &res) })
	err := g.Wait()
	if errors.Is(err, ErrStop) {
		err = nil
	}
	for _, a := range r.agents {
		res.Sent += a.sent
		res.Delivered += a.delivered
		res.Lost += a.lost
		res.Values += a.values
		res.Bytes += a.bytes
		res.Malformed += a.malformed
		res.Updates += a.port.Updates()
		res.Late = math.Max(res.Late, a.late)
		res.MeanLate += a.lateSum
		timers += a.timers
	}
	res.MeanLate /= math.Max(float64(timers), 1)
	return res, err
}

// run is the state the agents' goroutines share.
type run struct {
	cfg     Config
	n       int
	start   time.Time
	updates []atomic.Int64 // each agent's update count, for staleness
	agents  []*agent
	samples int
	slots   []sampleSlot
	ready   chan int // samples every agent has recorded, in order
}

// sampleSlot collects one sample from every agent.
type sampleSlot struct {
	reps []consensus.Report
	ages []async.Ages
	cnt  [][3]int64   // updates, messages sent, values sent
	left atomic.Int64 // agents that recorded it
}

// timeOf returns the sample time of sample m: m*Every, the last at the
// horizon.
func (r *run) timeOf(m int) float64 { return math.Min(float64(m)*r.cfg.Every, r.cfg.Horizon) }

// now returns the simulated time.
func (r *run) now() float64 { return float64(time.Since(r.start)) / float64(r.cfg.Scale) }

// wall returns the wall time of simulated time t.
func (r *run) wall(t float64) time.Time { return r.start.Add(time.Duration(t * float64(r.cfg.Scale))) }

// record stores agent i's sample m and hands the sample on once every
// agent has recorded it.
func (r *run) record(m, i int, rep consensus.Report, ages *async.Ages, cnt [3]int64) {
	s := &r.slots[m]
	s.reps[i], s.cnt[i] = rep, cnt
	s.ages[i].Merge(ages)
	ages.Reset()
	if s.left.Add(1) == int64(r.n) {
		r.ready <- m
	}
}

// observe hands the complete samples to Config.Observe in order.
func (r *run) observe(ctx context.Context, res *Result) error {
	for m := 0; m < r.samples; m++ {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-r.ready:
		}
		s := &r.slots[m]
		var all async.Ages
		smp := async.Sample{Time: r.timeOf(m)}
		for i := range s.ages {
			all.Merge(&s.ages[i])
			smp.Updates += s.cnt[i][0]
			smp.Sent += s.cnt[i][1]
			smp.Floats += s.cnt[i][2]
		}
		smp.Staleness = all.Take()
		res.Samples++
		if r.cfg.Observe != nil {
			if err := r.cfg.Observe(s.reps, smp); err != nil {
				return err
			}
		}
		s.reps, s.ages = nil, nil
	}
	return nil
}

// closeAll closes the connected endpoints.
func (r *run) closeAll() {
	for _, a := range r.agents {
		if a != nil {
			a.ep.Close()
		}
	}
}

// agent is one agent's goroutine state.
type agent struct {
	r    *run
	id   int
	ep   node.Endpoint
	port *async.Port
	q    timers
	ages async.Ages
	buf  []float64
	next int // the next sample to record

	sent, delivered, lost, values, bytes, malformed int64
	late, lateSum                                   float64
	timers                                          int64
}

// loop runs the agent until its last sample.
func (a *agent) loop(ctx context.Context) error {
	fx, err := a.port.Start()
	if err != nil {
		return err
	}
	if err := a.apply(0, fx); err != nil {
		return err
	}
	for m := range a.r.samples {
		a.q.push(timer{at: a.r.timeOf(m), kind: kindSample})
	}
	t := time.NewTimer(time.Hour)
	defer t.Stop()
	inbox := a.ep.Inbox()
	for a.next < a.r.samples {
		t.Reset(time.Until(a.r.wall(a.q.peek().at)))
		select {
		case <-ctx.Done():
			return ctx.Err()
		case frame, ok := <-inbox:
			if !ok {
				return fmt.Errorf("realtime: agent %d: endpoint closed", a.id)
			}
			if err := a.receive(frame); err != nil {
				return err
			}
		case <-t.C:
		}
		if err := a.due(); err != nil {
			return err
		}
	}
	return nil
}

// due handles every timer whose time has come.
func (a *agent) due() error {
	for a.q.len() > 0 {
		now := a.r.now()
		if a.q.peek().at > now {
			return nil
		}
		ev := a.q.pop()
		a.late = math.Max(a.late, now-ev.at)
		a.lateSum += now - ev.at
		a.timers++
		var fx *async.Effects
		var err error
		switch ev.kind {
		case kindSample:
			a.r.record(a.next, a.id, a.port.Agent().Report(), &a.ages, [3]int64{a.port.Updates(), a.sent, a.values})
			a.next++
			if a.next == a.r.samples {
				return nil
			}
			continue
		case kindPublish:
			if err := a.ep.Publish(ev.frame); err != nil {
				return fmt.Errorf("realtime: agent %d: publish: %w", a.id, err)
			}
			continue
		case kindTick:
			// The clock's time, not the timer's: intervals do not drift.
			fx, err = a.port.Tick(ev.at)
			now = ev.at
		case kindLost:
			a.lost++
			fx, err = a.port.Return(now, ev.msg)
		}
		if err != nil {
			return err
		}
		if err := a.apply(now, fx); err != nil {
			return err
		}
	}
	return nil
}

// receive decodes a frame and hands its message to the agent.
func (a *agent) receive(frame []byte) error {
	h, vals, err := node.DecodeFrame(a.buf[:0], frame)
	a.buf = vals
	if err != nil || h.Kind != node.FrameData || h.NTo != 1 || node.FrameTo(frame, h, 0) != a.id || len(vals) < 2 ||
		h.From < 0 || h.From >= a.r.n || h.Phase > consensus.MaxAsyncKind {
		a.malformed++
		return nil
	}
	m := consensus.AsyncMsg{From: h.From, To: a.id, Kind: h.Phase, Tag: int64(vals[1]), Sent: vals[0], Version: int64(h.Round), Data: vals[2:]}
	a.delivered++
	now := a.r.now()
	fx, err := a.port.Deliver(now, m)
	if err != nil {
		return err
	}
	return a.apply(now, fx)
}

// apply publishes or schedules the agent's messages, arms its clock and
// records the ages of the values it used.
func (a *agent) apply(now float64, fx *async.Effects) error {
	a.r.updates[a.id].Store(a.port.Updates())
	for _, u := range fx.Used {
		if u.From < 0 || u.From >= a.r.n {
			return fmt.Errorf("realtime: agent %d used a value of agent %d: no such agent", a.id, u.From)
		}
		a.ages.Add(now-u.Sent, a.r.updates[u.From].Load()-u.Version)
	}
	for k := range fx.Out {
		o := &fx.Out[k]
		a.sent++
		a.values += int64(len(o.Msg.Data))
		if o.Lost {
			m := o.Msg
			m.Data = append([]float64(nil), m.Data...)
			a.q.push(timer{at: o.At, kind: kindLost, msg: m})
			continue
		}
		frame, err := encode(o.Msg)
		if err != nil {
			return fmt.Errorf("realtime: agent %d: %w", a.id, err)
		}
		a.bytes += int64(len(frame))
		if o.At <= now {
			if err := a.ep.Publish(frame); err != nil {
				return fmt.Errorf("realtime: agent %d: publish: %w", a.id, err)
			}
			continue
		}
		a.q.push(timer{at: o.At, kind: kindPublish, frame: frame})
	}
	if fx.Armed {
		a.q.push(timer{at: fx.Next, kind: kindTick})
	}
	return nil
}

// encode writes m as a data frame: round = Version, phase = Kind, values
// [Sent, Tag, Data...].
func encode(m consensus.AsyncMsg) ([]byte, error) {
	vals := make([]float64, 0, len(m.Data)+2)
	vals = append(append(vals, m.Sent, float64(m.Tag)), m.Data...)
	if m.Version > node.MaxFrameRound {
		return nil, fmt.Errorf("update count %d does not fit a frame's round", m.Version)
	}
	return node.AppendFrameTo(nil, node.FrameData, m.From, []int{m.To}, int(m.Version), m.Kind, vals)
}

// Timer kinds of an agent's queue.
const (
	kindSample = iota
	kindPublish
	kindTick
	kindLost
)

// timer is one pending event of an agent's goroutine.
type timer struct {
	at    float64
	kind  int
	seq   int64 // insertion order, for ties
	frame []byte
	msg   consensus.AsyncMsg
}

// timers is a min-heap of timers by (at, insertion order).
type timers struct {
	h   []timer
	seq int64
}

func (q *timers) len() int     { return len(q.h) }
func (q *timers) peek() *timer { return &q.h[0] }

func (q *timers) less(i, j int) bool {
	a, b := &q.h[i], &q.h[j]
	if a.at != b.at {
		return a.at < b.at
	}
	return a.seq < b.seq
}

func (q *timers) push(t timer) {
	t.seq = q.seq
	q.seq++
	q.h = append(q.h, t)
	for i := len(q.h) - 1; i > 0; {
		p := (i - 1) / 2
		if !q.less(i, p) {
			break
		}
		q.h[i], q.h[p] = q.h[p], q.h[i]
		i = p
	}
}

func (q *timers) pop() timer {
	top := q.h[0]
	last := len(q.h) - 1
	q.h[0] = q.h[last]
	q.h[last] = timer{}
	q.h = q.h[:last]
	for i := 0; ; {
		l := 2*i + 1
		if l >= len(q.h) {
			break
		}
		m := l
		if r := l + 1; r < len(q.h) && q.less(r, l) {
			m = r
		}
		if !q.less(m, i) {
			break
		}
		q.h[i], q.h[m] = q.h[m], q.h[i]
		i = m
	}
	return top
}
