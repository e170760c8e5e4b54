package node

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/graph"
	"github.com/consim/consim/internal/wallclock"
)

// Operations of testOracle.
const (
	opQuad  = 0 // [sum_k (k+1) x_k^2 + u, sqrt|x_0|]
	opScale = 1 // x_k * (1 + u) for each k, then u: len(x)+1 values
	opFail  = 2 // an error
	opPanic = 3 // a panic
)

// testOracle is a deterministic oracle whose values depend on the whole
// request: u = graph.Uniform(key, ...) stands for the common randomness a
// worker draws from the key. It counts its evaluations.
type testOracle struct{ calls *atomic.Int64 }

func (o testOracle) Evaluate(q consensus.EvalRequest, out []float64) ([]float64, error) {
	if o.calls != nil {
		o.calls.Add(1)
	}
	u := graph.Uniform(q.Key, 0, 0, uint64(len(q.Arg)), 0)
	switch q.Op {
	case opQuad:
		s := u
		for k, v := range q.Arg {
			s += float64(k+1) * v * v
		}
		x0 := 0.0
		if len(q.Arg) > 0 {
			x0 = q.Arg[0]
		}
		return append(out, s, math.Sqrt(math.Abs(x0))), nil
	case opScale:
		for _, v := range q.Arg {
			out = append(out, v*(1+u))
		}
		return append(out, u), nil
	case opFail:
		return out, fmt.Errorf("op %d refused for key %#x", q.Op, q.Key)
	case opPanic:
		panic("test oracle panics")
	}
	return out, fmt.Errorf("unknown op %d", q.Op)
}

// evaluator is a one-phase test agent that uses both messages and the
// fan-out: each round it sends x to its graph neighbours and asks for
// B evaluations at points derived from x (alternating opQuad and opScale,
// keys from the round and the request index); then
//
//	x_k <- (x_k + sum_j x_j,k)/(1+|R|) + 2^-8 sum_q v_q[k mod len(v_q)]
//
// so every result value moves the iterate. With fail > 0, request 1 of
// round fail asks for op failOp.
type evaluator struct {
	id, b, d int
	nbrs     []int
	x        []float64
	args     [][]float64
	reqs     []consensus.EvalRequest
	msgs     []consensus.Msg
	round    int
	fail     int
	failOp   int
}

func newEvaluator(id int, g *graph.Graph, b, d int) *evaluator {
	a := &evaluator{id: id, b: b, d: d, nbrs: g.Neighbors(id), x: startValues(id, d), args: make([][]float64, b), reqs: make([]consensus.EvalRequest, b), fail: -1}
	for q := range a.args {
		a.args[q] = make([]float64, d)
	}
	for _, j := range a.nbrs {
		a.msgs = append(a.msgs, consensus.Msg{From: id, To: j, Data: a.x})
	}
	return a
}

func evaluators(g *graph.Graph, b, d int) []consensus.Agent {
	agents := make([]consensus.Agent, g.N)
	for i := range agents {
		agents[i] = newEvaluator(i, g, b, d)
	}
	return agents
}

func (a *evaluator) ID() int        { return a.id }
func (a *evaluator) Phases(int) int { return 1 }

func (a *evaluator) Send(t, ph int) consensus.Outbox {
	for q := range a.reqs {
		for k := range a.args[q] {
			a.args[q][k] = a.x[k] + float64(q-k)/float64(a.b)
		}
		a.reqs[q] = consensus.EvalRequest{Op: q % 2, Key: graph.Hash(99, uint64(t), uint64(a.id), uint64(q), 0), Arg: a.args[q]}
		if t == a.fail && q == 1 {
			a.reqs[q].Op = a.failOp
		}
	}
	return consensus.Outbox{Msgs: a.msgs, Expect: a.nbrs, Evals: a.reqs}
}

func (a *evaluator) Receive(t, ph int, in consensus.Inbox) error {
	if len(in.Evals) != a.b {
		return fmt.Errorf("%d results for %d requests", len(in.Evals), a.b)
	}
	for k := range a.x {
		s := a.x[k]
		for _, m := range in.Msgs {
			s += m.Data[k]
		}
		a.x[k] = s / float64(1+len(in.Msgs))
	}
	for _, v := range in.Evals {
		if len(v) == 0 {
			return errors.New("empty result")
		}
		for k := range a.x {
			a.x[k] += 0x1p-8 * v[k%len(v)]
		}
	}
	a.round = t + 1
	return nil
}

func (a *evaluator) Report() consensus.Report {
	return consensus.Report{ID: a.id, Round: a.round, X: slices.Clone(a.x)}
}

// lockstepEvals runs agents without reduce like lockstep, evaluating each
// phase's requests directly with one oracle in the test's goroutine.
func lockstepEvals(t testing.TB, agents []consensus.Agent, rounds int) {
	t.Helper()
	o := testOracle{}
	for r := range rounds {
		for ph := range agents[0].Phases(r) {
			outs := make([]consensus.Outbox, len(agents))
			for i, a := range agents {
				outs[i] = a.Send(r, ph)
			}
			ins := make([]consensus.Inbox, len(agents))
			for i := range agents {
				for _, j := range outs[i].Expect {
					k := slices.IndexFunc(outs[j].Msgs, func(m consensus.Msg) bool { return m.To == i })
					m := outs[j].Msgs[k]
					m.Data = slices.Clone(m.Data)
					ins[i].Msgs = append(ins[i].Msgs, m)
				}
				for _, q := range outs[i].Evals {
					v, err := o.Evaluate(q, nil)
					if err != nil {
						t.Fatal(err)
					}
					ins[i].Evals = append(ins[i].Evals, v)
				}
			}
			for i, a := range agents {
				if err := a.Receive(r, ph, ins[i]); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
}

// oracleFactory returns Options.Oracle for testOracle, counting the
// oracles made and the evaluations done.
func oracleFactory(made, calls *atomic.Int64) func(int) consensus.Oracle {
	return func(int) consensus.Oracle {
		made.Add(1)
		return testOracle{calls: calls}
	}
}

// TestFanoutBitIdentical runs four evaluators on a ring, 37 requests of 5
// values each per agent and round, with W = 0, 1, 2, 4 oracle workers on
// the channel and in-process NATS transports (and W = 2 over NATS on
// TCP): the iterates equal those of
// a lockstep run with direct evaluation, bit for bit, every request is
// evaluated exactly once, and the workers are the ones expected (NATS: W
// worker connections; chan: a pool of W shared by the agents, or one
// oracle per agent with W = 0).
func TestFanoutBitIdentical(t *testing.T) {
	const n, b, d, rounds = 4, 37, 5, 6
	g := ring(t, n)
	want := evaluators(g, b, d)
	lockstepEvals(t, want, rounds)
	for _, kind := range TransportKinds {
		for _, w := range []int{0, 1, 2, 4} {
			if kind == TransportNATSTCP && w != 2 {
				continue // one case over TCP: the codec is the same
			}
			t.Run(fmt.Sprintf("%s/W=%d", kind, w), func(t *testing.T) {
				var made, calls atomic.Int64
				agents := evaluators(g, b, d)
				opts := Options{Rounds: rounds, Workers: w, Oracle: oracleFactory(&made, &calls)}
				res, err := runObserved(t, newTestTransport(t, kind, n), agents, opts, nil)
				if err != nil {
					t.Fatal(err)
				}
				sameBits(t, agents, want)
				if got := calls.Load(); got != n*b*rounds {
					t.Errorf("%d evaluations, want %d", got, n*b*rounds)
				}
				wantMade := int64(w)
				if w == 0 {
					wantMade = n
				}
				if made.Load() != wantMade {
					t.Errorf("%d oracles made, want %d", made.Load(), wantMade)
				}
				for i, s := range res.terminal {
					tr := s.Traffic
					if s.Kind != StatusFinal || tr.Evals != b*rounds || tr.EvalRetries != 0 || tr.EvalMissing != 0 || tr.Late != 0 || tr.Malformed != 0 {
						t.Errorf("agent %d: %s, traffic %+v", i, s.Kind, tr)
					}
					remote := kind != TransportChan && w > 0
					if (tr.EvalFrames > 0) != remote {
						t.Errorf("agent %d: %d eval frames; remote workers: %v", i, tr.EvalFrames, remote)
					}
				}
			})
		}
	}
}

// TestFanoutChunking checks the chunks a batch is published in: contiguous,
// covering every request once, at most ceil(n/(4W)) requests (at least 16)
// and 1 MiB each, so a batch of 10,000 requests of 50 values takes a few
// frames, not 10,000.
func TestFanoutChunking(t *testing.T) {
	tests := []struct {
		n, d, w   int
		maxChunks int
	}{
		{10000, 50, 1, 5},
		{10000, 50, 4, 16},
		{100, 50, 4, 7},
		{3, 50, 4, 1},
		{5, 140000, 2, 5}, // requests over 1 MiB: one each
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("n=%d/d=%d/W=%d", tc.n, tc.d, tc.w), func(t *testing.T) {
			arg := make([]float64, tc.d)
			reqs := make([]consensus.EvalRequest, tc.n)
			for i := range reqs {
				reqs[i] = consensus.EvalRequest{Op: i, Arg: arg}
			}
			pub := &capture{}
			r := &runner{o: Options{Workers: tc.w}, ep: pub, id: 3}
			r.ev.reqs = reqs
			r.ev.out, r.ev.got = make([][]float64, tc.n), make([]bool, tc.n)
			if err := r.publishEvals(pub, 7, 1); err != nil {
				t.Fatal(err)
			}
			if len(pub.frames) > tc.maxChunks || len(pub.frames) != len(r.ev.chunks) {
				t.Fatalf("%d frames for %d chunks, want at most %d", len(pub.frames), len(r.ev.chunks), tc.maxChunks)
			}
			next := 0
			var c EvalChunk
			for _, f := range pub.frames {
				if err := DecodeEvalChunk(&c, f); err != nil {
					t.Fatal(err)
				}
				if c.Start != next || c.From != 3 || c.Seq != 1 {
					t.Fatalf("chunk from %d starts at %d (seq %d), want agent 3, %d, seq 1", c.From, c.Start, c.Seq, next)
				}
				if len(c.Reqs) > 1 && len(f) > HeaderLen+8*evalMaxChunkWords {
					t.Fatalf("chunk of %d requests in %d bytes", len(c.Reqs), len(f))
				}
				for k, q := range c.Reqs {
					if q.Op != c.Start+k || len(q.Arg) != tc.d {
						t.Fatalf("request %d: op %d with %d values", c.Start+k, q.Op, len(q.Arg))
					}
				}
				next += len(c.Reqs)
			}
			if next != tc.n {
				t.Fatalf("chunks cover %d requests, want %d", next, tc.n)
			}
		})
	}
}

// capture is an endpoint that keeps the eval frames published through it.
type capture struct {
	Endpoint
	frames [][]byte
}

func (c *capture) PublishEval(f []byte) error {
	c.frames = append(c.frames, slices.Clone(f))
	return nil
}

// TestFanoutWorkerError: agent 1 asks for a failing or panicking
// evaluation in round 2. Its run fails with an error naming the request,
// the operation and the oracle's message; the others finish.
func TestFanoutWorkerError(t *testing.T) {
	const n, b, d, rounds, at = 3, 8, 2, 4, 2
	g := complete(t, n)
	tests := []struct {
		op   int
		text string
	}{
		{opFail, "op 2 refused"},
		{opPanic, "oracle panicked: test oracle panics"},
	}
	for _, kind := range []TransportKind{TransportChan, TransportNATS} {
		for _, w := range []int{0, 2} {
			for _, tc := range tests {
				t.Run(fmt.Sprintf("%s/W=%d/op=%d", kind, w, tc.op), func(t *testing.T) {
					agents := evaluators(g, b, d)
					agents[1].(*evaluator).fail = at
					agents[1].(*evaluator).failOp = tc.op
					var made, calls atomic.Int64
					opts := Options{Rounds: rounds, Workers: w, Oracle: oracleFactory(&made, &calls), PhaseDeadline: 2 * time.Second}
					res, err := runObserved(t, newTestTransport(t, kind, n), agents, opts, nil)
					if err == nil {
						t.Fatal("want an error")
					}
					want := fmt.Sprintf("eval request 1 of %d (op %d)", b, tc.op)
					for _, s := range []string{"agent 1", "round 2 phase 0", want, tc.text} {
						if !strings.Contains(err.Error(), s) {
							t.Errorf("error %q does not contain %q", err, s)
						}
					}
					if s := res.terminal[1]; s.Kind != StatusFailed || !strings.Contains(s.Err, tc.text) {
						t.Errorf("agent 1: status %s %q, want failed with %q", s.Kind, s.Err, tc.text)
					}
					for _, i := range []int{0, 2} {
						if s := res.terminal[i]; s.Kind != StatusFinal || s.Report.Round != rounds {
							t.Errorf("agent %d: %s after round %d, want final after %d", i, s.Kind, s.Report.Round, rounds)
						}
					}
				})
			}
		}
	}
}

// TestFanoutNoWorker: on NATS with W = 2 but no worker subscribed (no
// Oracle, so RunAll starts none), every chunk is published, published
// again at EvalDeadline, and the agent fails at twice EvalDeadline with
// the chunks counted missing, instead of hanging.
func TestFanoutNoWorker(t *testing.T) {
	const b, d, deadline = 40, 3, 100 * time.Millisecond
	g := ring(t, 1)
	agents := evaluators(g, b, d)
	start := time.Now()
	res, err := runObserved(t, newTestTransport(t, TransportNATS, 1), agents, Options{Rounds: 3, Workers: 2, EvalDeadline: deadline}, nil)
	elapsed := time.Since(start)
	if err == nil || !strings.Contains(err.Error(), "3 of 3 eval chunks (requests 0..15, 16..31, 32..39) unanswered") {
		t.Fatalf("error %v, want 3 unanswered chunks", err)
	}
	tr := res.terminal[0].Traffic
	if res.terminal[0].Kind != StatusFailed || tr.EvalRetries != 3 || tr.EvalMissing != 3 || tr.EvalFrames != 6 {
		t.Errorf("status %s, traffic %+v; want failed, 3 retries, 3 missing, 6 frames", res.terminal[0].Kind, tr)
	}
	if elapsed < 2*deadline {
		t.Errorf("failed after %v, before twice the eval deadline %v", elapsed, deadline)
	}
	wallclock.Bound(t, "failing on unanswered chunks", elapsed, 2*deadline+5*time.Second)
}

// dropFirst is an oracle worker connection that loses the first request
// frame it gets, as a worker that crashed with the frame would.
type dropFirst struct {
	EvalConn
	out chan []byte
}

func newDropFirst(c EvalConn) *dropFirst {
	d := &dropFirst{EvalConn: c, out: make(chan []byte)}
	go func() {
		defer close(d.out)
		first := true
		for f := range c.Requests() {
			if first {
				first = false
				continue
			}
			d.out <- f
		}
	}()
	return d
}

func (d *dropFirst) Requests() <-chan []byte { return d.out }

// TestFanoutRetry: the only worker loses the first chunk it gets. The
// chunk is published again at EvalDeadline and answered, and the run's
// iterates are those of direct evaluation.
func TestFanoutRetry(t *testing.T) {
	const n, b, d, rounds = 2, 50, 3, 3
	g := ring(t, n)
	want := evaluators(g, b, d)
	lockstepEvals(t, want, rounds)
	tr := newTestTransport(t, TransportNATS, n).(*NATSTransport)
	conn, err := tr.EvalWorker(0)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- OracleWorker{ID: 0, Oracle: testOracle{}}.Serve(ctx, newDropFirst(conn)) }()
	agents := evaluators(g, b, d)
	res, err := runObserved(t, tr, agents, Options{Rounds: rounds, Workers: 1, EvalDeadline: 200 * time.Millisecond}, nil)
	if err != nil {
		t.Fatal(err)
	}
	sameBits(t, agents, want)
	var retries int64
	for _, s := range res.terminal {
		retries += s.Traffic.EvalRetries
		if s.Traffic.EvalMissing != 0 {
			t.Errorf("agent %d: %d chunks missing", s.ID, s.Traffic.EvalMissing)
		}
	}
	if retries != 1 {
		t.Errorf("%d chunks published again, want 1", retries)
	}
	if err := conn.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("worker: %v", err)
	}
}

// TestFanoutNeedsOracle: evaluations without an oracle in the process
// are a clear error.
func TestFanoutNeedsOracle(t *testing.T) {
	for _, w := range []int{0, 2} {
		t.Run(fmt.Sprintf("W=%d", w), func(t *testing.T) {
			agents := evaluators(ring(t, 1), 3, 1)
			_, err := runObserved(t, newTestTransport(t, TransportChan, 1), agents, Options{Rounds: 1, Workers: w}, nil)
			if err == nil || !strings.Contains(err.Error(), "Options.Oracle") {
				t.Fatalf("error %v, want one naming Options.Oracle", err)
			}
		})
	}
}

// TestEvalPoolChunks: the in-process pool splits n requests into min(W, n)
// contiguous chunks of sizes differing by at most one, each evaluated by
// one worker, and reports the failure of the lowest index.
func TestEvalPoolChunks(t *testing.T) {
	for _, tc := range []struct{ w, n int }{{1, 5}, {2, 5}, {4, 3}, {3, 10}} {
		t.Run(fmt.Sprintf("W=%d/n=%d", tc.w, tc.n), func(t *testing.T) {
			var seen [8]atomic.Int64
			p, err := newEvalPool(tc.w, func(w int) consensus.Oracle { return workerTag{w: w, seen: &seen} })
			if err != nil {
				t.Fatal(err)
			}
			defer p.close()
			reqs := make([]consensus.EvalRequest, tc.n)
			out := make([][]float64, tc.n)
			if f := p.evaluate(reqs, out); f != nil {
				t.Fatal(f.err)
			}
			c := min(tc.w, tc.n)
			for k := range c {
				lo, hi := k*tc.n/c, (k+1)*tc.n/c
				for i := lo; i < hi; i++ {
					if out[i][0] != out[lo][0] {
						t.Errorf("chunk %d..%d: request %d on worker %v, request %d on %v", lo, hi-1, i, out[i][0], lo, out[lo][0])
					}
				}
			}
			reqs[1].Op, reqs[tc.n-1].Op = opFail, opFail
			f := p.evaluate(reqs, out)
			if f == nil || f.index != 1 {
				t.Fatalf("failure %+v, want request 1", f)
			}
		})
	}
}

// workerTag is an oracle that returns its worker's index.
type workerTag struct {
	w    int
	seen *[8]atomic.Int64
}

func (o workerTag) Evaluate(q consensus.EvalRequest, out []float64) ([]float64, error) {
	if q.Op == opFail {
		return out, errors.New("fail")
	}
	o.seen[o.w].Add(1)
	return append(out, float64(o.w)), nil
}

// BenchmarkFanout measures evaluation requests per second through the
// fan-out: one agent asks for a batch of B requests of 50 values each
// round (testOracle, two values per result), evaluated by W oracle workers
// of the channel transport (goroutines) or of in-process NATS (queue
// group subscribers). One op is one round, B requests.
func BenchmarkFanout(b *testing.B) {
	const d = 50
	for _, kind := range []TransportKind{TransportChan, TransportNATS} {
		for _, w := range []int{1, 4} {
			for _, batch := range []int{100, 10000} {
				b.Run(fmt.Sprintf("%s/W=%d/batch=%d", kind, w, batch), func(b *testing.B) {
					g := ring(b, 1)
					agents := evaluators(g, batch, d)
					tr := newTestTransport(b, kind, 1)
					obs, err := tr.Observer()
					if err != nil {
						b.Fatal(err)
					}
					defer obs.Close()
					ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
					defer cancel()
					var made, calls atomic.Int64
					opts := Options{Rounds: b.N, Workers: w, Oracle: oracleFactory(&made, &calls), PhaseDeadline: time.Minute}
					done := make(chan error, 1)
					go func() { done <- RunAll(ctx, agents, tr, opts) }()
					if s, err := DecodeStatus(<-obs.Statuses()); err != nil || s.Kind != StatusReady {
						b.Fatalf("status %+v, %v; want ready", s, err)
					}
					b.ReportAllocs()
					b.ResetTimer()
					begin := time.Now()
					if err := obs.Control(EncodeControl(Control{Kind: ControlStart})); err != nil {
						b.Fatal(err)
					}
					if err := <-done; err != nil {
						b.Fatal(err)
					}
					elapsed := time.Since(begin)
					b.StopTimer()
					if calls.Load() != int64(b.N*batch) {
						b.Fatalf("%d evaluations, want %d", calls.Load(), b.N*batch)
					}
					b.ReportMetric(float64(b.N*batch)/elapsed.Seconds(), "requests/s")
				})
			}
		}
	}
}
