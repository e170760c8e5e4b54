package engine

import (
	"fmt"
	"slices"

	"github.com/consim/consim/consensus"
)

// CheckOutbox returns an error naming what is wrong with agent id's
// outbox o of a phase in a run of n agents, or nil when o is valid: Expect
// strictly ascending ids in [0, n) other than id; every message marked
// From id, to an agent in [0, n) other than id, at most one per
// recipient; a Group only with a Reduce term, strictly ascending ids in
// [0, n) that include id. It does not see the other agents' outboxes:
// whether the recipients expect the messages and the groups agree is
// Phase's to check, or the runtime's.
func CheckOutbox(id, n int, o consensus.Outbox) error {
	prev := -1
	for _, j := range o.Expect {
		switch {
		case j < 0 || j >= n:
			return fmt.Errorf("agent %d expects agent %d, outside [0, %d)", id, j, n)
		case j <= prev:
			return fmt.Errorf("agent %d: Expect is not strictly ascending at %d", id, j)
		case j == id:
			return fmt.Errorf("agent %d expects a message from itself", id)
		}
		prev = j
	}
	sorted := true
	for k := range o.Msgs {
		m := &o.Msgs[k]
		switch {
		case m.From != id:
			return fmt.Errorf("agent %d sends a message marked From %d", id, m.From)
		case m.To < 0 || m.To >= n:
			return fmt.Errorf("agent %d sends to agent %d, outside [0, %d)", id, m.To, n)
		case m.To == id:
			return fmt.Errorf("agent %d sends a message to itself", id)
		case k > 0 && m.To == o.Msgs[k-1].To:
			return fmt.Errorf("agent %d sends twice to agent %d", id, m.To)
		case k > 0 && m.To < o.Msgs[k-1].To:
			sorted = false
		}
	}
	if !sorted {
		if j, ok := repeatedTo(o.Msgs); ok {
			return fmt.Errorf("agent %d sends twice to agent %d", id, j)
		}
	}
	return checkGroup(id, n, o)
}

// repeatedTo returns a recipient of two of msgs, if there is one.
func repeatedTo(msgs []consensus.Msg) (int, bool) {
	to := make([]int, len(msgs))
	for k := range msgs {
		to[k] = msgs[k].To
	}
	slices.Sort(to)
	for k := 1; k < len(to); k++ {
		if to[k] == to[k-1] {
			return to[k], true
		}
	}
	return 0, false
}

// checkGroup checks agent id's Group against its Reduce.
func checkGroup(id, n int, o consensus.Outbox) error {
	if o.Group == nil {
		return nil
	}
	if o.Reduce == nil {
		return fmt.Errorf("agent %d: reduce group %v without a reduce term", id, o.Group)
	}
	self := false
	for k, j := range o.Group {
		switch {
		case j < 0 || j >= n:
			return fmt.Errorf("agent %d: reduce group %v: agent %d outside 0..%d", id, o.Group, j, n-1)
		case k > 0 && j <= o.Group[k-1]:
			return fmt.Errorf("agent %d: reduce group %v: not strictly ascending", id, o.Group)
		}
		self = self || j == id
	}
	if !self {
		return fmt.Errorf("reduce group %v does not contain agent %d, which gives a term", o.Group, id)
	}
	return nil
}

// CheckSymmetric returns an error unless agent id's outbox o sends to
// exactly the agents it expects to hear from, as the algorithms that
// exchange along undirected edges do (both endpoints compute the same
// edge draws); o must be valid (CheckOutbox). With the recipients'
// check that they expect the messages they get, the exchange is then
// symmetric: i sends to j iff j sends to i.
func CheckSymmetric(id int, o consensus.Outbox) error {
	for k := range o.Msgs {
		if to := o.Msgs[k].To; !contains(o.Expect, to) {
			return fmt.Errorf("exchange %d->%d is not symmetric: %d does not expect %d", id, to, id, to)
		}
	}
	if len(o.Msgs) != len(o.Expect) {
		return fmt.Errorf("exchange of agent %d is not symmetric: it sends %d messages but expects %d", id, len(o.Msgs), len(o.Expect))
	}
	return nil
}

// contains reports whether the ascending list s holds j.
func contains(s []int, j int) bool {
	_, ok := slices.BinarySearch(s, j)
	return ok
}
