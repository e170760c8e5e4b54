package node

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// TestStatusStreamResume runs 4 agents over a JetStream server and
// observes them with a status-stream observer that dies (its connection
// closes, no stop) after some progress. A second observer resuming the
// run gets every status from the first on: the dead observer's
// statuses as a prefix, in the same order and bit for bit, then the rest
// of the run to every agent's final status, with every progress report.
// Once released, the stream is gone and a resume is refused.
func TestStatusStreamResume(t *testing.T) {
	srv := startTestServer(t, NATSServerOptions{Port: server.RANDOM_PORT, JetStream: true, StoreDir: t.TempDir()})
	key, err := NewRunKey()
	if err != nil {
		t.Fatal(err)
	}
	const n, rounds, every = 4, 400, 10
	opts := NATSOptions{RunID: "resumed", URL: srv.ClientURL(), Key: key}
	observer := func(o NATSOptions) (*NATSTransport, Observer, error) {
		tr, err := NewNATSTransport(o)
		if err != nil {
			return nil, nil, err
		}
		obs, err := tr.Observer()
		if err != nil {
			tr.Close()
			return nil, nil, err
		}
		return tr, obs, nil
	}

	o1 := opts
	o1.StatusStream = true
	tr1, obs1, err := observer(o1)
	if err != nil {
		t.Fatal(err)
	}
	agentsTr, err := NewNATSTransport(opts)
	if err != nil {
		t.Fatal(err)
	}
	defer agentsTr.Close()
	ctx := context.Background()
	done := make(chan error, 1)
	go func() {
		// The run may end before the second observer connects: the
		// stream keeps its statuses all the same.
		done <- RunAll(ctx, nullAgents(t, ring(t, n), 3), agentsTr, Options{Rounds: rounds, ReportEvery: every, PhaseDeadline: 10 * time.Second})
	}()
	var seen [][]byte
	ready := 0
	for ready < n {
		f := <-obs1.Statuses()
		seen = append(seen, f)
		if s, err := DecodeStatus(f); err == nil && s.Kind == StatusReady {
			ready++
		}
	}
	if err := obs1.Control(EncodeControl(Control{Kind: ControlStart})); err != nil {
		t.Fatal(err)
	}
	for {
		f := <-obs1.Statuses()
		seen = append(seen, f)
		if s, err := DecodeStatus(f); err == nil && s.Kind == StatusProgress && s.Report.Round >= 50 {
			break
		}
	}
	// The first observer dies: no stop, no release.
	obs1.Close()
	tr1.Close()

	o2 := opts
	o2.StatusStream, o2.Resume = true, true
	tr2, obs2, err := observer(o2)
	if err != nil {
		t.Fatal(err)
	}
	defer tr2.Close()
	var replay [][]byte
	finals := map[int]bool{}
	reports := map[[2]int]bool{}
	for len(finals) < n {
		f, ok := <-obs2.Statuses()
		if !ok {
			t.Fatalf("resumed observer closed: %d of %d finals after %d statuses", len(finals), n, len(replay))
		}
		replay = append(replay, f)
		s, err := DecodeStatus(f)
		if err != nil {
			t.Fatal(err)
		}
		switch s.Kind {
		case StatusProgress:
			reports[[2]int{s.ID, s.Report.Round}] = true
		case StatusFinal:
			finals[s.ID] = true
		}
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if len(replay) < len(seen) {
		t.Fatalf("resumed observer got %d statuses, the first one %d", len(replay), len(seen))
	}
	for k := range seen {
		if !bytes.Equal(replay[k], seen[k]) {
			t.Fatalf("status %d differs after the resume:\n%s\n%s", k, replay[k], seen[k])
		}
	}
	for i := range n {
		for r := every; r <= rounds; r += every {
			if !reports[[2]int{i, r}] && r != rounds {
				t.Errorf("agent %d: no progress report of round %d after the resume", i, r)
			}
		}
	}

	if err := obs2.(*natsObserver).ReleaseStream(); err != nil {
		t.Fatal(err)
	}
	obs2.Close()
	if _, _, err := observer(o2); !errors.Is(err, ErrNoStatusStream) {
		t.Errorf("resume after release: %v, want %v", err, ErrNoStatusStream)
	}
}

// TestStatusStreamNeedsJetStream: an observer told to use a status
// stream on a server without JetStream fails with ErrNoJetStream.
func TestStatusStreamNeedsJetStream(t *testing.T) {
	srv := startTestServer(t, NATSServerOptions{Port: server.RANDOM_PORT})
	key, _ := NewRunKey()
	tr, err := NewNATSTransport(NATSOptions{RunID: "nojs", URL: srv.ClientURL(), Key: key, StatusStream: true})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	if _, err := tr.Observer(); !errors.Is(err, ErrNoJetStream) {
		t.Fatalf("observer: %v, want %v", err, ErrNoJetStream)
	}
}
