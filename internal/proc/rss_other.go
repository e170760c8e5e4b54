//go:build !unix

package proc

// PeakRSS is 0 where getrusage is not available.
func PeakRSS() int64 { return 0 }
