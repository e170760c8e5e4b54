// Package stepped is consim's engine for very large runs: the agents,
// pure state machines (consensus.Agent), are stepped in lockstep on a pool
// of W worker goroutines (W = GOMAXPROCS by default), with no goroutine,
// channel or frame per agent, in the style of cycle-driven simulators.
// Agents are split into W contiguous blocks of ids; worker w steps block
// w. Every phase of a round runs in four steps separated by barriers,
// each driving the phase core (engine.Phase):
//
//  1. Send: every agent's Outbox of the phase, checked (Phase.Set).
//  2. Reduce: the all-reduce and group reduces, summed in ascending agent
//     order on the calling goroutine (Phase.Reduce).
//  3. Deliver: every recipient's inbox (Phase.Deliver): the messages of
//     its expected senders, copied into its own buffer, so an agent may
//     reuse its outbox once its Receive is called; Missing; its reduce;
//     its Outbox.Evals answered by the worker's oracle in request order.
//  4. Receive.
//
// What an agent sees is what the phase core delivers under every driver
// (consensus/lockstep, and node's runtime when no message is late), so
// the iterates are bit for bit those of the chan and NATS transports and
// of consensus/lockstep. There are no deadlines or faults; Options.Drop
// injects message loss as lockstep's WithDrop does.
//
// Measure computes the run's global measures in the workers: each worker
// computes the chunks of an observe.Measurement for its run of chunks of
// agents, and the calling goroutine combines the chunks' partial sums in
// order, so its work per measured round grows with N/observe.Chunk, not
// N, and the values are the bits observe.Measure computes.
//
// stepped may import consensus, engine, observe, objective and graph; it
// must not import node, coordinator, scenarios or cmd.
package stepped

import (
	"errors"
	"fmt"
	"runtime"
	"sync"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/engine"
)

// Options configure an Engine. The zero value uses GOMAXPROCS workers,
// no oracle and no loss.
type Options struct {
	// Workers is the number of worker goroutines W; 0 means GOMAXPROCS.
	// It is capped at the number of agents.
	Workers int
	// Oracle makes the oracle of worker w (one per worker, never shared
	// between goroutines); it answers the agents' Outbox.Evals. nil makes
	// a phase that asks for evaluations an error.
	Oracle func(worker int) consensus.Oracle
	// Drop, if set, reports whether the message of phase ph of round t
	// from agent from to agent to is lost (engine.Options.Drop); it is
	// called from the workers at once.
	Drop func(t, ph, from, to int) bool
}

// Traffic counts what an Engine has moved so far.
type Traffic struct {
	// Msgs is the number of messages delivered, Values the number of
	// float64 values they carried, Bytes the bytes the values of the
	// messages sent take on the wire (consensus.Msg.PayloadLen: 8 per
	// value, or the compact payload), without the transports' frame
	// headers and MACs: with Options.Drop, those of the lost messages too.
	Msgs, Values, Bytes int64
}

// Engine steps agents 0..N-1 in lockstep on its workers. Its methods must
// be called from one goroutine at a time.
type Engine struct {
	agents  []consensus.Agent
	blocks  [][2]int // blocks[w] = [lo, hi): worker w's agents
	oracles []consensus.Oracle
	phase   *engine.Phase
	errs    []error // errs[w]: worker w's error of the current step
	counts  engine.Counts
}

// New returns an engine of agents, which must be non-nil with
// agents[i].ID() == i.
func New(agents []consensus.Agent, opts Options) (*Engine, error) {
	if err := engine.CheckAgents(agents); err != nil {
		return nil, fmt.Errorf("stepped: %w", err)
	}
	if opts.Workers < 0 {
		return nil, fmt.Errorf("stepped: %d workers: must be >= 0 (0 means GOMAXPROCS)", opts.Workers)
	}
	w := opts.Workers
	if w == 0 {
		w = runtime.GOMAXPROCS(0)
	}
	n := len(agents)
	w = min(w, n)
	e := &Engine{
		agents: agents,
		blocks: Blocks(n, w),
		phase:  engine.NewPhase(n, engine.Options{Drop: opts.Drop}),
		errs:   make([]error, w),
	}
	if opts.Oracle != nil {
		e.oracles = make([]consensus.Oracle, w)
		for k := range e.oracles {
			e.oracles[k] = opts.Oracle(k)
		}
	}
	return e, nil
}

// Blocks splits 0..n-1 into w contiguous blocks [lo, hi) whose sizes
// differ by at most one, the larger first.
func Blocks(n, w int) [][2]int {
	bs := make([][2]int, w)
	lo := 0
	for k := range bs {
		size := n / w
		if k < n%w {
			size++
		}
		bs[k] = [2]int{lo, lo + size}
		lo += size
	}
	return bs
}

// Workers returns the number of worker goroutines W.
func (e *Engine) Workers() int { return len(e.blocks) }

// Agents returns the agents the engine steps (shared, not copied).
func (e *Engine) Agents() []consensus.Agent { return e.agents }

// Traffic returns the message counts so far.
func (e *Engine) Traffic() Traffic {
	return Traffic{Msgs: e.counts.Delivered, Values: e.counts.Values, Bytes: e.counts.Bytes}
}

// Counts returns everything the phase core counted so far: messages,
// dropouts (Missing) and missing reduce terms.
func (e *Engine) Counts() engine.Counts { return e.counts }

// parallel runs f(w, lo, hi) for every worker block at once and waits.
// It returns the error of the lowest worker that failed, so the error of
// the lowest failing agent when f stops at its first failing agent.
func (e *Engine) parallel(f func(w, lo, hi int) error) error {
	var wg sync.WaitGroup
	for w, b := range e.blocks {
		e.errs[w] = nil
		if w == len(e.blocks)-1 {
			e.errs[w] = f(w, b[0], b[1])
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			e.errs[w] = f(w, b[0], b[1])
		}()
	}
	wg.Wait()
	for _, err := range e.errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// Run runs rounds from, from+1, ..., from+count-1 and stops at the first
// error.
func (e *Engine) Run(from, count int) error {
	for t := from; t < from+count; t++ {
		if err := e.Round(t); err != nil {
			return err
		}
	}
	return nil
}

// Round runs round t: its phases, each as described in the package
// documentation. The agents must agree on Phases(t). An outbox the phase
// core rejects (engine.CheckOutbox), a message to an agent that does not
// expect it, groups that are neither equal nor disjoint, reduce terms of
// different lengths and evaluations without an oracle are errors, as are
// the agents' own.
func (e *Engine) Round(t int) error {
	phases := e.agents[0].Phases(t)
	err := e.parallel(func(_, lo, hi int) error {
		for i := lo; i < hi; i++ {
			if p := e.agents[i].Phases(t); p != phases {
				return fmt.Errorf("stepped: round %d: agent %d has %d phases, agent 0 has %d", t, i, p, phases)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	for ph := 0; ph < phases; ph++ {
		if err := e.runPhase(t, ph); err != nil {
			return fmt.Errorf("stepped: round %d phase %d: %w", t, ph, err)
		}
	}
	return nil
}

// runPhase runs phase ph of round t.
func (e *Engine) runPhase(t, ph int) error {
	p := e.phase
	p.Begin(t, ph)
	err := e.parallel(func(_, lo, hi int) error {
		for i := lo; i < hi; i++ {
			if err := p.Set(i, e.agents[i].Send(t, ph)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	if err := p.Reduce(); err != nil {
		return err
	}
	err = e.parallel(func(w, lo, hi int) error {
		var o consensus.Oracle
		if e.oracles != nil {
			o = e.oracles[w]
		}
		for i := lo; i < hi; i++ {
			if err := p.Deliver(i, o); err != nil {
				if errors.Is(err, engine.ErrNoOracle) {
					err = fmt.Errorf("%w (Options.Oracle)", err)
				}
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	c, err := p.End()
	if err != nil {
		return err
	}
	e.counts.Add(c)
	return e.parallel(func(_, lo, hi int) error {
		for i := lo; i < hi; i++ {
			if err := e.agents[i].Receive(t, ph, p.Inbox(i)); err != nil {
				return fmt.Errorf("agent %d: %w", i, err)
			}
		}
		return nil
	})
}
