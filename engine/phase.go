package engine

import (
	"errors"
	"fmt"
	"slices"
	"sort"

	"github.com/consim/consim/consensus"
)

// ErrNoOracle is wrapped by Phase.Deliver when an agent asks for
// evaluations and the driver gave no oracle.
var ErrNoOracle = errors.New("the driver has no oracle")

// Options configure a Phase.
type Options struct {
	// Symmetric makes Set require every outbox to send to exactly the
	// agents it expects (CheckSymmetric).
	Symmetric bool
	// Drop, if set, reports whether the message of phase ph of round t
	// from agent from to agent to is lost: it is not delivered, and its
	// sender is Missing at the recipient. It must be a pure function of
	// its arguments for a run to replay, and safe for concurrent use when
	// Deliver is called from several goroutines.
	Drop func(t, ph, from, to int) bool
}

// Counts are what a phase moved, or a run so far.
type Counts struct {
	// Sent is the number of messages the agents emitted, Bytes the bytes
	// their values take on the wire (consensus.Msg.PayloadLen: 8 per
	// value, or the compact payload), without a transport's headers and
	// MACs; Delivered the number delivered, carrying Values float64
	// values; Dropped the number Options.Drop discarded.
	Sent, Bytes, Delivered, Values, Dropped int64
	// Missing counts the expected senders reported Missing (dropouts).
	Missing int64
	// ReduceMissing counts the missing terms of the reduces.
	ReduceMissing int64
}

// Add adds c2 to c.
func (c *Counts) Add(c2 Counts) {
	c.Sent += c2.Sent
	c.Bytes += c2.Bytes
	c.Delivered += c2.Delivered
	c.Values += c2.Values
	c.Dropped += c2.Dropped
	c.Missing += c2.Missing
	c.ReduceMissing += c2.ReduceMissing
}

// Phase is the core of the phases of a run of N agents for a driver that
// holds every agent's outbox (consensus/lockstep, stepped). Each phase,
// the driver calls
//
//	Begin(t, ph)
//	Set(i, outbox of agent i)   for every agent i
//	Reduce()
//	Deliver(i, oracle)          for every agent i
//	End()
//
// and then hands Inbox(i) to agent i's Receive. Set and Deliver may be
// called from several goroutines at once for distinct agents; Begin,
// Reduce and End from one goroutine, after the calls before them have
// returned. The inboxes' slices are the Phase's and are reused by the
// next phase, as the agent contract allows.
type Phase struct {
	n     int
	opts  Options
	t, ph int

	outs     []consensus.Outbox
	sortedTo []bool // outs[i].Msgs ascending by To

	all    Sum // the all-reduce
	groups []groupSum
	leader map[int]int // groups[leader[j]] is the group whose first member is j

	ins   []consensus.Inbox
	bufs  [][]float64   // bufs[i]: the values of agent i's messages, then its copy of its reduce
	evals [][][]float64 // evals[i]: agent i's evaluation results
	acct  []account
	// reduceMissing is the phase's count of missing reduce terms.
	reduceMissing int64
}

// groupSum is one group reduce of a phase.
type groupSum struct {
	members []int
	sum     Sum
}

// account is what Set counted for one sender and Deliver for one
// recipient in a phase.
type account struct {
	routed, delivered, dropped, missing int32
	values                              int64
	bytes                               int64 // of the messages sent
}

// NewPhase returns the core of a run of n >= 1 agents.
func NewPhase(n int, opts Options) *Phase {
	return &Phase{
		n:        n,
		opts:     opts,
		outs:     make([]consensus.Outbox, n),
		sortedTo: make([]bool, n),
		ins:      make([]consensus.Inbox, n),
		bufs:     make([][]float64, n),
		evals:    make([][][]float64, n),
		acct:     make([]account, n),
	}
}

// N is the number of agents.
func (p *Phase) N() int { return p.n }

// Begin starts phase ph of round t.
func (p *Phase) Begin(t, ph int) { p.t, p.ph = t, ph }

// Set records agent i's outbox o of the phase and checks it
// (CheckOutbox, CheckSymmetric under Options.Symmetric, and that every
// message's values fit its wire encoding, consensus.Msg.PayloadLen). The
// outbox's slices must stay unchanged until End.
func (p *Phase) Set(i int, o consensus.Outbox) error {
	p.outs[i] = o
	if err := CheckOutbox(i, p.n, o); err != nil {
		return err
	}
	if p.opts.Symmetric {
		if err := CheckSymmetric(i, o); err != nil {
			return err
		}
	}
	var bytes int64
	for k := range o.Msgs {
		size, err := o.Msgs[k].PayloadLen()
		if err != nil {
			return fmt.Errorf("agent %d's message to agent %d: %w", i, o.Msgs[k].To, err)
		}
		bytes += int64(size)
	}
	p.acct[i].bytes = bytes
	p.sortedTo[i] = slices.IsSortedFunc(o.Msgs, func(a, b consensus.Msg) int { return a.To - b.To })
	return nil
}

// Reduce computes the phase's reduces: the all-reduce over the agents
// that give a term without a Group, and each group's over its members,
// each sum in ascending agent order (Sum). The groups must be equal or
// disjoint, every member giving the same Group, and the terms of a reduce
// of one length. When the phase has an all-reduce, every agent that gives
// no term to it (none, or one to a group) is a missing term.
func (p *Phase) Reduce() error {
	p.all.Reset()
	p.groups = p.groups[:0]
	clear(p.leader)
	p.reduceMissing = 0
	for i := range p.outs {
		o := &p.outs[i]
		if o.Reduce == nil {
			continue
		}
		s := &p.all
		if o.Group != nil {
			g, err := p.group(i, o.Group)
			if err != nil {
				return err
			}
			s = &g.sum
		}
		if err := s.Add(o.Reduce); err != nil {
			return fmt.Errorf("agent %d %w", i, err)
		}
	}
	for k := range p.groups {
		g := &p.groups[k]
		for _, j := range g.members {
			if !slices.Equal(p.outs[j].Group, g.members) {
				return fmt.Errorf("agent %d is in group %v but reduces over %v", j, g.members, p.outs[j].Group)
			}
		}
	}
	if t := p.all.Terms(); t > 0 {
		p.reduceMissing = int64(p.n - t)
	}
	return nil
}

// group returns the group reduce of members, which agent i gives, adding
// it if it is the first of its members to.
func (p *Phase) group(i int, members []int) (*groupSum, error) {
	if k, ok := p.leader[members[0]]; ok {
		g := &p.groups[k]
		if !slices.Equal(g.members, members) {
			return nil, fmt.Errorf("agent %d is in group %v but reduces over %v", members[0], members, g.members)
		}
		return g, nil
	}
	if p.leader == nil {
		p.leader = make(map[int]int)
	}
	p.leader[members[0]] = len(p.groups)
	if len(p.groups) < cap(p.groups) {
		p.groups = p.groups[:len(p.groups)+1]
	} else {
		p.groups = append(p.groups, groupSum{})
	}
	g := &p.groups[len(p.groups)-1]
	g.members = members
	g.sum.Reset()
	return g, nil
}

// reduceOf is agent i's reduce sum, nil when it gave no term.
func (p *Phase) reduceOf(i int) []float64 {
	o := &p.outs[i]
	switch {
	case o.Reduce == nil:
		return nil
	case o.Group == nil:
		return p.all.Value()
	}
	return p.groups[p.leader[o.Group[0]]].sum.Value()
}

// Deliver builds agent i's inbox (see the package documentation): the
// messages addressed to it by its expected senders that Options.Drop
// does not discard, ascending by sender, and its own copy of its reduce's
// sum, their values copied into the Phase's buffer of agent i; the other
// expected senders as Missing; and the values of its Outbox.Evals
// computed by o, in request order (o may be nil when the agent asks for
// none).
func (p *Phase) Deliver(i int, o consensus.Oracle) error {
	in := &p.ins[i]
	a := account{bytes: p.acct[i].bytes}
	size := 0
	in.Msgs, in.Missing = assemble(in.Msgs, in.Missing, p.t, p.ph, i, p.outs[i].Expect, func(_, j int) ([]float64, bool) {
		m, ok := p.find(j, i)
		if !ok {
			return nil, false
		}
		a.routed++
		if p.opts.Drop != nil && p.opts.Drop(p.t, p.ph, j, i) {
			a.dropped++
			return nil, false
		}
		size += len(m.Data)
		return m.Data, true
	})
	a.delivered, a.values, a.missing = int32(len(in.Msgs)), int64(size), int32(len(in.Missing))
	sum := p.reduceOf(i)
	buf := p.bufs[i]
	if n := size + len(sum); cap(buf) < n {
		buf = make([]float64, n)
		p.bufs[i] = buf
	}
	off := 0
	for k := range in.Msgs {
		d := buf[off : off+len(in.Msgs[k].Data) : off+len(in.Msgs[k].Data)]
		copy(d, in.Msgs[k].Data)
		in.Msgs[k].Data = d
		off += len(d)
	}
	in.Msgs, in.Missing = nonEmpty(in.Msgs), nonEmpty(in.Missing)
	p.acct[i] = a

	in.Reduce = nil
	if sum != nil {
		in.Reduce = buf[off : off+len(sum) : off+len(sum)]
		copy(in.Reduce, sum)
	}

	in.Evals = nil
	if reqs := p.outs[i].Evals; len(reqs) > 0 {
		if o == nil {
			return fmt.Errorf("agent %d asks for %d evaluations: %w", i, len(reqs), ErrNoOracle)
		}
		vals, err := Evaluate(o, reqs, p.evals[i])
		p.evals[i] = vals
		if err != nil {
			return fmt.Errorf("agent %d: %w", i, err)
		}
		in.Evals = vals
	}
	return nil
}

// find returns the message of sender j to agent i in this phase.
func (p *Phase) find(j, i int) (consensus.Msg, bool) {
	ms := p.outs[j].Msgs
	if p.sortedTo[j] && len(ms) > 8 {
		k := sort.Search(len(ms), func(k int) bool { return ms[k].To >= i })
		if k < len(ms) && ms[k].To == i {
			return ms[k], true
		}
		return consensus.Msg{}, false
	}
	for _, m := range ms {
		if m.To == i {
			return m, true
		}
	}
	return consensus.Msg{}, false
}

// End closes the phase's delivery: every message must have gone to an
// agent that expects it. It returns the phase's Counts.
func (p *Phase) End() (Counts, error) {
	c := Counts{ReduceMissing: p.reduceMissing}
	var routed int64
	for i := range p.acct {
		a := &p.acct[i]
		c.Sent += int64(len(p.outs[i].Msgs))
		c.Bytes += a.bytes
		routed += int64(a.routed)
		c.Delivered += int64(a.delivered)
		c.Values += a.values
		c.Dropped += int64(a.dropped)
		c.Missing += int64(a.missing)
	}
	if routed != c.Sent {
		return c, p.misrouted()
	}
	return c, nil
}

// misrouted names the first message, in sender order, to an agent that
// does not expect it.
func (p *Phase) misrouted() error {
	for j := range p.outs {
		for _, m := range p.outs[j].Msgs {
			if !contains(p.outs[m.To].Expect, j) {
				return fmt.Errorf("agent %d sends to agent %d, which does not expect it", j, m.To)
			}
		}
	}
	return errors.New("engine: messages sent and routed differ in number")
}

// Inbox returns agent i's inbox of the phase, valid until the next Begin.
func (p *Phase) Inbox(i int) consensus.Inbox { return p.ins[i] }

// CheckAgents returns an error unless agents, the agents of a driver that
// holds them all, are non-nil and indexed by id: agents[i].ID() == i.
func CheckAgents(agents []consensus.Agent) error {
	if len(agents) == 0 {
		return errors.New("no agents")
	}
	for i, a := range agents {
		if a == nil {
			return fmt.Errorf("agent %d is nil", i)
		}
		if a.ID() != i {
			return fmt.Errorf("agent at index %d has ID %d: agents must be indexed by id", i, a.ID())
		}
	}
	return nil
}
