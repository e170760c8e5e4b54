package async

import (
	"errors"
	"fmt"
	"math"

	"github.com/consim/consim/consensus"
)

// Options configure an Engine.
type Options struct {
	// Clock is the agents' clock model.
	Clock Clock
	// Link is the links' model.
	Link Link
	// Observe, if set, is called after every event with its record, e.g.
	// to measure after every tick or to give a reference the sequence of
	// events.
	Observe func(Record)
}

// EventKind says what happened at an agent.
type EventKind uint8

// Event kinds of Record.Event.
const (
	EventTick    EventKind = iota // its clock fired: OnTick
	EventDeliver                  // a message reached it: OnMessage
	EventLost                     // its message came back: OnLost
)

func (k EventKind) String() string {
	switch k {
	case EventTick:
		return "tick"
	case EventDeliver:
		return "deliver"
	case EventLost:
		return "lost"
	}
	return fmt.Sprintf("event(%d)", uint8(k))
}

// Record describes one processed event.
type Record struct {
	// Time is the simulated time of the event.
	Time float64
	// Event is what happened, at agent Agent.
	Event EventKind
	Agent int
	// Peer is the message's sender (EventDeliver) or addressee
	// (EventLost); -1 for a tick.
	Peer int
	// Kind and Tag are the message's (0 for a tick).
	Kind int
	Tag  int64
	// Seq is the message's number among its sender's, or the tick's
	// index.
	Seq int64
	// Armed, Updated and Used describe the agent's answer: it armed its
	// clock, updated its iterate, used this many received values.
	Armed, Updated bool
	Used           int
	// Sent is the number of messages the call sent.
	Sent int
}

// Counters count what an Engine has done.
type Counters struct {
	// Events is the number of events processed; Ticks, Delivered and
	// Lost split it by kind.
	Events, Ticks, Delivered, Lost int64
	// Sent is the number of messages sent and Values the float64 values
	// they carried.
	Sent, Values int64
	// Updates is the agents' updates, summed.
	Updates int64
}

// ErrIdle is returned by Run when no event is pending: every agent waits
// for a message that no one will send, with its clock disarmed.
var ErrIdle = errors.New("async: no event pending: every agent is waiting with its clock disarmed")

// Engine runs asynchronous agents in simulated time. Its methods must be
// called from one goroutine at a time.
type Engine struct {
	ports   []*Port
	opts    Options
	clock   Clock
	link    Link
	q       queue
	slab    []slot
	free    []int32
	now     float64
	started bool
	cnt     Counters
	ages    Ages
}

// slot holds one message in flight.
type slot struct {
	m    consensus.AsyncMsg
	seq  int64
	lost bool
	data []float64
}

// New returns an engine of agents, which must be non-nil with
// agents[i].ID() == i. It validates the options' models.
func New(agents []consensus.AsyncAgent, opts Options) (*Engine, error) {
	if len(agents) == 0 {
		return nil, errors.New("async: no agents")
	}
	e := &Engine{opts: opts, clock: opts.Clock, link: opts.Link, ports: make([]*Port, len(agents))}
	if err := e.clock.Validate(len(agents)); err != nil {
		return nil, err
	}
	if err := e.link.Validate(); err != nil {
		return nil, err
	}
	if e.link.Graph.N != len(agents) {
		return nil, fmt.Errorf("async: %d agents on a graph of %d", len(agents), e.link.Graph.N)
	}
	for i, a := range agents {
		if a == nil {
			return nil, fmt.Errorf("async: agent %d is nil", i)
		}
		if a.ID() != i {
			return nil, fmt.Errorf("async: agent at index %d has ID %d: agents must be indexed by id", i, a.ID())
		}
		e.ports[i] = NewPort(a, len(agents), &e.clock, &e.link)
	}
	return e, nil
}

// Now returns the simulated time: the time of the last event processed,
// or the end of the last Run.
func (e *Engine) Now() float64 { return e.now }

// Counters returns what the engine has done so far.
func (e *Engine) Counters() Counters { return e.cnt }

// Updates returns agent i's number of updates.
func (e *Engine) Updates(i int) int64 { return e.ports[i].Updates() }

// Agents returns the agents (shared, not copied).
func (e *Engine) Agents() []consensus.AsyncAgent {
	as := make([]consensus.AsyncAgent, len(e.ports))
	for i, p := range e.ports {
		as[i] = p.Agent()
	}
	return as
}

// Report returns agent i's report.
func (e *Engine) Report(i int) consensus.Report { return e.ports[i].Agent().Report() }

// N returns the number of agents.
func (e *Engine) N() int { return len(e.ports) }

// Staleness returns the staleness of the values used since the last call
// and starts a new interval.
func (e *Engine) Staleness() Staleness { return e.ages.Take() }

// Pending returns the number of events in the queue.
func (e *Engine) Pending() int { return len(e.q) }

// Run processes every event up to time until (those at until included)
// and leaves the clock at until. The first Run starts the agents at time
// 0. It returns ErrIdle, with the clock at the last event, if the queue
// empties first, and the first error of an agent.
func (e *Engine) Run(until float64) error {
	if math.IsNaN(until) || until < e.now {
		return fmt.Errorf("async: run until %v: must not be before the current time %v", until, e.now)
	}
	if !e.started {
		e.started = true
		for i, p := range e.ports {
			fx, err := p.Start()
			if err != nil {
				return err
			}
			if err := e.apply(i, fx); err != nil {
				return err
			}
		}
	}
	for len(e.q) > 0 && e.q[0].t <= until {
		if err := e.step(); err != nil {
			return err
		}
	}
	if len(e.q) == 0 {
		return ErrIdle
	}
	e.now = until
	return nil
}

// step processes the next event.
func (e *Engine) step() error {
	ev := e.q.pop()
	e.now = ev.t
	e.cnt.Events++
	var (
		fx  *Effects
		err error
		rec = Record{Time: ev.t}
		id  int
	)
	if ev.msg < 0 {
		id = int(ev.key & math.MaxUint32)
		e.cnt.Ticks++
		rec.Event, rec.Agent, rec.Peer, rec.Seq = EventTick, id, -1, int64(ev.num)
		fx, err = e.ports[id].Tick(ev.t)
	} else {
		s := &e.slab[ev.msg]
		m := s.m
		m.Data = s.data
		rec.Kind, rec.Tag, rec.Seq = m.Kind, m.Tag, s.seq
		if s.lost {
			id = m.From
			e.cnt.Lost++
			rec.Event, rec.Agent, rec.Peer = EventLost, id, m.To
			fx, err = e.ports[id].Return(ev.t, m)
		} else {
			id = m.To
			e.cnt.Delivered++
			rec.Event, rec.Agent, rec.Peer = EventDeliver, id, m.From
			fx, err = e.ports[id].Deliver(ev.t, m)
		}
	}
	if err != nil {
		return err
	}
	rec.Armed, rec.Updated, rec.Used, rec.Sent = fx.Armed, fx.Updated, len(fx.Used), len(fx.Out)
	if err := e.apply(id, fx); err != nil {
		return err
	}
	if ev.msg >= 0 { // free the slot once its data can no longer be read
		e.free = append(e.free, ev.msg)
	}
	if e.opts.Observe != nil {
		e.opts.Observe(rec)
	}
	return nil
}

// apply queues the effects of agent id's call: its messages, its tick,
// and records the ages of the values it used.
func (e *Engine) apply(id int, fx *Effects) error {
	if fx.Updated {
		e.cnt.Updates++
	}
	for _, u := range fx.Used {
		if u.From < 0 || u.From >= len(e.ports) {
			return fmt.Errorf("async: agent %d used a value of agent %d: no such agent", id, u.From)
		}
		e.ages.Add(e.now-u.Sent, e.ports[u.From].Updates()-u.Version)
	}
	for k := range fx.Out {
		o := &fx.Out[k]
		e.cnt.Sent++
		e.cnt.Values += int64(len(o.Msg.Data))
		var idx int32
		if n := len(e.free); n > 0 {
			idx = e.free[n-1]
			e.free = e.free[:n-1]
		} else {
			e.slab = append(e.slab, slot{})
			idx = int32(len(e.slab) - 1)
		}
		s := &e.slab[idx]
		s.m, s.seq, s.lost = o.Msg, o.Seq, o.Lost
		s.data = append(s.data[:0], o.Msg.Data...)
		s.m.Data = nil
		e.q.push(event{t: o.At, key: classMessage<<32 | uint64(o.Msg.From), num: uint64(o.Seq), msg: idx})
	}
	if fx.Armed {
		p := e.ports[id]
		e.q.push(event{t: fx.Next, key: classTick<<32 | uint64(id), num: uint64(p.Ticks() - 1), msg: -1})
	}
	return nil
}
