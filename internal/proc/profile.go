package proc

import (
	"os"
	"runtime"
	"runtime/pprof"
)

// StartCPUProfile starts a CPU profile of the process (pprof format) into
// a new file at path; stop ends it and closes the file.
func StartCPUProfile(path string) (stop func(), err error) {
	out, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(out); err != nil {
		out.Close()
		return nil, err
	}
	return func() { pprof.StopCPUProfile(); out.Close() }, nil
}

// WriteHeapProfile writes the heap profile of the live objects (after a
// garbage collection) to path.
func WriteHeapProfile(path string) error {
	out, err := os.Create(path)
	if err != nil {
		return err
	}
	runtime.GC()
	if err := pprof.WriteHeapProfile(out); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
