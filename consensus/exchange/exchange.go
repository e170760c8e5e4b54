// Package exchange is the pairwise exchange of the asynchronous methods
// that combine two neighbours' values at a time (randomized gossip,
// AD-PSGD, asynchronous ADMM): one agent, the initiator, picks a
// neighbour on its own clock and sends it a request; the neighbour, if
// free, combines at once and answers with a reply; the initiator
// combines when the reply arrives. An agent takes part in one exchange
// at a time: a request that reaches an agent waiting for its own reply
// is refused, and an initiator ends its exchange on a reply, a refusal or
// the return of its request (its link was absent). Between the request's
// arrival and the reply's, the initiator's state does not change, so the
// exchange acts as one atomic step of the pair at the moment the
// neighbour handles the request; the global sequence of these commits is
// what the methods' matrix-form references replay.
//
// The request needs a link draw (consensus.AsyncMsg.Drawn unset); the
// reply and the refusal travel on the request's link, so they are Drawn:
// a reply is never lost once its request arrived.
//
// The neighbour of attempt k (k = 0, 1, ... counts the agent's requests)
// is nbrs[floor(U(seed, k, graph.StreamPeer, i, 0) d_i)]: uniform over
// the d_i neighbours, P_ij = 1/d_i.
//
// exchange imports consensus and graph only; it must not import node,
// coordinator, scenarios or cmd.
package exchange

import (
	"fmt"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/graph"
)

// Message kinds of the exchange.
const (
	KindRequest = 0 // initiator -> neighbour: the initiator's values
	KindReply   = 1 // neighbour -> initiator: the neighbour's values
	KindRefuse  = 2 // neighbour -> initiator: busy, no values
)

// Counts are an agent's exchanges so far.
type Counts struct {
	// Requests is the number of requests sent; Completed, Refused and
	// Lost split those that ended.
	Requests, Completed, Refused, Lost int64
	// Busy counts the ticks on which the agent could not start an
	// exchange because its own was still open.
	Busy int64
}

// Pair is one agent's side of the exchange.
type Pair struct {
	id   int
	nbrs []int
	seed uint64
	open bool
	peer int
	Counts
}

// New returns agent id's side, with its neighbours nbrs (ascending; the
// slice is kept) and the run seed.
func New(id int, nbrs []int, seed uint64) Pair { return Pair{id: id, nbrs: nbrs, seed: seed} }

// Open starts an exchange on a tick: it reports false (and counts a busy
// tick) if one is open or the agent has no neighbour, and otherwise
// draws the neighbour j of this attempt, marks the exchange open and
// returns j.
func (p *Pair) Open() (int, bool) {
	if p.open {
		p.Busy++
		return 0, false
	}
	d := len(p.nbrs)
	if d == 0 {
		return 0, false
	}
	u := graph.StreamPeer.Uniform(p.seed, uint64(p.Requests), uint64(p.id), 0)
	k := min(int(u*float64(d)), d-1)
	p.Requests++
	p.open, p.peer = true, p.nbrs[k]
	return p.peer, true
}

// IsOpen reports whether the agent waits for the answer to its request.
func (p *Pair) IsOpen() bool { return p.open }

// Request returns the request to the open exchange's neighbour.
func (p *Pair) Request(data []float64) consensus.AsyncMsg {
	return consensus.AsyncMsg{From: p.id, To: p.peer, Kind: KindRequest, Data: data}
}

// Reply returns the answer to request m with data.
func (p *Pair) Reply(m consensus.AsyncMsg, data []float64) consensus.AsyncMsg {
	return consensus.AsyncMsg{From: p.id, To: m.From, Kind: KindReply, Drawn: true, Data: data}
}

// Refuse returns the refusal of request m.
func (p *Pair) Refuse(m consensus.AsyncMsg) consensus.AsyncMsg {
	return consensus.AsyncMsg{From: p.id, To: m.From, Kind: KindRefuse, Drawn: true}
}

// Arrival is what a message means to the agent it reaches.
type Arrival int

// Arrivals of Arrive.
const (
	// Request is a neighbour's request the agent takes: it combines at
	// once and answers with Reply.
	Request Arrival = iota
	// Busy is a request that reaches the agent while its own exchange is
	// open: it answers with Refuse and changes nothing.
	Busy
	// Replied is the answer to the agent's open request with the
	// neighbour's values: it combines; the exchange is closed.
	Replied
	// Refused is the answer of a busy neighbour: the exchange is closed
	// with no values.
	Refused
)

// Arrive classifies message m for the agent, checks that a message with
// values carries n of them, and closes the open exchange (counting it) on
// an answer. It fails on a message of the wrong length or kind, or an
// answer to no open exchange.
func (p *Pair) Arrive(m consensus.AsyncMsg, n int) (Arrival, error) {
	if err := checkLen(m, n); err != nil {
		return 0, err
	}
	if m.Kind == KindRequest {
		if p.open {
			return Busy, nil
		}
		return Request, nil
	}
	if err := p.close(m); err != nil {
		return 0, err
	}
	if m.Kind == KindRefuse {
		return Refused, nil
	}
	return Replied, nil
}

// close ends the open exchange on the answer m (a reply or a refusal),
// counting it. It fails if no exchange is open with m's sender or m is a
// request.
func (p *Pair) close(m consensus.AsyncMsg) error {
	if !p.open || m.From != p.peer {
		return fmt.Errorf("exchange: %s from agent %d, but no exchange with it is open", kindName(m.Kind), m.From)
	}
	switch m.Kind {
	case KindReply:
		p.Completed++
	case KindRefuse:
		p.Refused++
	default:
		return fmt.Errorf("exchange: %s from agent %d closes no exchange", kindName(m.Kind), m.From)
	}
	p.open = false
	return nil
}

// Return ends the open exchange whose request m came back undelivered.
func (p *Pair) Return(m consensus.AsyncMsg) error {
	if !p.open || m.To != p.peer || m.Kind != KindRequest {
		return fmt.Errorf("exchange: %s to agent %d came back, but no exchange with it is open", kindName(m.Kind), m.To)
	}
	p.Lost++
	p.open = false
	return nil
}

// checkLen fails unless the message of a kind that carries values has n
// of them.
func checkLen(m consensus.AsyncMsg, n int) error {
	if m.Kind != KindRefuse && len(m.Data) != n {
		return fmt.Errorf("%s from agent %d has %d values, want %d", kindName(m.Kind), m.From, len(m.Data), n)
	}
	return nil
}

func kindName(k int) string {
	switch k {
	case KindRequest:
		return "request"
	case KindReply:
		return "reply"
	case KindRefuse:
		return "refusal"
	}
	return fmt.Sprintf("message of kind %d", k)
}

// Measures are the exchanges the agents started and how they ended,
// summed over the agents: the declarations of Pair.Measures.
func Measures() []consensus.Measure {
	return []consensus.Measure{
		{Name: "exchanges", Reduce: consensus.ReduceSum, Doc: "exchanges completed, counted by their initiators"},
		{Name: "refused", Reduce: consensus.ReduceSum, Doc: "requests refused by a neighbour busy with an exchange of its own"},
		{Name: "lost", Reduce: consensus.ReduceSum, Doc: "requests whose link was absent (they came back to their senders)"},
	}
}

// Measures returns the agent's values of Measures: its completed,
// refused and lost exchanges.
func (p *Pair) Measures() []float64 {
	return []float64{float64(p.Completed), float64(p.Refused), float64(p.Lost)}
}
