package node

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/nats-io/nats.go"
)

// TestEmbeddedServerRefusesOutsiders: a transport that starts its own
// server on TCP accepts no client without one of its passwords. (An
// in-process server is reachable from its own process only; it checks
// passwords the same way, but a refused in-process client of nats.go
// takes 10 s to give up.)
func TestEmbeddedServerRefusesOutsiders(t *testing.T) {
	tr := newTestTransport(t, TransportNATSTCP, 2).(*NATSTransport)
	for _, opts := range [][]nats.Option{nil, {nats.UserInfo("agents", "guess")}} {
		if nc, err := nats.Connect(tr.URL(), opts...); err == nil {
			nc.Close()
			t.Fatal("an outside client connected")
		}
	}
}

// TestPerAgentUsers runs each agent of a ring on a connection of its own,
// as agent processes do, on a server started with RunUsers: agent i
// connects as agent-i, the coordinator as coordinator, all under one run
// key, in both subject layouts (NATSOptions.PerDestination). Agent 3,
// turned intruder with its own user and the run key, publishes a data
// frame on agent 1's subject and a stop on the control subject: the
// server refuses both (permissions). It then publishes on its own
// subject a frame for agents 0 and 2 that names agent 1 as its sender:
// the connections of agents 0 and 2 drop it (BusMalformed). The run ends
// unchanged, and no client without a password connects.
func TestPerAgentUsers(t *testing.T) {
	for _, perDest := range []bool{false, true} {
		t.Run(fmt.Sprintf("per-destination=%v", perDest), func(t *testing.T) { testPerAgentUsers(t, perDest) })
	}
}

func testPerAgentUsers(t *testing.T, perDest bool) {
	const n, rounds, bad = 5, 30, 3
	const run = "per-agent"
	g := ring(t, n)
	want := nullAgents(t, g, 2)
	lockstep(t, want, rounds)
	users, err := RunUsers(run, n, 0)
	if err != nil {
		t.Fatal(err)
	}
	srv := startTestServer(t, NATSServerOptions{Port: -1, Users: users})
	if nc, err := nats.Connect(srv.ClientURL()); err == nil {
		nc.Close()
		t.Fatal("an anonymous client connected")
	}
	key, err := NewRunKey()
	if err != nil {
		t.Fatal(err)
	}
	dial := func(u NATSUser) *NATSTransport {
		tr, err := NewNATSTransport(NATSOptions{RunID: run, URL: srv.ClientURL(), Key: key, User: u.Name, Password: u.Password, PerDestination: perDest})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { tr.Close() })
		return tr
	}
	obs, err := dial(users[n]).Observer() // users[n] is the coordinator
	if err != nil {
		t.Fatal(err)
	}
	defer obs.Close()
	ctx := context.Background()
	agents := nullAgents(t, g, 2)
	errs := make(chan error, n)
	eps := make([]Endpoint, n)
	for i := range n {
		if eps[i], err = dial(users[i]).Endpoint(i); err != nil {
			t.Fatal(err)
		}
	}
	for i, a := range agents {
		go func() { errs <- Run(ctx, a, eps[i], Options{N: n, Rounds: rounds}) }()
	}
	// The intruder: agent 3's user and the run key.
	var denied []error
	nc, err := nats.Connect(srv.ClientURL(), nats.UserInfo(users[bad].Name, users[bad].Password),
		nats.ErrorHandler(func(_ *nats.Conn, _ *nats.Subscription, err error) { denied = append(denied, err) }))
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	m := newMacer(key, run)
	forged := mustFrameTo(t, FrameData, 1, []int{0, 2}, 0, 0, []float64{1e9, 1e9})
	type publish struct {
		subject string
		class   byte
		frame   []byte
	}
	pubs := []publish{
		{SubjectAgent(run, 1), macAgent, forged},
		{SubjectControl(run), macControl, EncodeControl(Control{Kind: ControlStop})},
		{SubjectAgent(run, bad), macAgent, forged},
	}
	if perDest {
		pubs = []publish{
			{SubjectAgentTo(run, 1, 0), macAgent, forged},
			{SubjectControl(run), macControl, EncodeControl(Control{Kind: ControlStop})},
			{SubjectAgentTo(run, bad, 0), macAgent, forged},
			{SubjectAgentTo(run, bad, 2), macAgent, forged},
		}
	}
	for _, p := range pubs {
		if err := m.seal(p.class, p.frame, func(msg []byte) error { return nc.Publish(p.subject, msg) }); err != nil {
			t.Fatal(err)
		}
	}
	if err := nc.Flush(); err != nil {
		t.Fatal(err)
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
	for _, ep := range eps {
		ep.Close()
	}
	sameBits(t, agents, want)
	var bus int64
	for i, s := range res.terminal {
		if s.Kind != StatusFinal || s.Report.Round != rounds || s.Traffic.Dropouts != 0 {
			t.Errorf("agent %d: %s after round %d with %d dropouts", i, s.Kind, s.Report.Round, s.Traffic.Dropouts)
		}
		bus += s.Traffic.BusMalformed
	}
	// Every connection that receives the frame drops and counts it: all
	// 5 in the shared layout, the 2 it names (0 and 2) per destination.
	if want := map[bool]int64{false: n, true: 2}[perDest]; bus != want {
		t.Errorf("%d agents' connections counted the frame with a foreign sender, want %d", bus, want)
	}
	nc.Close()
	if len(denied) != 2 {
		t.Errorf("server denied %d publishes (%v), want 2", len(denied), denied)
	}
	for _, err := range denied {
		if !errors.Is(err, nats.ErrPermissionViolation) && !strings.Contains(err.Error(), "Permissions Violation") {
			t.Errorf("denial %v, want a permissions violation", err)
		}
	}
}
