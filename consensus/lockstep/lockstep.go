// Package lockstep drives a set of consensus.Agent in-process and
// synchronously: every phase of a round it collects all outboxes, routes
// the messages, sums the reduce and delivers the inboxes, with optional
// injected message loss. It is the reference runtime of the agent contract
// for tests and centralized experiments: no goroutines, no I/O, no clocks,
// and its only randomness is the caller's drop function.
//
// lockstep imports consensus (and, through consensus.Msg, its compress)
// only.
package lockstep

import (
	"fmt"
	"slices"

	"github.com/consim/consim/consensus"
)

// DropFunc reports whether the message of phase ph of round t from agent
// from to agent to is lost. A lost message becomes Missing at its
// recipient. It must be a pure function of its arguments for a run to
// replay.
type DropFunc func(t, ph, from, to int) bool

// Option configures a Driver.
type Option func(*Driver)

// WithDrop injects message loss: every message for which drop returns true
// is discarded and its sender reported Missing at the recipient.
func WithDrop(drop DropFunc) Option { return func(d *Driver) { d.drop = drop } }

// WithOracle evaluates the agents' Outbox.Evals in-line with o, in
// request order, into Inbox.Evals: what the runtime's oracle workers do,
// whatever their number.
func WithOracle(o consensus.Oracle) Option { return func(d *Driver) { d.oracle = o } }

// Symmetric makes Round check that every phase's exchange is symmetric:
// agent i sends to j exactly the agents it expects to hear from, and j
// expects i back. Algorithms that exchange along undirected edges (both
// endpoints compute the same edge draws) satisfy it; a violation is a bug
// in the common randomness.
func Symmetric() Option { return func(d *Driver) { d.symmetric = true } }

// Traffic counts the messages a Driver has routed so far.
type Traffic struct {
	// Sent is the number of messages the agents emitted.
	Sent int64
	// Bytes is the number of bytes their values take on the wire
	// (consensus.Msg.PayloadLen: 8 per value, or the compact payload),
	// without the transports' frame headers and MACs.
	Bytes int64
	// Dropped is the number of those the drop function discarded.
	Dropped int64
}

// Driver runs the agents 0..N-1 of one run in lockstep. It is not safe for
// concurrent use.
type Driver struct {
	agents    []consensus.Agent
	drop      DropFunc
	oracle    consensus.Oracle
	symmetric bool
	traffic   Traffic

	// Per-phase buffers, reused across phases.
	outs     []consensus.Outbox
	ins      []consensus.Inbox
	expected [][]bool // expected[i][j]: agent i expects j this phase
	got      [][]bool // got[i][j]: j sent to i this phase
}

// New returns a driver of agents, which must be non-nil and satisfy
// agents[i].ID() == i.
func New(agents []consensus.Agent, opts ...Option) (*Driver, error) {
	if len(agents) == 0 {
		return nil, fmt.Errorf("lockstep: no agents")
	}
	for i, a := range agents {
		if a == nil {
			return nil, fmt.Errorf("lockstep: agent %d is nil", i)
		}
		if a.ID() != i {
			return nil, fmt.Errorf("lockstep: agent at index %d has ID %d", i, a.ID())
		}
	}
	n := len(agents)
	d := &Driver{
		agents:   append([]consensus.Agent(nil), agents...),
		outs:     make([]consensus.Outbox, n),
		ins:      make([]consensus.Inbox, n),
		expected: make([][]bool, n),
		got:      make([][]bool, n),
	}
	for i := range d.expected {
		d.expected[i] = make([]bool, n)
		d.got[i] = make([]bool, n)
	}
	for _, o := range opts {
		o(d)
	}
	return d, nil
}

// Round runs the agents through the single round t with the given options;
// it is New followed by Driver.Round.
func Round(agents []consensus.Agent, t int, opts ...Option) error {
	d, err := New(agents, opts...)
	if err != nil {
		return err
	}
	return d.Round(t)
}

// Traffic returns the message counts so far.
func (d *Driver) Traffic() Traffic { return d.traffic }

// Run runs rounds from, from+1, ..., from+count-1 and stops at the first
// error.
func (d *Driver) Run(from, count int) error {
	for t := from; t < from+count; t++ {
		if err := d.Round(t); err != nil {
			return err
		}
	}
	return nil
}

// Round runs round t. The agents must agree on Phases(t). In every phase
// it calls Send on all agents in id order, then builds each agent's inbox:
// the messages addressed to it from the senders it expects, copied and
// ascending by From; Missing, the expected senders whose message was not
// sent or was dropped, ascending; Reduce, the sum of the non-nil
// Outbox.Reduce terms in ascending agent order, over all agents or over
// the agent's Group (nil if there is none); and Evals, the answers to its
// Outbox.Evals (see WithOracle).
// Finally it calls Receive on all agents in id order and returns the first
// error. A message to an agent that does not expect it, a second message
// to the same recipient in a phase, an Expect list that is unsorted or out
// of range, and reduce terms of different lengths are errors.
func (d *Driver) Round(t int) error {
	phases := d.agents[0].Phases(t)
	for i, a := range d.agents {
		if p := a.Phases(t); p != phases {
			return fmt.Errorf("lockstep: round %d: agent %d has %d phases, agent 0 has %d", t, i, p, phases)
		}
	}
	for ph := 0; ph < phases; ph++ {
		if err := d.phase(t, ph); err != nil {
			return fmt.Errorf("lockstep: round %d phase %d: %w", t, ph, err)
		}
	}
	return nil
}

// phase runs phase ph of round t.
func (d *Driver) phase(t, ph int) error {
	n := len(d.agents)
	for i, a := range d.agents {
		d.outs[i] = a.Send(t, ph)
	}
	if err := d.index(); err != nil {
		return err
	}
	got := d.got
	for i := range got {
		clear(got[i])
		d.ins[i] = consensus.Inbox{}
	}
	if err := d.reduce(); err != nil {
		return err
	}
	if err := d.evaluate(); err != nil {
		return err
	}
	// Senders are visited in ascending id order, so every inbox is built
	// ascending by From without sorting.
	for i, o := range d.outs {
		for _, m := range o.Msgs {
			if m.From != i {
				return fmt.Errorf("agent %d sends a message marked From %d", i, m.From)
			}
			if m.To < 0 || m.To >= n {
				return fmt.Errorf("agent %d sends to agent %d, outside [0, %d)", i, m.To, n)
			}
			if !d.expected[m.To][i] {
				return fmt.Errorf("agent %d sends to agent %d, which does not expect it", i, m.To)
			}
			if got[m.To][i] {
				return fmt.Errorf("agent %d sends twice to agent %d", i, m.To)
			}
			if d.symmetric && !d.expected[i][m.To] {
				return fmt.Errorf("exchange %d->%d is not symmetric: %d does not expect %d", i, m.To, i, m.To)
			}
			size, err := m.PayloadLen()
			if err != nil {
				return fmt.Errorf("agent %d's message to agent %d: %w", i, m.To, err)
			}
			got[m.To][i] = true
			d.traffic.Sent++
			d.traffic.Bytes += int64(size)
			if d.drop != nil && d.drop(t, ph, i, m.To) {
				d.traffic.Dropped++
				continue
			}
			m.Data = append([]float64(nil), m.Data...)
			d.ins[m.To].Msgs = append(d.ins[m.To].Msgs, m)
		}
	}
	for i, o := range d.outs {
		if d.symmetric && len(o.Msgs) != len(o.Expect) {
			return fmt.Errorf("agent %d sends %d messages but expects %d", i, len(o.Msgs), len(o.Expect))
		}
		delivered := d.ins[i].Msgs
		k := 0
		for _, j := range o.Expect {
			if k < len(delivered) && delivered[k].From == j {
				k++
				continue
			}
			d.ins[i].Missing = append(d.ins[i].Missing, j)
		}
	}
	for i, a := range d.agents {
		if err := a.Receive(t, ph, d.ins[i]); err != nil {
			return fmt.Errorf("agent %d: %w", i, err)
		}
	}
	return nil
}

// index validates every Expect list and records it in d.expected.
func (d *Driver) index() error {
	n := len(d.agents)
	for i, o := range d.outs {
		clear(d.expected[i])
		prev := -1
		for _, j := range o.Expect {
			if j < 0 || j >= n {
				return fmt.Errorf("agent %d expects agent %d, outside [0, %d)", i, j, n)
			}
			if j <= prev {
				return fmt.Errorf("agent %d: Expect is not strictly ascending at %d", i, j)
			}
			d.expected[i][j] = true
			prev = j
		}
	}
	return nil
}

// reduce delivers the phase's sums: the all-reduce, sum_i Outbox.Reduce
// over the agents without a Group, to each of them, and each group's sum
// over its members to its members, every sum in ascending agent order.
// A Group must be strictly ascending and contain the agent; its members
// must give the same Group.
func (d *Driver) reduce() error {
	type sum struct {
		members []int
		v       []float64
	}
	var sums []*sum
	find := func(g []int) *sum {
		for _, s := range sums {
			if slices.Equal(s.members, g) {
				return s
			}
		}
		s := &sum{members: g}
		sums = append(sums, s)
		return s
	}
	for i, o := range d.outs {
		if o.Reduce == nil {
			if o.Group != nil {
				return fmt.Errorf("agent %d gives a Group without a Reduce", i)
			}
			continue
		}
		if o.Group != nil && (!slices.IsSorted(o.Group) || !slices.Contains(o.Group, i) ||
			o.Group[0] < 0 || o.Group[len(o.Group)-1] >= len(d.agents) || len(slices.Compact(slices.Clone(o.Group))) != len(o.Group)) {
			return fmt.Errorf("agent %d: Group %v must be strictly ascending ids in [0, %d) that include the agent", i, o.Group, len(d.agents))
		}
		s := find(o.Group)
		if s.v == nil {
			s.v = make([]float64, len(o.Reduce))
		} else if len(o.Reduce) != len(s.v) {
			return fmt.Errorf("agent %d reduces %d values, an earlier agent of its group reduced %d", i, len(o.Reduce), len(s.v))
		}
		for k, v := range o.Reduce {
			s.v[k] += v
		}
	}
	for _, s := range sums {
		if s.members == nil {
			for i, o := range d.outs {
				if o.Group == nil {
					d.ins[i].Reduce = append([]float64(nil), s.v...)
				}
			}
			continue
		}
		for _, j := range s.members {
			if !slices.Equal(d.outs[j].Group, s.members) {
				return fmt.Errorf("agent %d is in group %v but reduces over %v", j, s.members, d.outs[j].Group)
			}
			d.ins[j].Reduce = append([]float64(nil), s.v...)
		}
	}
	return nil
}

// evaluate answers every agent's Outbox.Evals with the oracle, in request
// order.
func (d *Driver) evaluate() error {
	for i, o := range d.outs {
		if len(o.Evals) == 0 {
			continue
		}
		if d.oracle == nil {
			return fmt.Errorf("agent %d asks for %d evaluations: give the driver WithOracle", i, len(o.Evals))
		}
		d.ins[i].Evals = make([][]float64, len(o.Evals))
		for k, req := range o.Evals {
			v, err := d.oracle.Evaluate(req, nil)
			if err != nil {
				return fmt.Errorf("agent %d: eval request %d of %d (op %d): %w", i, k, len(o.Evals), req.Op, err)
			}
			d.ins[i].Evals[k] = v
		}
	}
	return nil
}
