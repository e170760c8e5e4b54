package sim

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestChildProcs(t *testing.T) {
	for _, tc := range []struct {
		n, cpus int
		set     string
		want    int
	}{
		{16, 2, "", 1},  // 16 processes share 2 CPUs: one each
		{64, 2, "", 1},  // never below 1
		{2, 8, "", 4},   // 2 processes on 8 CPUs: 4 each
		{4, 8, "", 2},   // 4 on 8: 2 each
		{1, 8, "", 0},   // one process: all CPUs, left alone
		{16, 2, "3", 0}, // the user's GOMAXPROCS wins
		{2, 2, "", 1},   // 2 on 2: 1 each
		{2, 3, "", 1},
	} {
		if got := childProcs(tc.n, tc.cpus, tc.set); got != tc.want {
			t.Errorf("childProcs(%d agents, %d CPUs, GOMAXPROCS %q) = %d, want %d", tc.n, tc.cpus, tc.set, got, tc.want)
		}
	}
}

// TestChildGODEBUG: agent processes get schedTraceOff added to the
// launcher's GODEBUG, unless it sets schedtrace itself.
func TestChildGODEBUG(t *testing.T) {
	for _, tc := range []struct {
		set  string
		want string
		ok   bool
	}{
		{"", schedTraceOff, true},
		{"  ", schedTraceOff, true},
		{"gctrace=1", "gctrace=1," + schedTraceOff, true},
		{"schedtrace=1000", "", false},
		{"gctrace=1, schedtrace=1000,scheddetail=1", "", false},
		{"schedtraceX=1", "schedtraceX=1," + schedTraceOff, true},
	} {
		got, ok := childGODEBUG(tc.set)
		if got != tc.want || ok != tc.ok {
			t.Errorf("childGODEBUG(%q) = %q, %v; want %q, %v", tc.set, got, ok, tc.want, tc.ok)
		}
	}
}

// TestTailSkipsSchedTraces: a child's scheduler trace lines are neither
// kept nor forwarded when the supervisor skips them; other lines are.
func TestTailSkipsSchedTraces(t *testing.T) {
	var out strings.Builder
	w := newTailWriter(4, "a0| ", NewSyncWriter(&out))
	w.skip = isSchedTrace
	fmt.Fprint(w, "SCHED 2147483647ms: gomaxprocs=1 idleprocs=1 threads=5 spinningthreads=0\nerror: boom\nSCHED is a word\n")
	if got, want := w.Lines(), []string{"error: boom", "SCHED is a word"}; !slices.Equal(got, want) {
		t.Errorf("kept %q, want %q", got, want)
	}
	if got, want := out.String(), "a0| error: boom\na0| SCHED is a word\n"; got != want {
		t.Errorf("forwarded %q, want %q", got, want)
	}
}
