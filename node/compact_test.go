package node

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/consensus/compress"
	"github.com/consim/consim/graph"
)

// compressing is a one-phase test agent that sends compressed messages:
// in round t agent i sends q_i = Q_i(x_i) to its neighbours, where Q_i is
// top_k (i = 0 mod 3), 3-bit qsgd (i = 1 mod 3) or nothing (dense, i = 2
// mod 3), drawing from a generator seeded by (i, t), and updates
//
//	x_i <- x_i/2 + (1/4) sum_j q_j + (i+1) 2^-8 cos(t).
//
// It records the payload bytes of what it sent, so that a test can check
// the transports' byte counts.
type compressing struct {
	id      int
	nbrs    []int
	op      compress.Operator
	x, q    []float64
	msgs    []consensus.Msg
	pcg     *rand.PCG
	rng     *rand.Rand
	round   int
	payload int64 // sum over rounds of compress.PayloadLen of q
}

func compressingAgents(g *graph.Graph, d int) []consensus.Agent {
	agents := make([]consensus.Agent, g.N)
	for i := range agents {
		ops := []compress.Operator{&compress.TopK{Fraction: 0.2}, compress.QSGD{Bits: 3}, compress.Identity{}}
		a := &compressing{id: i, nbrs: g.Neighbors(i), op: ops[i%3], x: startValues(i, d), q: make([]float64, d), pcg: rand.NewPCG(0, 0)}
		a.rng = rand.New(a.pcg)
		agents[i] = a
	}
	return agents
}

func (a *compressing) ID() int        { return a.id }
func (a *compressing) Phases(int) int { return 1 }

func (a *compressing) Send(t, _ int) consensus.Outbox {
	a.pcg.Seed(uint64(a.id), uint64(t))
	enc := a.op.Compress(a.x, a.q, a.rng)
	a.msgs = a.msgs[:0]
	for _, j := range a.nbrs {
		a.msgs = append(a.msgs, consensus.Msg{From: a.id, To: j, Round: t, Data: a.q, Enc: enc})
	}
	size, err := compress.PayloadLen(enc, a.q)
	if err != nil {
		panic(err) // the operators' q always fits their encoding
	}
	a.payload += int64(size)
	return consensus.Outbox{Msgs: a.msgs, Expect: a.nbrs}
}

func (a *compressing) Receive(t, _ int, in consensus.Inbox) error {
	if len(in.Msgs) != len(a.nbrs) {
		return fmt.Errorf("agent %d: round %d: %d messages, want %d", a.id, t, len(in.Msgs), len(a.nbrs))
	}
	for l := range a.x {
		a.x[l] /= 2
	}
	for _, m := range in.Msgs {
		for l, v := range m.Data {
			a.x[l] += float64(0.25 * v)
		}
	}
	for l := range a.x {
		a.x[l] += float64(a.id+1) * 0x1p-8 * math.Cos(float64(t))
	}
	a.round = t + 1
	return nil
}

func (a *compressing) Report() consensus.Report {
	return consensus.Report{ID: a.id, Round: a.round, X: append([]float64(nil), a.x...)}
}

// TestCompactMessagesAcrossTransports: agents that send top_k, qsgd and
// dense messages on a ring end with the iterates of a lockstep run, bit
// for bit, on every transport, with nothing lost; each agent's
// bytes_sent is, per round, one frame of header, two destinations and
// the compact payload, plus the MAC on NATS over TCP; and the compact
// payloads are a fraction of the dense 8 bytes a value.
func TestCompactMessagesAcrossTransports(t *testing.T) {
	const n, d, rounds = 6, 40, 30
	g := ring(t, n)
	want := compressingAgents(g, d)
	lockstep(t, want, rounds)
	for _, kind := range TransportKinds {
		t.Run(string(kind), func(t *testing.T) {
			agents := compressingAgents(g, d)
			res, err := runObserved(t, newTestTransport(t, kind, n), agents, Options{Rounds: rounds}, nil)
			if err != nil {
				t.Fatal(err)
			}
			sameBits(t, agents, want)
			tag := 0
			if kind == TransportNATSTCP {
				tag = MACLen
			}
			for i, s := range res.terminal {
				tr := s.Traffic
				if tr.Dropouts != 0 || tr.Malformed != 0 || tr.Unexpected != 0 || tr.MsgsRecv != 2*rounds {
					t.Errorf("agent %d: losses in a lossless run: %+v", i, tr)
				}
				a := agents[i].(*compressing)
				wantBytes := a.payload + int64(rounds*(HeaderLen+4*2+tag))
				if tr.BytesSent != wantBytes {
					t.Errorf("agent %d (%v): bytes_sent %d, want %d = %d payload bytes + %d frames of %d header, destination and MAC bytes",
						i, a.op, tr.BytesSent, wantBytes, a.payload, rounds, HeaderLen+8+tag)
				}
				if dense := int64(rounds * 8 * d); i%3 != 2 && 2*a.payload > dense {
					t.Errorf("agent %d (%v): %d payload bytes, more than half the dense %d", i, a.op, a.payload, dense)
				}
			}
		})
	}
}

// TestMalformedCompactFrameIsDropped: a compact frame with a valid header
// and a malformed payload, from a neighbour in the phase it owes a
// message, is counted malformed by the receiving agent and dropped; the
// neighbour's own frame is accepted and the run ends with the lockstep
// iterates.
func TestMalformedCompactFrameIsDropped(t *testing.T) {
	const n, d, rounds = 6, 8, 3
	g := ring(t, n)
	want := compressingAgents(g, d)
	lockstep(t, want, rounds)
	bad, err := AppendDataTo(nil, 1, []int{0}, 0, 0, compress.Encoding{Kind: compress.Sparse}, []float64{0, 1})
	if err != nil {
		t.Fatal(err)
	}
	bad[HeaderLen+4+1] = 1 // length 1: the entry at index 1 is beyond it
	for _, kind := range TransportKinds {
		t.Run(string(kind), func(t *testing.T) {
			tr := newTestTransport(t, kind, n)
			agents := compressingAgents(g, d)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			obs, err := tr.Observer()
			if err != nil {
				t.Fatal(err)
			}
			defer obs.Close()
			eps := make([]Endpoint, n)
			for i := range eps {
				if eps[i], err = tr.Endpoint(i); err != nil {
					t.Fatal(err)
				}
				defer eps[i].Close()
			}
			if err := eps[1].Publish(bad); err != nil {
				t.Fatal(err)
			}
			errs := make(chan error, n)
			for i, a := range agents {
				go func() { errs <- Run(ctx, a, eps[i], Options{N: n, Rounds: rounds}) }()
			}
			res, err := observe(ctx, obs, n, nil)
			if err != nil {
				t.Fatal(err)
			}
			for range n {
				if err := <-errs; err != nil {
					t.Fatal(err)
				}
			}
			sameBits(t, agents, want)
			if tr0 := res.terminal[0].Traffic; tr0.Malformed != 1 || tr0.Dropouts != 0 || tr0.BusMalformed != 0 {
				t.Errorf("agent 0: %d malformed, %d dropouts, %d malformed on the bus; want 1, 0, 0", tr0.Malformed, tr0.Dropouts, tr0.BusMalformed)
			}
		})
	}
}
