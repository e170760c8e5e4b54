// Package proc reads what the operating system reports of this process:
// its CPU time (CPUTime), which times methods on a machine shared with
// other jobs; the CPU time of one thread (ThreadCPUTime), which times one
// of several runs in the same process; and its peak resident set size
// (PeakRSS). It writes its CPU and heap profiles (StartCPUProfile,
// WriteHeapProfile).
//
// proc imports the standard library only.
package proc
