package proc

import (
	"runtime"
	"testing"
)

// TestThreadCPUTime: work on a locked thread advances its CPU time, by no
// more than the process's.
func TestThreadCPUTime(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	t0, p0 := ThreadCPUTime(), CPUTime()
	x := 1.0
	for i := range 50_000_000 {
		x = x*1.0000001 + float64(i&1)
	}
	t1, p1 := ThreadCPUTime(), CPUTime()
	if x == 0 {
		t.Log(x)
	}
	if !(t1 > t0) {
		t.Fatalf("thread CPU time did not advance: %v -> %v", t0, t1)
	}
	if runtime.GOOS == "linux" && t1-t0 > p1-p0+p1/1000 {
		t.Errorf("thread CPU time advanced %v, more than the process's %v", t1-t0, p1-p0)
	}
}
