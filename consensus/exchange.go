package consensus

import "fmt"

// Broadcast makes o the outbox of a phase in which agent from sends the
// same data to every agent of to and waits for the agents of expect
// (ascending): an agent's exchange along the arcs of a directed graph
// that are present in round t. It reuses o.Msgs and keeps expect as
// o.Expect.
func (o *Outbox) Broadcast(from, t int, to []int, data []float64, expect []int) {
	o.Msgs = o.Msgs[:0]
	for _, j := range to {
		o.Msgs = append(o.Msgs, Msg{From: from, To: j, Round: t, Data: data})
	}
	o.Expect = expect
}

// Ascending calls f for agent self and for every sender in expect
// (ascending) in ascending id order: with own for self, with the Data of
// j's message for a sender j whose message arrived, and with nil for one
// whose message is missing. An agent that sums what f gets sums in the
// order of a matrix-vector product over j = 0, 1, ... (graph.MulOrdered),
// so that it reproduces its matrix-form reference bit for bit. It fails
// if a message does not hold n values or comes from an agent not in
// expect.
func (in Inbox) Ascending(self int, own []float64, expect []int, n int, f func(j int, v []float64)) error {
	msgs := in.Msgs
	before := true
	for _, j := range expect {
		if before && j > self {
			f(self, own)
			before = false
		}
		if len(msgs) == 0 || msgs[0].From != j {
			f(j, nil)
			continue
		}
		if len(msgs[0].Data) != n {
			return fmt.Errorf("message from agent %d has %d values, want %d", j, len(msgs[0].Data), n)
		}
		f(j, msgs[0].Data)
		msgs = msgs[1:]
	}
	if before {
		f(self, own)
	}
	if len(msgs) > 0 {
		return fmt.Errorf("unexpected message from agent %d", msgs[0].From)
	}
	return nil
}
