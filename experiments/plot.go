package experiments

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
)

// SavePlot writes p as base.png and base.svg, 7 x 4.5 inches; neither
// file may exist.
func SavePlot(p *plot.Plot, base string) error {
	for _, format := range []string{"png", "svg"} {
		w, err := p.WriterTo(7*vg.Inch, 4.5*vg.Inch, format)
		if err != nil {
			return fmt.Errorf("rendering %s.%s: %w", base, format, err)
		}
		if err := WriteFile(base+"."+format, w); err != nil {
			return fmt.Errorf("saving plot: %w", err)
		}
	}
	return nil
}

// PadTop extends a linear y axis by 40% upwards, room for the legend.
func PadTop(p *plot.Plot) {
	p.Y.Max += 0.4 * (p.Y.Max - p.Y.Min)
}

// PadTopLog extends a log y axis upwards by half its span in decades
// (at least a factor 3), room for the legend.
func PadTopLog(p *plot.Plot) {
	if p.Y.Min > 0 && p.Y.Max > 0 {
		p.Y.Max *= math.Max(3, math.Pow(p.Y.Max/p.Y.Min, 0.5))
		p.Y.Min /= 1.5
	}
}

// PlainTicks is gonum's default ticker with labels written as plain
// numbers (12000, 0.05), never in exponent form.
type PlainTicks struct{}

// Ticks implements plot.Ticker.
func (PlainTicks) Ticks(lo, hi float64) []plot.Tick {
	ticks := plot.DefaultTicks{}.Ticks(lo, hi)
	for i := range ticks {
		if ticks[i].Label != "" {
			ticks[i].Label = PlainNumber(ticks[i].Value)
		}
	}
	return ticks
}

// LogTicks marks every power of ten on a log axis and labels about six of
// them as plain numbers (0.001, 1, 10000000); beyond 1e-6 and 1e9 the
// labels are 1e-k and 1ek. An axis spanning less than three decades also gets
// labelled ticks at 2 and 5 times each power of ten.
type LogTicks struct{}

// Ticks implements plot.Ticker.
func (LogTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(lo > 0) || !(hi >= lo) {
		return nil
	}
	a, b := int(math.Floor(math.Log10(lo))), int(math.Ceil(math.Log10(hi)))
	every := max(1, (b-a+5)/6)
	label := func(e int, v float64) string {
		if e < -6 || e > 9 {
			return fmt.Sprintf("%.0fe%d", v/math.Pow(10, float64(e)), e)
		}
		return PlainNumber(v)
	}
	var ticks []plot.Tick
	for e := a; e <= b; e++ {
		p := math.Pow(10, float64(e))
		t := plot.Tick{Value: p}
		if e%every == 0 {
			t.Label = label(e, p)
		}
		ticks = append(ticks, t)
		if b-a > 3 || e == b {
			continue
		}
		for m := 2; m <= 9; m++ {
			t := plot.Tick{Value: float64(m) * p}
			if m == 2 || m == 5 {
				t.Label = label(e, t.Value)
			}
			ticks = append(ticks, t)
		}
	}
	return ticks
}

// DecadeTicks marks every power of ten on a log axis and labels about six
// of them, as 1e-k.
type DecadeTicks struct{}

// Ticks implements plot.Ticker.
func (DecadeTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(lo > 0) || !(hi >= lo) {
		return nil
	}
	a, b := int(math.Floor(math.Log10(lo))), int(math.Ceil(math.Log10(hi)))
	every := max(1, (b-a+5)/6)
	var ticks []plot.Tick
	for e := a; e <= b; e++ {
		t := plot.Tick{Value: math.Pow(10, float64(e))}
		if e%every == 0 {
			t.Label = fmt.Sprintf("1e%d", e)
		}
		ticks = append(ticks, t)
	}
	return ticks
}

// IntTicks labels integers only, at a step of 1, 2 or 5 times a power of
// ten that leaves at most 12 labels.
type IntTicks struct{}

// Ticks implements plot.Ticker.
func (IntTicks) Ticks(lo, hi float64) []plot.Tick {
	step := 1
	for k := 0; (hi-lo)/float64(step) > 12; k++ {
		step = []int{2, 5, 10}[k%3] * int(math.Pow(10, float64(k/3)))
	}
	var ticks []plot.Tick
	for v := int(math.Ceil(lo)); float64(v) <= hi; v++ {
		if v%step == 0 {
			ticks = append(ticks, plot.Tick{Value: float64(v), Label: strconv.Itoa(v)})
		}
	}
	return ticks
}

// PlainNumber formats v without an exponent and without trailing zeros.
func PlainNumber(v float64) string {
	if v == 0 {
		return "0"
	}
	s := strconv.FormatFloat(v, 'f', -1, 64)
	// Rounding noise of a tick value (0.30000000000000004) is cut at
	// 10 significant digits.
	if len(strings.TrimLeft(strings.ReplaceAll(strings.TrimPrefix(s, "-"), ".", ""), "0")) > 10 {
		s = strconv.FormatFloat(v, 'f', max(0, 9-int(math.Floor(math.Log10(math.Abs(v))))), 64)
		if strings.Contains(s, ".") {
			s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
		}
	}
	return s
}
