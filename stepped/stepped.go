// Package stepped is consim's engine for very large runs: the agents,
// pure state machines (consensus.Agent), are stepped in lockstep on a pool
// of W worker goroutines (W = GOMAXPROCS by default), with no goroutine,
// channel or frame per agent, in the style of cycle-driven simulators.
// Agents are split into W contiguous blocks of ids; worker w steps block
// w. Every phase of a round runs in four steps separated by barriers:
//
//  1. Send: every agent's Outbox of the phase.
//  2. Reduce: the all-reduce and group reduces, summed in ascending agent
//     order starting from the first term, as the goroutine runtime's root
//     does (one pass over the agents on the calling goroutine).
//  3. Deliver: every recipient pulls, for each sender it expects (in
//     ascending order), the message addressed to it, copying its data into
//     the recipient's own buffer, so an agent may reuse its outbox once its
//     Receive is called; expected senders that sent nothing are Missing;
//     Outbox.Evals are answered by the worker's oracle in request order.
//  4. Receive.
//
// What an agent sees is what the goroutine runtime delivers in lockstep
// without loss (the same messages ascending by sender, the same reduce
// sums), so the iterates are bit for bit those of the chan and NATS
// transports and of consensus/lockstep. There are no deadlines, faults or
// message loss: a run that needs them uses the goroutine runtime.
//
// Measure computes the run's global measures in the workers: each worker
// reduces its block's reports to partial sums, and the calling goroutine
// combines W partial sums, so its work per measured round does not grow
// with the number of agents.
//
// stepped may import consensus, consensus/metrics, objective and
// graph; it must not import node, coordinator, scenarios or cmd.
package stepped

import (
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sort"
	"sync"

	"github.com/consim/consim/consensus"
)

// Options configure an Engine. The zero value uses GOMAXPROCS workers and
// no oracle.
type Options struct {
	// Workers is the number of worker goroutines W; 0 means GOMAXPROCS.
	// It is capped at the number of agents.
	Workers int
	// Oracle makes the oracle of worker w (one per worker, never shared
	// between goroutines); it answers the agents' Outbox.Evals. nil makes
	// a phase that asks for evaluations an error.
	Oracle func(worker int) consensus.Oracle
}

// Traffic counts what an Engine has moved so far.
type Traffic struct {
	// Msgs is the number of messages delivered, Values the number of
	// float64 values they carried, Bytes the bytes those values take on
	// the wire (consensus.Msg.PayloadLen: 8 per value, or the compact
	// payload), without the transports' frame headers and MACs.
	Msgs, Values, Bytes int64
}

// Engine steps agents 0..N-1 in lockstep on its workers. Its methods must
// be called from one goroutine at a time.
type Engine struct {
	agents  []consensus.Agent
	blocks  [][2]int // blocks[w] = [lo, hi): worker w's agents
	oracles []consensus.Oracle

	outs []consensus.Outbox
	ins  []consensus.Inbox
	bufs [][]float64 // bufs[i]: the data of agent i's delivered messages
	// sortedTo[i]: outs[i].Msgs is ascending by To (found by binary
	// search), else scanned.
	sortedTo []bool

	work    []workerState
	traffic Traffic
}

// workerState is one worker's per-phase scratch.
type workerState struct {
	err       error
	sent      int64
	delivered int64
	values    int64
	bytes     int64
	reduces   bool
	evals     bool
}

// New returns an engine of agents, which must be non-nil with
// agents[i].ID() == i.
func New(agents []consensus.Agent, opts Options) (*Engine, error) {
	if len(agents) == 0 {
		return nil, errors.New("stepped: no agents")
	}
	for i, a := range agents {
		if a == nil {
			return nil, fmt.Errorf("stepped: agent %d is nil", i)
		}
		if a.ID() != i {
			return nil, fmt.Errorf("stepped: agent at index %d has ID %d: agents must be indexed by id", i, a.ID())
		}
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
		agents:   agents,
		blocks:   Blocks(n, w),
		outs:     make([]consensus.Outbox, n),
		ins:      make([]consensus.Inbox, n),
		bufs:     make([][]float64, n),
		sortedTo: make([]bool, n),
		work:     make([]workerState, w),
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
func (e *Engine) Traffic() Traffic { return e.traffic }

// parallel runs f(w, lo, hi) for every worker block at once and waits.
// It returns the error of the lowest worker that failed, so the error of
// the lowest failing agent when f stops at its first failing agent.
func (e *Engine) parallel(f func(w, lo, hi int) error) error {
	var wg sync.WaitGroup
	for w, b := range e.blocks {
		e.work[w].err = nil
		if w == len(e.blocks)-1 {
			e.work[w].err = f(w, b[0], b[1])
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			e.work[w].err = f(w, b[0], b[1])
		}()
	}
	wg.Wait()
	for w := range e.work {
		if err := e.work[w].err; err != nil {
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
// documentation. The agents must agree on Phases(t). A message to an agent
// that does not expect it, two messages to the same recipient in a phase,
// a message marked with another sender, an Expect list that is not
// strictly ascending or is out of range, reduce terms of different lengths
// and evaluations without an oracle are errors, as are the agents' own.
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
		if err := e.phase(t, ph); err != nil {
			return fmt.Errorf("stepped: round %d phase %d: %w", t, ph, err)
		}
	}
	return nil
}

// phase runs phase ph of round t.
func (e *Engine) phase(t, ph int) error {
	n := len(e.agents)
	err := e.parallel(func(w, lo, hi int) error {
		ws := &e.work[w]
		ws.sent, ws.reduces, ws.evals = 0, false, false
		for i := lo; i < hi; i++ {
			o := e.agents[i].Send(t, ph)
			e.outs[i] = o
			ws.sent += int64(len(o.Msgs))
			ws.reduces = ws.reduces || o.Reduce != nil || o.Group != nil
			ws.evals = ws.evals || len(o.Evals) > 0
			prev := -1
			for _, j := range o.Expect {
				if j < 0 || j >= n {
					return fmt.Errorf("agent %d expects agent %d, outside [0, %d)", i, j, n)
				}
				if j <= prev {
					return fmt.Errorf("agent %d: Expect is not strictly ascending at %d", i, j)
				}
				prev = j
			}
			e.sortedTo[i] = slices.IsSortedFunc(o.Msgs, func(a, b consensus.Msg) int { return a.To - b.To })
		}
		return nil
	})
	if err != nil {
		return err
	}
	var sent int64
	reduces, evals := false, false
	for w := range e.work {
		sent += e.work[w].sent
		reduces = reduces || e.work[w].reduces
		evals = evals || e.work[w].evals
	}
	if evals && e.oracles == nil {
		for i, o := range e.outs {
			if len(o.Evals) > 0 {
				return fmt.Errorf("agent %d asks for %d evaluations: the engine has no oracle (Options.Oracle)", i, len(o.Evals))
			}
		}
	}
	for i := range e.ins {
		e.ins[i].Reduce = nil
	}
	if reduces {
		if err := e.reduce(); err != nil {
			return err
		}
	}
	err = e.parallel(func(w, lo, hi int) error {
		ws := &e.work[w]
		ws.delivered, ws.values, ws.bytes = 0, 0, 0
		for i := lo; i < hi; i++ {
			if err := e.deliver(w, i); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	var delivered, values, size int64
	for w := range e.work {
		delivered += e.work[w].delivered
		values += e.work[w].values
		size += e.work[w].bytes
	}
	if delivered != sent {
		return e.misrouted()
	}
	e.traffic.Msgs += delivered
	e.traffic.Values += values
	e.traffic.Bytes += size
	return e.parallel(func(_, lo, hi int) error {
		for i := lo; i < hi; i++ {
			if err := e.agents[i].Receive(t, ph, e.ins[i]); err != nil {
				return fmt.Errorf("agent %d: %w", i, err)
			}
		}
		return nil
	})
}

// deliver builds agent i's inbox on worker w: the messages of its expected
// senders addressed to it, ascending by sender, their data copied into
// bufs[i]; Missing, the expected senders that sent it nothing; Evals.
func (e *Engine) deliver(w, i int) error {
	ws := &e.work[w]
	in := &e.ins[i]
	in.Msgs, in.Missing, in.Evals = in.Msgs[:0], in.Missing[:0], nil
	expect := e.outs[i].Expect
	// First pass: find the messages and size the buffer.
	size := 0
	for _, j := range expect {
		if m, ok := e.find(j, i); ok {
			size += len(m.Data)
		}
	}
	buf := e.bufs[i]
	if cap(buf) < size {
		buf = make([]float64, size)
		e.bufs[i] = buf
	}
	buf = buf[:size]
	off := 0
	for _, j := range expect {
		m, ok := e.find(j, i)
		if !ok {
			in.Missing = append(in.Missing, j)
			continue
		}
		size, err := m.PayloadLen()
		if err != nil {
			return fmt.Errorf("agent %d's message to agent %d: %w", j, i, err)
		}
		ws.bytes += int64(size)
		d := buf[off : off+len(m.Data) : off+len(m.Data)]
		copy(d, m.Data)
		off += len(m.Data)
		m.Data = d
		in.Msgs = append(in.Msgs, m)
		ws.delivered++
		ws.values += int64(len(d))
	}
	if len(in.Msgs) == 0 {
		in.Msgs = nil
	}
	if len(in.Missing) == 0 {
		in.Missing = nil
	}
	if evs := e.outs[i].Evals; len(evs) > 0 {
		in.Evals = make([][]float64, len(evs))
		for k, req := range evs {
			v, err := e.oracles[w].Evaluate(req, nil)
			if err != nil {
				return fmt.Errorf("agent %d: eval request %d of %d (op %d): %w", i, k, len(evs), req.Op, err)
			}
			in.Evals[k] = v
		}
	}
	return nil
}

// find returns the message of sender j to agent i in this phase.
func (e *Engine) find(j, i int) (consensus.Msg, bool) {
	ms := e.outs[j].Msgs
	if e.sortedTo[j] && len(ms) > 8 {
		k := sort.Search(len(ms), func(k int) bool { return ms[k].To >= i })
		if k < len(ms) && ms[k].To == i {
			return ms[k], ms[k].From == j
		}
		return consensus.Msg{}, false
	}
	for _, m := range ms {
		if m.To == i {
			return m, m.From == j
		}
	}
	return consensus.Msg{}, false
}

// misrouted names the first message, in sender order, that was not
// delivered: one to an agent outside the run or that does not expect it,
// the second of two to the same recipient, or one marked with another
// sender.
func (e *Engine) misrouted() error {
	n := len(e.agents)
	for j, o := range e.outs {
		seen := make(map[int]bool, len(o.Msgs))
		for _, m := range o.Msgs {
			switch {
			case m.From != j:
				return fmt.Errorf("agent %d sends a message marked From %d", j, m.From)
			case m.To < 0 || m.To >= n:
				return fmt.Errorf("agent %d sends to agent %d, outside [0, %d)", j, m.To, n)
			case seen[m.To]:
				return fmt.Errorf("agent %d sends twice to agent %d", j, m.To)
			case !slices.Contains(e.outs[m.To].Expect, j):
				return fmt.Errorf("agent %d sends to agent %d, which does not expect it", j, m.To)
			}
			seen[m.To] = true
		}
	}
	return errors.New("messages sent and delivered differ in number")
}

// reduce delivers the phase's sums: over the agents without a Group (the
// all-reduce) and over each Group, every sum in ascending agent order
// starting from the first term. Each agent's Inbox.Reduce is its own copy.
func (e *Engine) reduce() error {
	type sum struct {
		members []int
		v       []float64
	}
	var all *sum
	var groups []*sum
	for i, o := range e.outs {
		if o.Reduce == nil {
			if o.Group != nil {
				return fmt.Errorf("agent %d gives a Group without a Reduce", i)
			}
			continue
		}
		var s *sum
		if o.Group == nil {
			if all == nil {
				all = &sum{}
			}
			s = all
		} else {
			g := o.Group
			if !slices.IsSorted(g) || !slices.Contains(g, i) || g[0] < 0 || g[len(g)-1] >= len(e.agents) ||
				len(slices.Compact(slices.Clone(g))) != len(g) {
				return fmt.Errorf("agent %d: Group %v must be strictly ascending ids in [0, %d) that include the agent", i, g, len(e.agents))
			}
			for _, c := range groups {
				if slices.Equal(c.members, g) {
					s = c
					break
				}
			}
			if s == nil {
				s = &sum{members: g}
				groups = append(groups, s)
			}
		}
		if s.v == nil {
			s.v = append([]float64(nil), o.Reduce...)
			continue
		}
		if len(o.Reduce) != len(s.v) {
			return fmt.Errorf("agent %d reduces %d values, an earlier agent of its group reduced %d", i, len(o.Reduce), len(s.v))
		}
		for k, v := range o.Reduce {
			s.v[k] += v
		}
	}
	if all != nil {
		for i, o := range e.outs {
			if o.Group == nil && o.Reduce != nil {
				e.ins[i].Reduce = append(e.ins[i].Reduce[:0:0], all.v...)
			}
		}
	}
	for _, s := range groups {
		for _, j := range s.members {
			if !slices.Equal(e.outs[j].Group, s.members) {
				return fmt.Errorf("agent %d is in group %v but reduces over %v", j, s.members, e.outs[j].Group)
			}
			e.ins[j].Reduce = append([]float64(nil), s.v...)
		}
	}
	return nil
}
