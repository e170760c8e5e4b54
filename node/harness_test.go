package node

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/nats-io/nats-server/v2/server"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/consensus/null"
	"github.com/consim/consim/graph"
	"golang.org/x/sync/errgroup"
)

// newTestTransport returns a transport of the given kind for n agents,
// closed at the end of the test.
func newTestTransport(t testing.TB, kind TransportKind, n int) Transport {
	t.Helper()
	run := strings.NewReplacer("/", "_", "=", "-", " ", "_").Replace(t.Name())
	tr, err := NewTransport(TransportConfig{Kind: kind, N: n, RunID: run})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := tr.Close(); err != nil {
			t.Errorf("close transport: %v", err)
		}
	})
	return tr
}

// startTestServer starts a NATS server with o (on a random loopback port
// if o.Port is 0), shut down at the end of the test.
func startTestServer(t testing.TB, o NATSServerOptions) *server.Server {
	t.Helper()
	if o.Port == 0 {
		o.Port = server.RANDOM_PORT
	}
	srv, err := StartNATSServer(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Shutdown(); srv.WaitForShutdown() })
	return srv
}

// ring returns the cycle on n agents.
func ring(t testing.TB, n int) *graph.Graph {
	t.Helper()
	g, err := graph.Ring(n)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// startValues returns a deterministic, irregular x0 for agent i.
func startValues(i, d int) []float64 {
	x := make([]float64, d)
	for k := range x {
		x[k] = float64((i*7+k*3)%11) / 3
	}
	return x
}

// nullAgents returns the null agents of g in R^d.
func nullAgents(t testing.TB, g *graph.Graph, d int) []consensus.Agent {
	t.Helper()
	agents := make([]consensus.Agent, g.N)
	for i := range agents {
		a, err := null.NewAgent(i, g, d, startValues(i, d))
		if err != nil {
			t.Fatal(err)
		}
		agents[i] = a
	}
	return agents
}

// observed is what the observer saw of a run.
type observed struct {
	terminal []Status // by agent id: its final or failed status
	progress int      // progress statuses seen
}

// observe starts the run once all n agents are ready and collects statuses
// until every agent has published a final or failed one. onProgress, if
// set, sees each progress status.
func observe(ctx context.Context, obs Observer, n int, onProgress func(Status)) (observed, error) {
	if err := StartWhenReady(ctx, obs, n); err != nil {
		return observed{}, err
	}
	res := observed{terminal: make([]Status, n)}
	for left := n; left > 0; {
		select {
		case f, ok := <-obs.Statuses():
			if !ok {
				return res, errors.New("status channel closed")
			}
			s, err := DecodeStatus(f)
			if err != nil {
				return res, err
			}
			switch s.Kind {
			case StatusProgress:
				res.progress++
				if onProgress != nil {
					onProgress(s)
				}
			case StatusFinal, StatusFailed:
				if res.terminal[s.ID].Kind != "" {
					return res, fmt.Errorf("agent %d published two terminal statuses", s.ID)
				}
				res.terminal[s.ID] = s
				left--
			}
		case <-ctx.Done():
			return res, fmt.Errorf("observe: %w", ctx.Err())
		}
	}
	return res, nil
}

// runObserved runs agents over tr with RunAll next to an observer and
// returns what the observer saw and RunAll's error. It waits for the run
// however long it takes (see clock_test.go).
func runObserved(t testing.TB, tr Transport, agents []consensus.Agent, opts Options, onProgress func(Observer, Status)) (observed, error) {
	t.Helper()
	ctx := context.Background()
	obs, err := tr.Observer()
	if err != nil {
		t.Fatal(err)
	}
	defer obs.Close()
	var res observed
	var g errgroup.Group
	g.Go(func() error {
		var hook func(Status)
		if onProgress != nil {
			hook = func(s Status) { onProgress(obs, s) }
		}
		var err error
		res, err = observe(ctx, obs, len(agents), hook)
		return err
	})
	runErr := RunAll(ctx, agents, tr, opts)
	if err := g.Wait(); err != nil {
		t.Fatalf("observer: %v (agents: %v)", err, runErr)
	}
	return res, runErr
}

// lockstep runs agents for the given rounds in one goroutine, as a
// lossless runtime: every message sent is delivered. Inboxes follow Run's
// rules, so the iterates must match Run's bit for bit.
func lockstep(t testing.TB, agents []consensus.Agent, rounds int) {
	t.Helper()
	n := len(agents)
	for r := range rounds {
		phases := agents[0].Phases(r)
		for ph := range phases {
			out := make([]consensus.Outbox, n)
			for i, a := range agents {
				out[i] = a.Send(r, ph)
			}
			// Snapshot every inbox before any Receive: the runtime encodes
			// messages when they are sent, and agents reuse their buffers.
			inboxes := make([]consensus.Inbox, n)
			for i := range agents {
				in := &inboxes[i]
				for _, j := range out[i].Expect {
					k := slices.IndexFunc(out[j].Msgs, func(m consensus.Msg) bool { return m.To == i })
					if k < 0 {
						in.Missing = append(in.Missing, j)
						continue
					}
					m := out[j].Msgs[k]
					m.Data = slices.Clone(m.Data)
					in.Msgs = append(in.Msgs, m)
				}
				if out[i].Reduce != nil {
					for j := range n {
						switch {
						case out[j].Reduce == nil:
						case in.Reduce == nil:
							in.Reduce = slices.Clone(out[j].Reduce)
						default:
							for k, v := range out[j].Reduce {
								in.Reduce[k] += v
							}
						}
					}
				}
			}
			for i, a := range agents {
				in := inboxes[i]
				if err := a.Receive(r, ph, in); err != nil {
					t.Fatalf("lockstep round %d phase %d agent %d: %v", r, ph, i, err)
				}
			}
		}
	}
}

// sameBits reports the first agent and coordinate where the reports of
// got and want differ in any bit.
func sameBits(t testing.TB, got, want []consensus.Agent) {
	t.Helper()
	for i := range want {
		x, y := got[i].Report().X, want[i].Report().X
		if len(x) != len(y) {
			t.Fatalf("agent %d: %d values, want %d", i, len(x), len(y))
		}
		for k := range y {
			if fx, fy := x[k], y[k]; math.Float64bits(fx) != math.Float64bits(fy) {
				t.Fatalf("agent %d x[%d] = %v, want %v bit for bit", i, k, fx, fy)
			}
		}
	}
}
