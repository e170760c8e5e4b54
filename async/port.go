package async

import (
	"fmt"
	"slices"

	"github.com/consim/consim/consensus"
)

// Port calls one agent for a driver (the engine here, or the real-time
// driver): it checks and stamps the agent's messages, draws their
// latencies and links, counts the agent's updates and draws its clock
// intervals. A Port is not safe for concurrent use.
type Port struct {
	a     consensus.AsyncAgent
	id, n int
	clock *Clock
	link  *Link

	seq     int64 // messages sent
	ticks   int64 // clock intervals drawn
	updates int64
	armed   bool
	next    float64 // when the armed clock fires

	fx Effects
}

// Outgoing is one message an agent sent, as its driver must handle it.
type Outgoing struct {
	// Msg is the message, stamped with Sent and Version. Its Data belong
	// to the agent until the port's next call: copy them.
	Msg consensus.AsyncMsg
	// Seq is the message's number among its sender's messages.
	Seq int64
	// At is the time it arrives at Msg.To or, when Lost, comes back to
	// its sender.
	At float64
	// Lost reports that its link was absent.
	Lost bool
}

// Effects are the consequences of one call of the agent.
type Effects struct {
	// Out are the messages it sent, in order.
	Out []Outgoing
	// Armed reports that the call armed the clock, to fire at Next.
	Armed bool
	Next  float64
	// Updated reports an update of the agent's iterate.
	Updated bool
	// Used are the received values that entered the update.
	Used []consensus.AsyncUse
}

// NewPort returns the port of agent a among n agents, with the run's
// clock and link models (validated already).
func NewPort(a consensus.AsyncAgent, n int, clock *Clock, link *Link) *Port {
	return &Port{a: a, id: a.ID(), n: n, clock: clock, link: link}
}

// Agent returns the agent.
func (p *Port) Agent() consensus.AsyncAgent { return p.a }

// Updates returns the number of updates the agent has made.
func (p *Port) Updates() int64 { return p.updates }

// Ticks returns the number of clock intervals drawn (the ticks fired or
// pending).
func (p *Port) Ticks() int64 { return p.ticks }

// Sent returns the number of messages the agent has sent.
func (p *Port) Sent() int64 { return p.seq }

// Armed reports whether the clock is armed, and when it fires.
func (p *Port) Armed() (bool, float64) { return p.armed, p.next }

// Start calls the agent's Start at time 0.
func (p *Port) Start() (*Effects, error) {
	return p.effects(0, p.a.Start())
}

// Tick fires the armed clock at time now (its Next).
func (p *Port) Tick(now float64) (*Effects, error) {
	if !p.armed {
		return nil, fmt.Errorf("async: agent %d: tick at %v with no clock armed", p.id, now)
	}
	p.armed = false
	out, err := p.a.OnTick(now)
	if err != nil {
		return nil, fmt.Errorf("async: agent %d: tick at %v: %w", p.id, now, err)
	}
	return p.effects(now, out)
}

// Deliver hands the agent a message addressed to it.
func (p *Port) Deliver(now float64, m consensus.AsyncMsg) (*Effects, error) {
	out, err := p.a.OnMessage(now, m)
	if err != nil {
		return nil, fmt.Errorf("async: agent %d: message of kind %d from agent %d: %w", p.id, m.Kind, m.From, err)
	}
	return p.effects(now, out)
}

// Return hands the agent back one of its messages whose link was absent.
func (p *Port) Return(now float64, m consensus.AsyncMsg) (*Effects, error) {
	out, err := p.a.OnLost(now, m)
	if err != nil {
		return nil, fmt.Errorf("async: agent %d: lost message of kind %d to agent %d: %w", p.id, m.Kind, m.To, err)
	}
	return p.effects(now, out)
}

// effects checks and stamps out: it numbers and draws the messages, arms
// the clock and counts the update.
func (p *Port) effects(now float64, out consensus.AsyncOut) (*Effects, error) {
	fx := &p.fx
	fx.Out, fx.Used = fx.Out[:0], append(fx.Used[:0], out.Used...)
	fx.Armed, fx.Updated = out.Arm, out.Updated
	if out.Updated {
		p.updates++
	}
	for k := range out.Msgs {
		m := out.Msgs[k]
		switch {
		case m.From != p.id:
			return nil, fmt.Errorf("async: agent %d sent a message marked from agent %d", p.id, m.From)
		case m.To < 0 || m.To >= p.n || m.To == p.id:
			return nil, fmt.Errorf("async: agent %d sent a message to agent %d: must be another agent in [0, %d)", p.id, m.To, p.n)
		case m.Kind < 0 || m.Kind > consensus.MaxAsyncKind:
			return nil, fmt.Errorf("async: agent %d sent a message of kind %d: must be in [0, %d]", p.id, m.Kind, consensus.MaxAsyncKind)
		}
		if !m.Drawn {
			if _, ok := slices.BinarySearch(p.link.Graph.Neighbors(p.id), m.To); !ok {
				return nil, fmt.Errorf("async: agent %d sent a message that needs a link draw to agent %d, which is not a neighbour", p.id, m.To)
			}
		}
		m.Sent, m.Version = now, p.updates
		o := Outgoing{Msg: m, Seq: p.seq, At: now + p.link.Delay(p.id, m.To, p.seq)}
		o.Lost = !m.Drawn && !p.link.Present(now, p.id, m.To, p.seq)
		p.seq++
		fx.Out = append(fx.Out, o)
	}
	if out.Arm {
		if p.armed {
			return nil, fmt.Errorf("async: agent %d armed its clock at %v while it was armed to fire at %v", p.id, now, p.next)
		}
		p.armed = true
		p.next = now + p.clock.Interval(p.id, p.ticks)
		p.ticks++
		fx.Next = p.next
	}
	return fx, nil
}
