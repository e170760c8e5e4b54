// Package units formats counts and sizes in bytes for people to read:
// estimates, summaries and errors. It owns no other concept and imports
// nothing of consim.
package units

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Count formats a count or size factor compactly: integers below 10^7 in
// full, others with at most three significant digits ("1e9", "2.5").
func Count(x float64) string {
	if x == math.Trunc(x) && math.Abs(x) < 1e7 {
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	if math.Abs(x) < 1e7 {
		return strconv.FormatFloat(x, 'g', 3, 64)
	}
	s := strconv.FormatFloat(x, 'g', 3, 64)
	return strings.Replace(strings.Replace(s, "e+0", "e", 1), "e+", "e", 1)
}

// Bytes formats a size in bytes with a binary unit and three
// significant digits, e.g. "41.2 GiB" ("1.2e7 EiB" past the units).
func Bytes(b float64) string {
	if math.IsNaN(b) || math.IsInf(b, 0) {
		return fmt.Sprintf("%v bytes", b)
	}
	units := []string{"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}
	u := 0
	for math.Abs(b) >= 1024 && u < len(units)-1 {
		b /= 1024
		u++
	}
	if u == 0 {
		return strconv.FormatFloat(b, 'f', 0, 64) + " bytes"
	}
	switch {
	case math.Abs(b) >= 1024:
		return Count(b) + " " + units[u]
	case math.Abs(b) >= 100:
		return strconv.FormatFloat(b, 'f', 0, 64) + " " + units[u]
	case math.Abs(b) >= 10:
		return strconv.FormatFloat(b, 'f', 1, 64) + " " + units[u]
	}
	return strconv.FormatFloat(b, 'f', 2, 64) + " " + units[u]
}

// Thousands formats v rounded to an integer with commas between groups
// of three digits: 61,536.
func Thousands(v float64) string {
	s := fmt.Sprintf("%.0f", v)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if neg {
		s = "-" + s
	}
	return s
}
