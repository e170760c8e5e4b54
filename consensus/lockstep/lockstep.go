// Package lockstep drives a set of consensus.Agent in-process and
// synchronously: every phase of a round it collects all outboxes, has the
// phase core (package engine) route the messages, sum the reduces and
// build the inboxes, with optional injected message loss, and delivers
// them. It is the reference runtime of the agent contract for tests and
// centralized experiments: no goroutines, no I/O, no clocks, and its only
// randomness is the caller's drop function.
//
// lockstep imports consensus (and, through consensus.Msg, its compress)
// and engine only.
package lockstep

import (
	"errors"
	"fmt"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/engine"
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
func WithDrop(drop DropFunc) Option { return func(d *Driver) { d.opts.Drop = drop } }

// WithOracle evaluates the agents' Outbox.Evals in-line with o, in
// request order, into Inbox.Evals: what the runtime's oracle workers do,
// whatever their number.
func WithOracle(o consensus.Oracle) Option { return func(d *Driver) { d.oracle = o } }

// Symmetric makes Round check that every phase's exchange is symmetric:
// agent i sends to j exactly the agents it expects to hear from, and j
// expects i back. Algorithms that exchange along undirected edges (both
// endpoints compute the same edge draws) satisfy it; a violation is a bug
// in the common randomness.
func Symmetric() Option { return func(d *Driver) { d.opts.Symmetric = true } }

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
	agents []consensus.Agent
	opts   engine.Options
	oracle consensus.Oracle
	phase  *engine.Phase
	counts engine.Counts
}

// New returns a driver of agents, which must be non-nil and satisfy
// agents[i].ID() == i.
func New(agents []consensus.Agent, opts ...Option) (*Driver, error) {
	if err := engine.CheckAgents(agents); err != nil {
		return nil, fmt.Errorf("lockstep: %w", err)
	}
	d := &Driver{agents: append([]consensus.Agent(nil), agents...)}
	for _, o := range opts {
		o(d)
	}
	d.phase = engine.NewPhase(len(agents), d.opts)
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
func (d *Driver) Traffic() Traffic {
	return Traffic{Sent: d.counts.Sent, Bytes: d.counts.Bytes, Dropped: d.counts.Dropped}
}

// Counts returns everything the phase core counted so far: messages,
// dropouts (Missing) and missing reduce terms.
func (d *Driver) Counts() engine.Counts { return d.counts }

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
// it calls Send on all agents in id order, has the phase core (see
// package engine) check the outboxes and build each agent's inbox: the
// messages addressed to it from the senders it expects that the drop
// function keeps, ascending by From; Missing, the expected senders whose
// message was not sent or was dropped; Reduce, its reduce's sum (nil if it
// gave no term); and Evals, the answers to its Outbox.Evals (see
// WithOracle). Finally it calls Receive on all agents in id order and
// returns the first error. The inboxes' slices are reused by the next
// phase.
func (d *Driver) Round(t int) error {
	phases := d.agents[0].Phases(t)
	for i, a := range d.agents {
		if p := a.Phases(t); p != phases {
			return fmt.Errorf("lockstep: round %d: agent %d has %d phases, agent 0 has %d", t, i, p, phases)
		}
	}
	for ph := 0; ph < phases; ph++ {
		if err := d.runPhase(t, ph); err != nil {
			return fmt.Errorf("lockstep: round %d phase %d: %w", t, ph, err)
		}
	}
	return nil
}

// runPhase runs phase ph of round t.
func (d *Driver) runPhase(t, ph int) error {
	p := d.phase
	p.Begin(t, ph)
	for i, a := range d.agents {
		if err := p.Set(i, a.Send(t, ph)); err != nil {
			return err
		}
	}
	if err := p.Reduce(); err != nil {
		return err
	}
	for i := range d.agents {
		if err := p.Deliver(i, d.oracle); err != nil {
			if errors.Is(err, engine.ErrNoOracle) {
				err = fmt.Errorf("%w: give the driver WithOracle", err)
			}
			return err
		}
	}
	c, err := p.End()
	if err != nil {
		return err
	}
	d.counts.Add(c)
	for i, a := range d.agents {
		if err := a.Receive(t, ph, p.Inbox(i)); err != nil {
			return fmt.Errorf("agent %d: %w", i, err)
		}
	}
	return nil
}
