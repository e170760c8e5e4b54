package report

import (
	"bytes"
	"image"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"gonum.org/v1/plot/plotter"

	"github.com/consim/consim/observe"
)

// TestTickLabel: tick labels read as numbers, never as "250000.00".
func TestTickLabel(t *testing.T) {
	for _, tt := range []struct {
		v    float64
		want string
	}{
		{0, "0"},
		{1, "1"},
		{0.3, "0.3"},
		{0.1 + 0.2, "0.3"},
		{0.001, "0.001"},
		{2.5, "2.5"},
		{5000, "5000"},
		{9999, "9999"},
		{10000, "10k"},
		{250000, "250k"},
		{1.5e6, "1.5M"},
		{2.5e9, "2.5e9"},
		{1e-5, "1e-5"},
		{2.5e-4, "2.5e-4"},
		{-40000, "-40k"},
		{1e20, "1e20"},
	} {
		if got := tickLabel(tt.v); got != tt.want {
			t.Errorf("tickLabel(%v) = %q, want %q", tt.v, got, tt.want)
		}
	}
}

// TestNumberTicks: every labelled tick of a linear axis up to 250000 and
// of a logarithmic one down to 1e-5 reads as its value.
func TestNumberTicks(t *testing.T) {
	p := newPlot("t", "x", "y", false, true)
	for _, tk := range p.X.Tick.Marker.Ticks(0, 250000) {
		if tk.Label == "" {
			continue
		}
		if tk.Label != tickLabel(tk.Value) || bytes.Contains([]byte(tk.Label), []byte(".00")) {
			t.Errorf("linear tick %v labelled %q", tk.Value, tk.Label)
		}
	}
	// 5000 beside 20k reads as 5k.
	var labels []string
	for _, tk := range p.X.Tick.Marker.Ticks(100, 40000) {
		if tk.Label != "" {
			labels = append(labels, tk.Label)
		}
	}
	if want := []string{"5k", "20k", "35k"}; !slices.Equal(labels, want) {
		t.Errorf("linear ticks on [100, 40000]: %v, want %v", labels, want)
	}
	labels = nil
	for _, tk := range p.Y.Tick.Marker.Ticks(1e-5, 1) {
		if tk.Label != "" {
			labels = append(labels, tk.Label)
		}
	}
	if want := []string{"1e-5", "1e-4", "0.001", "0.01", "0.1", "1"}; !slices.Equal(labels, want) {
		t.Errorf("log ticks on [1e-5, 1]: %v, want %v", labels, want)
	}
	// Within one decade, no power of ten in range: the minor ticks in
	// range carry the labels; none lies outside the range.
	labels = nil
	for _, tk := range p.Y.Tick.Marker.Ticks(2e-4, 6.5e-4) {
		if tk.Value < 2e-4 || tk.Value > 6.5e-4 {
			t.Errorf("tick %v outside [2e-4, 6.5e-4]", tk.Value)
		}
		labels = append(labels, tk.Label)
	}
	if want := []string{"2e-4", "3e-4", "4e-4", "5e-4", "6e-4"}; !slices.Equal(labels, want) {
		t.Errorf("log ticks on [2e-4, 6.5e-4]: %v, want %v", labels, want)
	}
	// 30 decades: a label every ceil(30/8) = 4 decades from 1e-30.
	labels = nil
	for _, tk := range p.Y.Tick.Marker.Ticks(1e-30, 1) {
		labels = append(labels, tk.Label)
	}
	if want := []string{"1e-30", "1e-26", "1e-22", "1e-18", "1e-14", "1e-10", "1e-6", "0.01"}; !slices.Equal(labels, want) {
		t.Errorf("log ticks on [1e-30, 1]: %v, want %v", labels, want)
	}
}

// TestLegendOutsideData: saveAs draws the legend in a strip below the
// plot, so the plot above it is pixel for pixel the same plot drawn with
// no legend at all: no entry covers a curve.
func TestLegendOutsideData(t *testing.T) {
	dir := t.TempDir()
	xys := plotter.XYs{}
	for k := range 50 {
		// A curve through the whole data area, the top right corner
		// included (where a legend would sit by default).
		xys = append(xys, plotter.XY{X: float64(k), Y: math.Pow(10, float64(k)/10)})
	}
	ss := []series{{name: "a long legend entry that would cover the data", xys: xys}, {name: "second", xys: xys, dashed: true}}
	with, err := linePlot("title", "round t", "value [f]", true, ss)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := save(with, dir, "with"); err != nil {
		t.Fatal(err)
	}
	without, err := linePlot("title", "round t", "value [f]", true, ss)
	if err != nil {
		t.Fatal(err)
	}
	without.Legend = newPlot("", "", "", false, false).Legend // same plot, no entries
	if _, err := save(without, dir, "without"); err != nil {
		t.Fatal(err)
	}
	a, b := readPNG(t, filepath.Join(dir, "with.png")), readPNG(t, filepath.Join(dir, "without.png"))
	if a.Bounds().Dx() != b.Bounds().Dx() || a.Bounds().Dy() <= b.Bounds().Dy() {
		t.Fatalf("with legend %v, without %v: want the same width and a taller figure", a.Bounds(), b.Bounds())
	}
	// The strip adds whole pixels at 96 dpi only if its height is a
	// whole number of pixels; compare the plot rows above the strip.
	differ := 0
	for y := 0; y < b.Bounds().Dy(); y++ {
		for x := 0; x < b.Bounds().Dx(); x++ {
			if a.At(x, y) != b.At(x, y) {
				differ++
			}
		}
	}
	if differ != 0 {
		t.Errorf("%d pixels of the plot differ with the legend drawn: it overlaps the plot", differ)
	}
	// The strip is not blank: the legend is there.
	blank := true
	for y := b.Bounds().Dy(); y < a.Bounds().Dy() && blank; y++ {
		for x := 0; x < a.Bounds().Dx(); x++ {
			if r, g, bb, _ := a.At(x, y).RGBA(); r != 0xffff || g != 0xffff || bb != 0xffff {
				blank = false
				break
			}
		}
	}
	if blank {
		t.Error("the legend strip below the plot is blank")
	}
}

func readPNG(t *testing.T, path string) image.Image {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// TestStdBar: the sweep plot's bars are mean ± one sample standard
// deviation, as aggregate.md's tables; a lower end at or below 0 on a log
// axis is cut at the axis bottom and reported.
func TestStdBar(t *testing.T) {
	// Seeds 1, 2, 6: mean 3, sample std sqrt(((-2)^2 + (-1)^2 + 3^2)/2) = sqrt(7).
	s := observe.Summarize([]float64{1, 2, 6})
	std := math.Sqrt(7)
	low, high, cut := stdBar(s, false, 0)
	if math.Abs(low-std) > 1e-12 || math.Abs(high-std) > 1e-12 || cut {
		t.Errorf("linear: bar -%v +%v cut %v, want ±%v uncut", low, high, cut, std)
	}
	// sqrt(7) < 3: drawable on a log axis.
	if low, high, cut = stdBar(s, true, 0.1); math.Abs(low-std) > 1e-12 || math.Abs(high-std) > 1e-12 || cut {
		t.Errorf("log: bar -%v +%v cut %v, want ±%v uncut", low, high, cut, std)
	}
	// Seeds 0.1, 0.1, 4: mean 1.4, std 2.25 > mean: cut at the floor.
	s = observe.Summarize([]float64{0.1, 0.1, 4})
	low, high, cut = stdBar(s, true, 0.05)
	if !cut || math.Abs(low-(1.4-0.05)) > 1e-12 || math.Abs(high-s.Std) > 1e-12 {
		t.Errorf("log, std > mean: bar -%v +%v cut %v, want -%v +%v cut", low, high, cut, 1.4-0.05, s.Std)
	}
	// A floor below the mean's precision (runs at the float floor beside
	// runs that are not): the bar still ends above 0, which a log axis
	// needs.
	s = observe.Summarize([]float64{1.3e-13, 1.2e-12})
	if low, _, cut = stdBar(s, true, 3e-33); !cut || !(s.Mean-low > 0) {
		t.Errorf("log, floor 3e-33 under mean %v: bar bottom %v, cut %v; want > 0", s.Mean, s.Mean-low, cut)
	}
	// One seed: std 0, a point without a bar.
	if low, high, _ = stdBar(observe.Summarize([]float64{2}), true, 1); low != 0 || high != 0 {
		t.Errorf("one seed: bar -%v +%v, want none", low, high)
	}
}
