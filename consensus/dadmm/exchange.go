package dadmm

import (
	"fmt"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/graph"
)

// exchange is an agent's side of the one-phase exchange of its iterate
// with the neighbours present in the round's draw (graph.DrawDual), shared
// by every agent type of the package.
type exchange struct {
	id   int
	n    int
	proc graph.EdgeProcess

	nb []neighbor // incident edges of the graph, ascending by neighbour id
	xj []float64  // xj[k*n:(k+1)*n] is x_{nb[k].j} received this round

	// Outbox buffers, valid until the next Send.
	xs     []float64
	msgs   []consensus.Msg
	expect []int

	round int  // rounds completed
	sent  bool // send(round, 0) has been called
}

// neighbor is the agent's view of an incident edge {i, j}.
type neighbor struct {
	j int
	// present: {i,j} is in the round's draw; live: present and x_j arrived.
	present, live bool
}

func newExchange(id, n int, g *graph.Graph, proc graph.EdgeProcess) exchange {
	nbrs := g.Neighbors(id)
	e := exchange{
		id:     id,
		n:      n,
		proc:   proc,
		nb:     make([]neighbor, len(nbrs)),
		xj:     make([]float64, len(nbrs)*n),
		xs:     make([]float64, n),
		msgs:   make([]consensus.Msg, 0, len(nbrs)),
		expect: make([]int, 0, len(nbrs)),
	}
	for k, j := range nbrs {
		e.nb[k] = neighbor{j: j}
	}
	return e
}

// send draws the round's edges and returns the outbox sending x to every
// present neighbour and expecting x_j back. A call for a round or phase
// other than the one due returns an empty outbox, and the following
// receive fails.
func (e *exchange) send(t, ph int, x []float64) consensus.Outbox {
	e.sent = false
	if t != e.round || ph != 0 {
		return consensus.Outbox{}
	}
	e.sent = true
	copy(e.xs, x)
	e.msgs = e.msgs[:0]
	e.expect = e.expect[:0]
	for k := range e.nb {
		b := &e.nb[k]
		lo, hi := min(e.id, b.j), max(e.id, b.j)
		b.present = e.proc.Active(t, graph.DrawDual, lo, hi)
		b.live = false
		if !b.present {
			continue
		}
		e.msgs = append(e.msgs, consensus.Msg{From: e.id, To: b.j, Round: t, Phase: 0, Data: e.xs})
		e.expect = append(e.expect, b.j)
	}
	return consensus.Outbox{Msgs: e.msgs, Expect: e.expect}
}

// receive checks that the call is the one due and collects the inbox.
func (e *exchange) receive(t, ph int, in consensus.Inbox) error {
	if !e.sent || t != e.round || ph != 0 {
		return fmt.Errorf("receive of round %d phase %d: expected round %d phase 0 after its send", t, ph, e.round)
	}
	e.sent = false
	if err := e.collect(t, in); err != nil {
		return fmt.Errorf("round %d: %w", t, err)
	}
	return nil
}

// collect copies x_j of every arrived message into the neighbour's buffer
// and marks its edge live. Present edges whose message is missing stay
// not live.
func (e *exchange) collect(t int, in consensus.Inbox) error {
	k := 0
	for _, m := range in.Msgs {
		for k < len(e.nb) && (e.nb[k].j < m.From || !e.nb[k].present) {
			k++
		}
		if k == len(e.nb) || e.nb[k].j != m.From {
			return fmt.Errorf("message from agent %d, which was not expected (or out of order)", m.From)
		}
		if m.Round != t || m.Phase != 0 {
			return fmt.Errorf("message from agent %d is for round %d phase %d", m.From, m.Round, m.Phase)
		}
		if len(m.Data) != e.n {
			return fmt.Errorf("message from agent %d has %d values, want %d", m.From, len(m.Data), e.n)
		}
		copy(e.xj[k*e.n:(k+1)*e.n], m.Data)
		e.nb[k].live = true
		k++
	}
	return nil
}

// dualStep computes a <- a + c sum_{j live} (x - x_j).
func (e *exchange) dualStep(c float64, x, a []float64) {
	n := e.n
	for k := range e.nb {
		if !e.nb[k].live {
			continue
		}
		xj := e.xj[k*n : (k+1)*n]
		for l := range a {
			a[l] += float64(c * (x[l] - xj[l]))
		}
	}
}

// isolated reports whether the agent has graph neighbours but no live edge
// in the round: none was present in the draw, or every present
// neighbour's message was lost. An agent without graph neighbours (N = 1)
// is never isolated: its method is the centralized one.
func (e *exchange) isolated() bool {
	for k := range e.nb {
		if e.nb[k].live {
			return false
		}
	}
	return len(e.nb) > 0
}

// liveSum writes sum_{j live} x_j into dst and returns d_i, the number of
// live edges.
func (e *exchange) liveSum(dst []float64) int {
	n := e.n
	clear(dst)
	var d int
	for k := range e.nb {
		if !e.nb[k].live {
			continue
		}
		d++
		xj := e.xj[k*n : (k+1)*n]
		for l := range dst {
			dst[l] += xj[l]
		}
	}
	return d
}
