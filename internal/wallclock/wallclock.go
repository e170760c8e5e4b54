// Package wallclock is how consim's tests treat wall-clock time, so that
// make test holds on a loaded machine: a test waits for what it expects
// however long it takes (a run that never ends is caught by go test's
// -timeout, which names the goroutines), bounds its work by counts of
// rounds and frames, and checks an upper bound on a wall-clock duration
// only through Bound.
//
// wallclock imports only the standard library; only tests import it.
package wallclock

import (
	"os"
	"testing"
	"time"
)

// Bound checks that took, the wall time of what, is at most bound: under
// make test-long (CONSIM_LONG=1), which runs on a quiet machine. Under
// make test, where other work may load the machine and any such bound can
// be missed, it only logs the two.
func Bound(t testing.TB, what string, took, bound time.Duration) {
	t.Helper()
	if os.Getenv("CONSIM_LONG") != "1" {
		t.Logf("%s took %v (bound %v, checked by make test-long)", what, took, bound)
		return
	}
	if took > bound {
		t.Errorf("%s took %v, more than %v", what, took, bound)
	}
}
