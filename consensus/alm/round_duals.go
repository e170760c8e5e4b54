package alm

import (
	"fmt"
	"math"

	"github.com/consim/consim/consensus"
)

// dualStep is the owners' half of phase 0: for every owned edge {i,j}
// (i < j) in E0 whose x_j arrived it writes
//
//	y_ij <- y_ij + eta (x_i - x_j),  version t+1,
//
// and, under SafeguardEdge, resets y_ij = 0 when ||y_ij|| >= M_y (one
// reset; the reader copies the zero). Edges the agent reads are left to
// their owners: their copies change only in collectDuals.
func (a *Agent) dualStep(t int) {
	n := a.n
	for k := range a.nb {
		b := &a.nb[k]
		if !b.owner || !b.e0 || b.drop {
			continue
		}
		y, xj := a.y[k*n:(k+1)*n], a.xj[k*n:(k+1)*n]
		var sq float64
		for l := range y {
			y[l] += float64(a.cfg.Eta * (a.x[l] - xj[l]))
			sq += float64(y[l] * y[l])
		}
		if a.cfg.Safeguard == SafeguardEdge && math.Sqrt(sq) >= a.myScaled {
			clear(y)
			a.resets++
		}
		a.ver[k] = int64(t) + 1
	}
}

// sendDuals returns the outbox of phase 1: one payload, the same for
// every neighbour j with {i,j} in E0 or E1 (one frame, fanned out by the
// runtime), holding for each incident edge (y_ij, version) if i owns it
// and its copy's version if i reads it; each such neighbour's message is
// expected back. The owner's values are what the reader needs; the
// reader's version keeps the exchange symmetric, so that both endpoints
// of an edge wait for each other in every phase and a loss of both
// directions costs both the same deadline, as in phase 0 (the owner
// records it in acked).
func (a *Agent) sendDuals(t int) consensus.Outbox {
	n := a.n
	for k := range a.nb {
		o := a.yoff[k]
		if a.nb[k].owner {
			copy(a.ys[o:o+n], a.y[k*n:(k+1)*n])
			o += n
		}
		a.ys[o] = float64(a.ver[k])
	}
	a.msgs = a.msgs[:0]
	a.expect = a.expect[:0]
	for k := range a.nb {
		b := &a.nb[k]
		if !b.pushed() {
			continue
		}
		a.msgs = append(a.msgs, consensus.Msg{From: a.id, To: b.j, Round: t, Phase: 1, Data: a.ys})
		a.expect = append(a.expect, b.j)
	}
	return consensus.Outbox{Msgs: a.msgs, Expect: a.expect}
}

// collectDuals reads edge {i,j}'s part of every arrived phase-1 payload:
// from an owner j, (y_ij, version) replaces the copy; from a reader j,
// its version goes to acked. A copy whose message is missing keeps its
// older value and version.
func (a *Agent) collectDuals(t int, in consensus.Inbox) error {
	n, k := a.n, 0
	for _, m := range in.Msgs {
		for k < len(a.nb) && a.nb[k].j < m.From {
			k++
		}
		if k == len(a.nb) || a.nb[k].j != m.From || !a.nb[k].pushed() {
			return fmt.Errorf("dual from agent %d, which was not expected (or out of order)", m.From)
		}
		b := &a.nb[k]
		if m.Round != t || m.Phase != 1 {
			return fmt.Errorf("dual from agent %d is for round %d phase %d", m.From, m.Round, m.Phase)
		}
		if len(m.Data) != b.plen {
			return fmt.Errorf("dual from agent %d has %d values, want %d", m.From, len(m.Data), b.plen)
		}
		part := m.Data[b.off : b.off+1] // the reader's version
		if !b.owner {
			part = m.Data[b.off : b.off+n+1] // the owner's (y_ij, version)
		}
		v := part[len(part)-1]
		if !(v >= 0 && v <= float64(t)+1 && v == math.Trunc(v)) {
			return fmt.Errorf("dual from agent %d has version %v, want an integer in [0, %d]", m.From, v, t+1)
		}
		if b.owner {
			a.acked[k] = int64(v)
		} else {
			copy(a.y[k*n:(k+1)*n], part[:n])
			a.ver[k] = int64(v)
		}
		k++
	}
	return nil
}

// dualSq returns the agent's share of ||y||^2: sum_j ||y_ij||^2 over the
// edges it owns, so that the shares add up to the squared norm of the one
// value of every edge dual.
func (a *Agent) dualSq() float64 {
	var s float64
	n := a.n
	for k := range a.nb {
		if !a.nb[k].owner {
			continue
		}
		for _, v := range a.y[k*n : (k+1)*n] {
			s += float64(v * v)
		}
	}
	return s
}

// globalSafeguard resets every y_ij = 0 (values and copies, version t+1)
// when ||y||^2 = ysq is at least (sigma M_y)^2, adding 1/N to the reset
// count (every agent does the same).
func (a *Agent) globalSafeguard(t int, ysq float64) {
	if math.Sqrt(ysq) >= a.myScaled {
		clear(a.y)
		for k := range a.ver {
			a.ver[k] = int64(t) + 1
		}
		a.resets += a.invN
	}
}
