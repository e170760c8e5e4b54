package engine

import (
	"slices"

	"github.com/consim/consim/consensus"
)

// Inbound is one agent's side of the delivery of a phase, for a runtime
// in which the agent sees only its own outbox and the messages that reach
// it: which of its expected senders' messages have arrived, and the inbox
// they make. Its buffers are reused from phase to phase.
type Inbound struct {
	expect  []int
	got     []bool
	data    [][]float64
	msgs    []consensus.Msg
	missing []int
}

// Begin starts a phase in which the agent expects the senders expect,
// strictly ascending (see CheckOutbox); b keeps a copy.
func (b *Inbound) Begin(expect []int) {
	b.expect = append(b.expect[:0], expect...)
	for len(b.got) < len(b.expect) {
		b.got = append(b.got, false)
		b.data = append(b.data, nil)
	}
	clear(b.got[:len(b.expect)])
}

// Expect returns the phase's expected senders, ascending (b's copy).
func (b *Inbound) Expect() []int { return b.expect }

// Slot returns the index k of sender j in Expect when j is expected and
// its message has not arrived yet.
func (b *Inbound) Slot(j int) (k int, ok bool) {
	k, ok = slices.BinarySearch(b.expect, j)
	return k, ok && !b.got[k]
}

// Buffer returns the values last stored in slot k (in this or an earlier
// phase), which the caller may reuse as the storage of slot k's next
// values.
func (b *Inbound) Buffer(k int) []float64 { return b.data[k] }

// Arrive records that the message of sender Expect()[k] arrived with the
// values data, which b keeps, without copying, until the inbox is
// delivered.
func (b *Inbound) Arrive(k int, data []float64) {
	b.data[k] = data
	b.got[k] = true
}

// Arrived reports whether the message of slot k has arrived.
func (b *Inbound) Arrived(k int) bool { return b.got[k] }

// Deliver returns the messages and missing senders of agent to's inbox of
// phase ph of round t: for each expected sender j, ascending, its message
// if it arrived, else the values substitute(j) returns (a runtime's stale
// copy; nil substitutes nothing), else j is Missing. Both slices are nil
// when empty and are b's buffers, valid until the next Begin.
func (b *Inbound) Deliver(t, ph, to int, substitute func(j int) ([]float64, bool)) (msgs []consensus.Msg, missing []int) {
	b.msgs, b.missing = assemble(b.msgs, b.missing, t, ph, to, b.expect, func(k, j int) ([]float64, bool) {
		if b.got[k] {
			return b.data[k], true
		}
		if substitute != nil {
			return substitute(j)
		}
		return nil, false
	})
	return nonEmpty(b.msgs), nonEmpty(b.missing)
}

// assemble is the delivery rule every driver follows: for each expected
// sender j = expect[k] in ascending order, the message of arrived(k, j)
// if it returns values, else j in missing. It reuses the storage of msgs
// and missing.
func assemble(msgs []consensus.Msg, missing []int, t, ph, to int, expect []int, arrived func(k, j int) ([]float64, bool)) ([]consensus.Msg, []int) {
	msgs, missing = msgs[:0], missing[:0]
	for k, j := range expect {
		if data, ok := arrived(k, j); ok {
			msgs = append(msgs, consensus.Msg{From: j, To: to, Round: t, Phase: ph, Data: data})
			continue
		}
		missing = append(missing, j)
	}
	return msgs, missing
}

// nonEmpty is s, or nil when s is empty.
func nonEmpty[S ~[]E, E any](s S) S {
	if len(s) == 0 {
		return nil
	}
	return s
}
