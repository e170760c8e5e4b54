//go:build !unix

package main

// peakRSS is 0 where getrusage is not available.
func peakRSS() int64 { return 0 }
