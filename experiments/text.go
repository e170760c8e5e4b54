package experiments

import (
	"math"
	"strconv"
	"strings"
)

// Verdict renders a claim's verdict: "holds" or "does not hold".
func Verdict(ok bool) string {
	if ok {
		return "holds"
	}
	return "does not hold"
}

// YesNo renders a boolean table cell.
func YesNo(v bool) string {
	if v {
		return "yes"
	}
	return "no"
}

// MDCell escapes the pipes of s for a markdown table cell.
func MDCell(s string) string { return strings.ReplaceAll(s, "|", "\\|") }

// G formats v with 6 significant digits, the precision of the CSV files.
func G(v float64) string { return strconv.FormatFloat(v, 'g', 6, 64) }

// Finite reports whether v is neither NaN nor infinite.
func Finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
