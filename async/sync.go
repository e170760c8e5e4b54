package async

import (
	"fmt"
	"slices"

	"github.com/consim/consim/consensus"
)

// Synchronous runs a round-based agent (consensus.Agent) on an
// asynchronous runtime, so that a synchronous algorithm and an
// asynchronous one can be timed on the same clocks and links. Round t of
// agent i starts with one clock interval, the round's computation (a
// straggler's is longer); then its phases run in order, each sending the
// phase's messages and ending when every expected message of the phase
// has arrived. The agent's edges are drawn by the agent itself from the
// common randomness, so its messages are Drawn: they are always
// delivered, after their latency. An agent therefore waits for its
// slowest neighbour in every round, and through it for the slowest agent
// of the run: the synchronous schedule. Messages carry the round in Tag
// and the phase in Kind; messages of later phases that arrive early are
// kept until their phase. Each completed round is one update.
//
// Reduces (Outbox.Reduce) and evaluations (Outbox.Evals) are not
// supported: a phase that asks for them fails.
type Synchronous struct {
	a     consensus.Agent
	t, ph int
	// wait is set while the current phase's messages are awaited.
	wait   bool
	expect []int
	got    []consensus.Msg // messages of the current phase, any order
	early  []consensus.Msg // messages of later phases
	free   [][]float64     // storage of received data, reused
	outbuf []float64
	msgs   []consensus.AsyncMsg
	used   []consensus.AsyncUse
	uses   []consensus.AsyncUse // stamps of got and early, by index into got/early
	euses  []consensus.AsyncUse
}

var _ consensus.AsyncAgent = (*Synchronous)(nil)

// NewSynchronous wraps a.
func NewSynchronous(a consensus.Agent) *Synchronous { return &Synchronous{a: a} }

// Agent returns the wrapped agent.
func (s *Synchronous) Agent() consensus.Agent { return s.a }

// ID implements consensus.AsyncAgent.
func (s *Synchronous) ID() int { return s.a.ID() }

// InRound reports whether a round has started (its computation is done
// and a phase waits for messages): the wrapped agent may then be part
// way through it.
func (s *Synchronous) InRound() bool { return s.wait }

// Start implements consensus.AsyncAgent: round 0's computation starts.
func (s *Synchronous) Start() consensus.AsyncOut { return consensus.AsyncOut{Arm: true} }

// Report implements consensus.AsyncAgent: the wrapped agent's report,
// whose Round is its completed rounds, the updates of the runtime.
func (s *Synchronous) Report() consensus.Report { return s.a.Report() }

// OnTick implements consensus.AsyncAgent: the round's computation is
// done; its first phase starts.
func (s *Synchronous) OnTick(float64) (consensus.AsyncOut, error) {
	if s.wait {
		return consensus.AsyncOut{}, fmt.Errorf("round %d: tick while phase %d waits for messages", s.t, s.ph)
	}
	s.msgs, s.used, s.outbuf = s.msgs[:0], s.used[:0], s.outbuf[:0]
	return s.advance(s.send())
}

// OnLost implements consensus.AsyncAgent. The messages are Drawn and
// never lost.
func (s *Synchronous) OnLost(_ float64, m consensus.AsyncMsg) (consensus.AsyncOut, error) {
	return consensus.AsyncOut{}, fmt.Errorf("round %d: message of round %d phase %d to agent %d lost, but its link was drawn", s.t, m.Tag, m.Kind, m.To)
}

// OnMessage implements consensus.AsyncAgent: a message of the current
// phase is kept until the phase's last one arrives; one of a later phase
// until its phase.
func (s *Synchronous) OnMessage(_ float64, m consensus.AsyncMsg) (consensus.AsyncOut, error) {
	s.msgs, s.used, s.outbuf = s.msgs[:0], s.used[:0], s.outbuf[:0]
	r, ph := int(m.Tag), m.Kind
	cm := consensus.Msg{From: m.From, To: m.To, Round: r, Phase: ph, Data: s.keep(m.Data)}
	switch {
	case s.wait && r == s.t && ph == s.ph:
		if len(s.got) == len(s.expect) {
			return consensus.AsyncOut{}, fmt.Errorf("round %d phase %d: message from agent %d beyond the %d expected (%v)", r, ph, m.From, len(s.expect), s.expect)
		}
		s.got = append(s.got, cm)
		s.uses = append(s.uses, consensus.UseOf(m))
	case r > s.t || r == s.t && ph > s.ph || r == s.t && ph == s.ph && !s.wait:
		s.early = append(s.early, cm)
		s.euses = append(s.euses, consensus.UseOf(m))
		return consensus.AsyncOut{}, nil
	default:
		return consensus.AsyncOut{}, fmt.Errorf("message of round %d phase %d arrived in round %d phase %d", r, ph, s.t, s.ph)
	}
	return s.advance(nil)
}

// keep copies data into storage of the adapter.
func (s *Synchronous) keep(data []float64) []float64 {
	var b []float64
	if n := len(s.free); n > 0 {
		b, s.free = s.free[n-1][:0], s.free[:n-1]
	}
	return append(b, data...)
}

// send runs Send of the current phase: its messages join the call's
// output and its expected senders are awaited, among them those whose
// messages arrived early.
func (s *Synchronous) send() error {
	out := s.a.Send(s.t, s.ph)
	if out.Reduce != nil || out.Group != nil || len(out.Evals) > 0 {
		return fmt.Errorf("round %d phase %d: reduces and evaluations are not supported on an asynchronous runtime", s.t, s.ph)
	}
	if !slices.IsSorted(out.Expect) {
		return fmt.Errorf("round %d phase %d: expected senders %v are not ascending", s.t, s.ph, out.Expect)
	}
	for _, m := range out.Msgs {
		start := len(s.outbuf)
		s.outbuf = append(s.outbuf, m.Data...)
		s.msgs = append(s.msgs, consensus.AsyncMsg{From: m.From, To: m.To, Kind: s.ph, Tag: int64(s.t), Drawn: true,
			Data: s.outbuf[start:len(s.outbuf):len(s.outbuf)]})
	}
	s.expect = append(s.expect[:0], out.Expect...)
	s.wait = true
	kept, keptUses := s.early[:0], s.euses[:0]
	for k, m := range s.early {
		if m.Round == s.t && m.Phase == s.ph {
			s.got = append(s.got, m)
			s.uses = append(s.uses, s.euses[k])
		} else {
			kept, keptUses = append(kept, m), append(keptUses, s.euses[k])
		}
	}
	s.early, s.euses = kept, keptUses
	return nil
}

// advance completes the phases whose messages are all in, sending the
// next ones, and returns the call's output: the update and the next
// round's computation once the round's last phase is done.
func (s *Synchronous) advance(err error) (consensus.AsyncOut, error) {
	if err != nil {
		return consensus.AsyncOut{}, err
	}
	var updated bool
	for s.wait && len(s.got) == len(s.expect) {
		in, err := s.inbox()
		if err != nil {
			return consensus.AsyncOut{}, err
		}
		if err := s.a.Receive(s.t, s.ph, in); err != nil {
			return consensus.AsyncOut{}, err
		}
		s.used = append(s.used, s.uses...)
		for _, m := range s.got {
			s.free = append(s.free, m.Data)
		}
		s.got, s.uses, s.wait = s.got[:0], s.uses[:0], false
		if s.ph+1 < s.a.Phases(s.t) {
			s.ph++
			if err := s.send(); err != nil {
				return consensus.AsyncOut{}, err
			}
			continue
		}
		s.t, s.ph, updated = s.t+1, 0, true
	}
	return consensus.AsyncOut{Msgs: s.msgs, Arm: updated, Updated: updated, Used: s.used}, nil
}

// inbox sorts the phase's messages by sender and checks them against the
// expected senders.
func (s *Synchronous) inbox() (consensus.Inbox, error) {
	order := make([]int, len(s.got))
	for k := range order {
		order[k] = k
	}
	slices.SortFunc(order, func(a, b int) int { return s.got[a].From - s.got[b].From })
	got, uses := make([]consensus.Msg, len(s.got)), make([]consensus.AsyncUse, len(s.got))
	for k, o := range order {
		got[k], uses[k] = s.got[o], s.uses[o]
		if got[k].From != s.expect[k] {
			return consensus.Inbox{}, fmt.Errorf("round %d phase %d: message from agent %d, which was not expected (expected %v)", s.t, s.ph, got[k].From, s.expect)
		}
	}
	s.got, s.uses = got, uses
	return consensus.Inbox{Msgs: got}, nil
}
