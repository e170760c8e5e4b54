package node

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/consim/consim/consensus"
	"github.com/nats-io/nats.go"
)

// intruder is a user of the embedded servers of attackTransport that may
// publish anywhere: what any client of a server without users can do.
var intruder = NATSUser{Name: "intruder", Password: "intruder", Publish: []string{">"}, Subscribe: []string{">"}}

// attackTransport returns a NATS transport of the given kind open to an
// outside client (see outsider): in-process with the intruder as an extra
// user of its server, or over TCP to a server without users (an external
// server: the MACs alone protect the run), under a fresh run key.
func attackTransport(t *testing.T, kind TransportKind, run string) *NATSTransport {
	t.Helper()
	key, err := NewRunKey()
	if err != nil {
		t.Fatal(err)
	}
	opts := NATSOptions{RunID: run, Key: key}
	if kind == TransportNATS {
		opts.InProcess, opts.extraUsers = true, []NATSUser{intruder}
	} else {
		srv := startTestServer(t, NATSServerOptions{Port: -1})
		opts.URL = srv.ClientURL()
	}
	tr, err := NewNATSTransport(opts)
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

// outsider connects a client that is no part of the run to the server of
// tr (see attackTransport).
func outsider(t *testing.T, tr *NATSTransport) *nats.Conn {
	t.Helper()
	var nc *nats.Conn
	var err error
	if tr.srv != nil && tr.opts.InProcess {
		nc, err = nats.Connect("", nats.InProcessServer(tr.srv), nats.UserInfo(intruder.Name, intruder.Password))
	} else {
		nc, err = nats.Connect(tr.URL())
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	return nc
}

// attack is one attack on a live run: inject publishes from an outside
// client once every agent is ready and before the start, and returns the
// number of messages it published onto the subjects the agents' shared
// connection reads (agent frames, results, controls) and onto the
// statuses.
type attack struct {
	name   string
	inject func(t *testing.T, nc *nats.Conn, run string) (agents, statuses int)
}

// forgedMAC returns frame followed by a MAC under another key.
func forgedMAC(frame []byte) []byte {
	m := hmac.New(sha256.New, []byte("not the run key, but 32 bytes ok"))
	m.Write(frame)
	return m.Sum(append([]byte(nil), frame...))
}

var attacks = []attack{
	{"forged data frames", func(t *testing.T, nc *nats.Conn, run string) (int, int) {
		// Well-formed data frames of every round from agent 1 to agent 0
		// and 2, with no MAC and with a MAC under another key.
		k := 0
		for round := range 20 {
			f := mustFrameTo(t, FrameData, 1, []int{0, 2}, round, 0, []float64{1e6, -1e6})
			publish(t, nc, SubjectAgent(run, 1), f)
			publish(t, nc, SubjectAgent(run, 1), forgedMAC(f))
			k += 2
		}
		return k, 0
	}},
	{"forged leave", func(t *testing.T, nc *nats.Conn, run string) (int, int) {
		// Agent 3 "leaves" from round 0 on, addressed to everyone.
		f := mustFrame(t, FrameLeave, 3, 0, 0, nil)
		publish(t, nc, SubjectAgent(run, 3), f)
		publish(t, nc, SubjectAgent(run, 3), forgedMAC(f))
		return 2, 0
	}},
	{"forged stop", func(t *testing.T, nc *nats.Conn, run string) (int, int) {
		stop := EncodeControl(Control{Kind: ControlStop, Reason: "forged"})
		publish(t, nc, SubjectControl(run), stop)
		publish(t, nc, SubjectControl(run), forgedMAC(stop))
		return 2, 0
	}},
	{"forged statuses and results", func(t *testing.T, nc *nats.Conn, run string) (int, int) {
		s, err := EncodeStatus(Status{Kind: StatusFailed, ID: 2, Err: "forged"})
		if err != nil {
			t.Fatal(err)
		}
		publish(t, nc, SubjectStatus(run, 2), s)
		res, err := AppendEvalResults(nil, 0, 0, 0, 1, 0, 0, [][]float64{{1}})
		if err != nil {
			t.Fatal(err)
		}
		publish(t, nc, SubjectResult(run, 0), res)
		return 1, 1
	}},
	{"random bytes", func(t *testing.T, nc *nats.Conn, run string) (int, int) {
		rng := rand.New(rand.NewPCG(1, 2))
		subjects := []string{SubjectAgent(run, 0), SubjectAgent(run, 4), SubjectControl(run), SubjectResult(run, 1), SubjectStatus(run, 5)}
		agents, statuses := 0, 0
		for i := range 10000 {
			b := make([]byte, rng.IntN(200))
			for k := range b {
				b[k] = byte(rng.Uint32())
			}
			s := subjects[i%len(subjects)]
			publish(t, nc, s, b)
			if s == SubjectStatus(run, 5) {
				statuses++
			} else {
				agents++
			}
		}
		return agents, statuses
	}},
}

func publish(t *testing.T, nc *nats.Conn, subject string, data []byte) {
	t.Helper()
	if err := nc.Publish(subject, data); err != nil {
		t.Fatal(err)
	}
}

// TestAttacksOnALiveRun runs six averaging agents (a neighbour exchange
// and an all-reduce per round) on NATS, in-process and over TCP to a
// server without users, while an outside client of the same server
// allowed to publish anywhere publishes forged or random messages
// onto the run's subjects: data frames, a leave, a stop, statuses and
// eval results, without the run key. Every run must end as if nothing
// happened: all rounds, no dropout, iterates bit-identical to the
// lockstep reference, and every forged message counted once as refused,
// by subject (agent frames, results and controls by the agents, statuses
// by the observer).
func TestAttacksOnALiveRun(t *testing.T) {
	const n, rounds = 6, 20
	g := ring(t, n)
	want := averagingAgents(g, 2)
	lockstep(t, want, rounds)
	for _, kind := range []TransportKind{TransportNATS, TransportNATSTCP} {
		for _, at := range attacks {
			t.Run(string(kind)+"/"+at.name, func(t *testing.T) {
				tr := attackTransport(t, kind, "attacked")
				agents := averagingAgents(g, 2)
				nc := outsider(t, tr)
				var wantAgents, wantStatuses int
				inject := func() {
					wantAgents, wantStatuses = at.inject(t, nc, tr.opts.RunID)
					if err := nc.Flush(); err != nil {
						t.Fatal(err)
					}
				}
				res, obs := runAttacked(t, tr, agents, Options{Rounds: rounds}, inject)
				sameBits(t, agents, want)
				var refused int64
				bySubject := map[string]int64{}
				for i, s := range res.terminal {
					if s.Kind != StatusFinal || s.Report.Round != rounds {
						t.Errorf("agent %d: %s after round %d (%s), want final after %d", i, s.Kind, s.Report.Round, s.Err, rounds)
					}
					if tr := s.Traffic; tr.Dropouts != 0 || tr.ReduceMissing != 0 || tr.Late != 0 || tr.Unexpected != 0 {
						t.Errorf("agent %d: losses: %+v", i, tr)
					}
					refused += s.Traffic.Refused
					for k, v := range s.Traffic.RefusedBySubject {
						bySubject[k] += v
					}
				}
				if refused != int64(wantAgents) {
					t.Errorf("agents refused %d messages (%v), want %d", refused, bySubject, wantAgents)
				}
				var sum int64
				for _, v := range bySubject {
					sum += v
				}
				if sum != refused {
					t.Errorf("refused by subject %v sums to %d, want %d", bySubject, sum, refused)
				}
				if got := obs.(StatsReporter).Stats().Refused; countSum(got) != int64(wantStatuses) {
					t.Errorf("observer refused %v, want %d statuses", got, wantStatuses)
				}
			})
		}
	}
}

func countSum(m map[string]int64) int64 {
	var s int64
	for _, v := range m {
		s += v
	}
	return s
}

// runAttacked runs agents over tr like runObserved, calling inject once
// every agent is ready and before the start, and started, if given, in a
// goroutine of its own once the start is sent. It returns what the
// observer saw and the observer, still open. It waits for the run
// however long it takes: a run that never ends is caught by go test's
// -timeout, not by a clock a loaded machine can miss.
func runAttacked(t *testing.T, tr Transport, agents []consensus.Agent, opts Options, inject func(), started ...func(Observer)) (observed, Observer) {
	t.Helper()
	obs, err := tr.Observer()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { obs.Close() })
	n := len(agents)
	done := make(chan error, 1)
	go func() { done <- RunAll(context.Background(), agents, tr, opts) }()
	ready := 0
	for ready < n {
		s, err := DecodeStatus(<-obs.Statuses())
		if err != nil {
			t.Fatal(err)
		}
		if s.Kind == StatusReady {
			ready++
		}
	}
	inject()
	if err := obs.Control(EncodeControl(Control{Kind: ControlStart})); err != nil {
		t.Fatal(err)
	}
	for _, f := range started {
		go f(obs)
	}
	res := observed{terminal: make([]Status, n)}
	for left := n; left > 0; {
		f, ok := <-obs.Statuses()
		if !ok {
			t.Fatal("status channel closed before every agent ended")
		}
		s, err := DecodeStatus(f)
		if err != nil {
			t.Fatal(err)
		}
		if s.Kind == StatusFinal || s.Kind == StatusFailed {
			res.terminal[s.ID] = s
			left--
		}
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	return res, obs
}

// TestRunIDClaim: a second coordinator of the same run id on one server
// is refused, with a clear error, while the first run goes on unchanged;
// once the first observer closes, the id is free again. The second
// run's agents, under their own key, cannot disturb the first run.
func TestRunIDClaim(t *testing.T) {
	const n, rounds = 6, 15
	g := ring(t, n)
	want := averagingAgents(g, 2)
	lockstep(t, want, rounds)
	tr := attackTransport(t, TransportNATSTCP, "claimed")
	second, err := NewNATSTransport(NATSOptions{RunID: tr.opts.RunID, URL: tr.URL(), Key: []byte("another run's key, 32 bytes long")})
	if err != nil {
		t.Fatal(err)
	}
	defer second.Close()
	agents := averagingAgents(g, 2)
	var intruder Endpoint
	res, obs := runAttacked(t, tr, agents, Options{Rounds: rounds}, func() {
		_, err := second.Observer()
		if !errors.Is(err, ErrRunClaimed) {
			t.Fatalf("second observer of run %s: %v, want ErrRunClaimed", tr.opts.RunID, err)
		}
		t.Logf("refused: %v", err)
		// The second run's agent 1 says it leaves, and sends data.
		if intruder, err = second.Endpoint(1); err != nil {
			t.Fatal(err)
		}
		if err := intruder.Publish(mustFrame(t, FrameLeave, 1, 0, 0, nil)); err != nil {
			t.Fatal(err)
		}
		if err := intruder.Publish(mustFrameTo(t, FrameData, 1, []int{0, 2}, 0, 0, []float64{5, 5})); err != nil {
			t.Fatal(err)
		}
		if err := intruder.Close(); err != nil {
			t.Fatal(err)
		}
	})
	sameBits(t, agents, want)
	var refused int64
	for i, s := range res.terminal {
		if s.Kind != StatusFinal || s.Report.Round != rounds || s.Traffic.Dropouts != 0 {
			t.Errorf("agent %d: %s after round %d with %d dropouts", i, s.Kind, s.Report.Round, s.Traffic.Dropouts)
		}
		refused += s.Traffic.Refused
	}
	if refused != 2 {
		t.Errorf("%d frames of the second run refused, want 2", refused)
	}
	// The second transport's own agent connection saw the first run's
	// frames and refused them: it does not have their key.
	obs.Close()
	again, err := second.Observer()
	if err != nil {
		t.Fatalf("claim after the first observer closed: %v", err)
	}
	again.Close()
}

// TestInProcessCarriesNoMAC: messages on an embedded server that listens
// on no port and admits only the run's roles are the bare frames (no
// client outside the process could send one); on a server with a port,
// or one that admits another user, every message carries its MAC.
func TestInProcessCarriesNoMAC(t *testing.T) {
	for _, tc := range []struct {
		opts NATSOptions
		tag  int
	}{
		{NATSOptions{RunID: "inproc", InProcess: true}, 0},
		{NATSOptions{RunID: "inproc", InProcess: true, extraUsers: []NATSUser{intruder}}, MACLen},
		{NATSOptions{RunID: "tcp"}, MACLen},
	} {
		tr, err := NewNATSTransport(tc.opts)
		if err != nil {
			t.Fatal(err)
		}
		if got := tr.mac.tagLen(); got != tc.tag {
			t.Errorf("InProcess %v, %d extra users: MAC of %d bytes, want %d", tc.opts.InProcess, len(tc.opts.extraUsers), got, tc.tag)
		}
		var sent []byte
		_ = tr.mac.seal(macAgent, []byte{1, 2, 3}, func(m []byte) error { sent = append(sent, m...); return nil })
		if len(sent) != 3+tc.tag {
			t.Errorf("a 3-byte frame was sent as %d bytes, want %d", len(sent), 3+tc.tag)
		}
		tr.Close()
	}
}
