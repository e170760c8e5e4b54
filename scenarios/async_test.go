package scenarios

import (
	"strings"
	"testing"
)

// TestAsyncErrors: each mistake in an asynchronous scenario is an error
// at its key that says what is allowed.
func TestAsyncErrors(t *testing.T) {
	const base = "name: e\nagents: 4\ngraph: {topology: ring}\nproblem: {kind: least_squares, dim: 2}\nalgorithm: {name: pairwise_gossip}\n"
	for _, tc := range []struct{ extra, want string }{
		{"async: {mode: simulated}", "async.horizon: missing (required: a simulated time > 0)"},
		{"rounds: 10\nasync: {mode: simulated, horizon: 5}", "rounds: not used with async.mode simulated"},
		{"async: {mode: sim, horizon: 5}", `async.mode: "sim" is not one of off, simulated, realtime`},
		{"rounds: 3\nasync: {horizon: 5}", "async.horizon: only used with async.mode simulated or realtime"},
		{"async: {mode: simulated, horizon: 5, clock: {dist: uniform, mean: 2}}", `async.clock: distribution "uniform" takes min and max, not a mean`},
		{"async: {mode: simulated, horizon: 5, clock: {dist: fixed, mean: 0}}", "async.clock: the mean interval must be > 0"},
		{"async: {mode: simulated, horizon: 5, stragglers: {agents: [99]}}", "async.stragglers.agents: agent 99 is outside [0, 4)"},
		{"async: {mode: simulated, horizon: 5, stragglers: {agents: [1, 1]}}", "async.stragglers.agents: straggler 1 listed twice"},
		{"async: {mode: simulated, horizon: 5, stragglers: {agents: [1], slowdown: 0.5}}", "async.stragglers.slowdown: must be a finite number >= 1"},
		{"async: {mode: simulated, horizon: 5, latency: {dist: expo}}", `async.latency: distribution "expo": must be one of`},
		{"async: {mode: simulated, horizon: -1}", "async.horizon: must be a finite number > 0"},
		{"async: {mode: realtime, horizon: 5}\nruntime: {transport: stepped}", "runtime.transport: async.mode realtime runs a goroutine per agent"},
		{"async: {mode: simulated, horizon: 5}\nfaults: {loss: {rate: 0.1}}", "faults: runtime faults are not injected in async mode"},
		{"async: {mode: simulated, horizon: 5}\nedges: {same_draw: true}", "edges.same_draw: not used with async.mode simulated"},
	} {
		s, err := Parse([]byte(base+tc.extra+"\n"), "e.yaml")
		if err == nil {
			err = s.Validate()
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s:\n got %v\nwant %s", tc.extra, err, tc.want)
		}
	}
	s, err := Parse([]byte(base+"rounds: 5\n"), "e.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Validate(); err == nil || !strings.Contains(err.Error(), "algorithm.name: algorithm pairwise_gossip is asynchronous: set async.mode") {
		t.Errorf("asynchronous algorithm without async.mode: %v", err)
	}
}
