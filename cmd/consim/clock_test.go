package main

import (
	"os"
	"testing"
	"time"
)

// Tests of this package hold on a loaded machine: they wait for what
// they expect however long it takes (a run that never ends is caught by
// go test's -timeout, which names the goroutines), bound their work by
// counts of rounds and frames, and check an upper bound on a wall-clock
// duration only with wallClockBound.

// wallClockBound checks that took, the wall time of what, is at most
// bound: under make test-long (CONSIM_LONG=1), which runs on a quiet
// machine; under make test, where other work may load the machine and
// any such bound can be missed, it only logs the two.
func wallClockBound(t testing.TB, what string, took, bound time.Duration) {
	t.Helper()
	if os.Getenv("CONSIM_LONG") != "1" {
		t.Logf("%s took %v (bound %v, checked by make test-long)", what, took, bound)
		return
	}
	if took > bound {
		t.Errorf("%s took %v, more than %v", what, took, bound)
	}
}
