package report

import (
	"strings"
	"testing"

	"gonum.org/v1/plot/plotter"
)

// TestLogTicksLabelBottomBand: on a log axis from 1.5e-4 to 0.2, where a
// falling consensus error ends between 1e-4 and 1e-3, the band the data
// end in carries a label (2e-4), as every decade above it does.
func TestLogTicksLabelBottomBand(t *testing.T) {
	p := newPlot("t", "x", "y", false, true)
	var labels []string
	for _, tk := range p.Y.Tick.Marker.Ticks(1.5e-4, 0.2) {
		if tk.Label != "" {
			labels = append(labels, tk.Label)
		}
	}
	if want := "2e-4 0.001 0.01 0.1"; strings.Join(labels, " ") != want {
		t.Errorf("labels on [1.5e-4, 0.2]: %v, want %s", labels, want)
	}
	// A band thinner than from 5: no label beside the next power.
	labels = nil
	for _, tk := range p.Y.Tick.Marker.Ticks(7e-4, 0.2) {
		if tk.Label != "" {
			labels = append(labels, tk.Label)
		}
	}
	if want := "0.001 0.01 0.1"; strings.Join(labels, " ") != want {
		t.Errorf("labels on [7e-4, 0.2]: %v, want %s", labels, want)
	}
}

// TestFitTitle: a title wider than the figure (a long run id) is broken
// into lines that each fit, at its " — " first; a short one is left as
// it is.
func TestFitTitle(t *testing.T) {
	long := "consensus error (1/N) sum_i ||x_i - xbar||^2 from round 0 — quickstart-20261127T075132-674e-with-a-long-suffix (did not finish)"
	p := newPlot(long, "x", "y", false, true)
	room := plotWidth - 2*titleMargin
	if p.Title.TextStyle.Width(long) <= room {
		t.Fatalf("the test title fits already (%v <= %v)", p.Title.TextStyle.Width(long), room)
	}
	fitTitle(p, plotWidth)
	lines := strings.Split(p.Title.Text, "\n")
	if len(lines) < 2 || lines[0] != "consensus error (1/N) sum_i ||x_i - xbar||^2 from round 0" {
		t.Errorf("title lines %q", lines)
	}
	for _, l := range lines {
		if w := p.Title.TextStyle.Width(l); w > room {
			t.Errorf("title line %q is %v wide, room %v", l, w, room)
		}
	}
	if strings.Join(strings.Fields(strings.ReplaceAll(p.Title.Text, "\n", " ")), " ") != strings.Join(strings.Fields(strings.ReplaceAll(long, " — ", " ")), " ") {
		t.Errorf("title lost words: %q", p.Title.Text)
	}
	short := newPlot("optimality gap — r1", "x", "y", false, true)
	fitTitle(short, plotWidth)
	if short.Title.Text != "optimality gap — r1" {
		t.Errorf("short title changed to %q", short.Title.Text)
	}
}

// TestZeroMarkedOnLogAxis: values of exactly 0 on a log axis are marked
// at its bottom under a legend entry saying so, and the x axis reaches
// their rounds; positive values are drawn as before.
func TestZeroMarkedOnLogAxis(t *testing.T) {
	gap := plotter.XYs{{X: 0, Y: 3}, {X: 500, Y: 1}, {X: 1000, Y: 0}, {X: 1500, Y: 0}}
	ss := []series{{name: "optimality gap", xys: gap}}
	p, err := linePlot("gap", "round t", "gap [f]", false, ss) // the lines alone
	if err != nil {
		t.Fatal(err)
	}
	p.Y.Scale = newPlot("", "", "", false, true).Y.Scale
	p.Y.Min = 1 // as a log axis of the positive values has it
	entries := floorMarks(p, ss)
	if len(entries) != 1 || entries[0] != "optimality gap: exactly 0 (off the log axis, marked at its bottom)" {
		t.Errorf("legend entries %q", entries)
	}
	if p.X.Max < 1500 || !(p.Y.Min > 0 && p.Y.Min < 1) {
		t.Errorf("axes x up to %v, y from %v: want the zeros' rounds, and their marks below the least value 1", p.X.Max, p.Y.Min)
	}
	neg := floorMarks(p, []series{{name: "gap", xys: plotter.XYs{{X: 0, Y: -9}, {X: 1, Y: 0}}}})
	if len(neg) != 1 || !strings.Contains(neg[0], "gap: 0 or below") {
		t.Errorf("negative and zero values: %q", neg)
	}
	// Through linePlot: the legend has the marks' entry (it is taller
	// than the series' alone), and the figure saves.
	logged, err := linePlot("gap", "round t", "gap [f]", true, ss)
	if err != nil {
		t.Fatal(err)
	}
	plain, err := linePlot("gap", "round t", "gap [f]", true, []series{{name: "optimality gap", xys: gap[:2]}})
	if err != nil {
		t.Fatal(err)
	}
	if logged.X.Max < 1500 {
		t.Errorf("log axis: x up to %v, before the zeros at round 1500", logged.X.Max)
	}
	if legendBelow(&logged.Legend) <= legendBelow(&plain.Legend) {
		t.Errorf("legend with the zeros marked is no taller than without")
	}
	if _, err := save(logged, t.TempDir(), "gap"); err != nil {
		t.Fatal(err)
	}
}
