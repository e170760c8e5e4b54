// Package proc reads what the operating system reports of this process:
// its CPU time (CPUTime), which times methods on a machine shared with
// other jobs, and its peak resident set size (PeakRSS); and it writes its
// CPU and heap profiles (StartCPUProfile, WriteHeapProfile).
//
// proc imports the standard library only.
package proc
