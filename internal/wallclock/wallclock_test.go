package wallclock

import (
	"fmt"
	"testing"
	"time"
)

// recorder is a testing.TB that records what Bound reports.
type recorder struct {
	testing.TB
	errors, logs []string
}

func (r *recorder) Helper()                      {}
func (r *recorder) Errorf(f string, a ...any)    { r.errors = append(r.errors, fmt.Sprintf(f, a...)) }
func (r *recorder) Logf(f string, a ...any)      { r.logs = append(r.logs, fmt.Sprintf(f, a...)) }
func (r *recorder) reported() (errors, logs int) { return len(r.errors), len(r.logs) }
func bound(took time.Duration) (errors, logs int) {
	r := &recorder{}
	Bound(r, "x", took, time.Second)
	return r.reported()
}

// TestBound: a bound missed is an error under CONSIM_LONG=1 and a log
// line otherwise; a bound met is silent under CONSIM_LONG=1.
func TestBound(t *testing.T) {
	t.Setenv("CONSIM_LONG", "1")
	if e, l := bound(2 * time.Second); e != 1 || l != 0 {
		t.Errorf("missed under CONSIM_LONG: %d errors, %d logs; want 1, 0", e, l)
	}
	if e, l := bound(time.Millisecond); e != 0 || l != 0 {
		t.Errorf("met under CONSIM_LONG: %d errors, %d logs; want none", e, l)
	}
	t.Setenv("CONSIM_LONG", "")
	if e, l := bound(2 * time.Second); e != 0 || l != 1 {
		t.Errorf("missed under make test: %d errors, %d logs; want 0, 1", e, l)
	}
}
