package node

import (
	"errors"
	"net"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
)

// freeTCPPort returns a port on 127.0.0.1 that was free a moment ago.
func freeTCPPort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// recv returns the next frame of c, however long it takes.
func recv(t *testing.T, c <-chan []byte, what string) []byte {
	t.Helper()
	f, ok := <-c
	if !ok {
		t.Fatalf("%s: channel closed", what)
	}
	return f
}

// TestNATSReconnectsAfterServerRestart: a server restarted on the same
// port is rejoined by endpoint and observer, and frames flow again.
func TestNATSReconnectsAfterServerRestart(t *testing.T) {
	opts := NATSServerOptions{Port: freeTCPPort(t)}
	srv, err := StartNATSServer(opts)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := NewNATSTransport(NATSOptions{RunID: "restart", URL: srv.ClientURL(), ReconnectWait: 50 * time.Millisecond, ReconnectTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	ep, err := tr.Endpoint(0)
	if err != nil {
		t.Fatal(err)
	}
	obs, err := tr.Observer()
	if err != nil {
		t.Fatal(err)
	}

	srv.Shutdown()
	srv.WaitForShutdown()
	if srv, err = StartNATSServer(opts); err != nil {
		t.Fatal(err)
	}
	defer srv.Shutdown()
	// Wait until both connections are back, and the server has the
	// subscriptions they resent (a flush is a round trip), however long
	// it takes.
	for _, nc := range []*nats.Conn{ep.(*natsEndpoint).bus.nc, obs.(*natsObserver).nc} {
		for nc.Stats().Reconnects == 0 || !nc.IsConnected() || nc.FlushTimeout(time.Second) != nil {
			time.Sleep(10 * time.Millisecond)
		}
	}
	if err := obs.Control([]byte("ctl")); err != nil {
		t.Fatalf("control after the restart: %v", err)
	}
	if f := recv(t, ep.Control(), "control"); string(f) != "ctl" {
		t.Errorf("control frame %q", f)
	}
	if err := ep.Status([]byte("st")); err != nil {
		t.Fatal(err)
	}
	if f := recv(t, obs.Statuses(), "status"); string(f) != "st" {
		t.Errorf("status frame %q", f)
	}
	if err := tr.Lost(); err != nil {
		t.Errorf("Lost() = %v after a reconnect", err)
	}
}

// TestNATSGivesUpOnAbsentServer: without a server for ReconnectTimeout,
// the endpoint's and observer's channels close and Lost says why.
func TestNATSGivesUpOnAbsentServer(t *testing.T) {
	srv, err := StartNATSServer(NATSServerOptions{Port: freeTCPPort(t)})
	if err != nil {
		t.Fatal(err)
	}
	const bound = 300 * time.Millisecond
	tr, err := NewNATSTransport(NATSOptions{RunID: "gone", URL: srv.ClientURL(), ReconnectWait: 50 * time.Millisecond, ReconnectTimeout: bound})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	ep, err := tr.Endpoint(3)
	if err != nil {
		t.Fatal(err)
	}
	obs, err := tr.Observer()
	if err != nil {
		t.Fatal(err)
	}
	begin := time.Now()
	srv.Shutdown()
	srv.WaitForShutdown()

	for name, c := range map[string]<-chan []byte{"inbox": ep.Inbox(), "control": ep.Control(), "statuses": obs.Statuses()} {
		if _, ok := <-c; ok { // blocked for good if the loss never closed it
			t.Errorf("%s: unexpected frame", name)
		}
	}
	if took := time.Since(begin); took < bound {
		t.Errorf("gave up after %v, before the bound %v", took, bound)
	}
	lost := tr.Lost()
	if !errors.Is(lost, ErrNATSConnectionLost) {
		t.Fatalf("Lost() = %v, want ErrNATSConnectionLost", lost)
	}
	if err := ep.Publish(mustFrameTo(t, FrameData, 0, []int{1}, 0, 0, nil)); err == nil {
		t.Error("send on a lost connection succeeded")
	}
}
