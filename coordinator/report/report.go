package report

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Tolerance says what "rounds to tolerance" counts up to: Abs when > 0,
// else Rel times a run's consensus error at round 0, or at its peak when
// it is 0 at round 0 (the zero start; see RunStats.RoundsToTol).
type Tolerance struct {
	Abs, Rel float64
}

// String describes the tolerance for the reports.
func (t Tolerance) String() string {
	if t.Abs > 0 {
		return fmt.Sprintf("consensus error <= %g", t.Abs)
	}
	return fmt.Sprintf("consensus error <= %g x its value at round 0 (at its peak when it is 0 at round 0)", t.Rel)
}

// WriteSweep writes the tables and plots of a finished sweep into dir:
// sweep.csv, aggregate.csv and aggregate.md (each must not exist yet) and
// plots/. It returns the paths written.
func WriteSweep(dir string, t *SweepTable) ([]string, error) {
	var paths []string
	path := filepath.Join(dir, SweepCSV)
	if err := t.WriteCSV(path); err != nil {
		return paths, err
	}
	paths = append(paths, path)
	aggs := Aggregate(t)
	path = filepath.Join(dir, AggregateCSV)
	if err := WriteAggregateCSV(path, t.Keys, aggs); err != nil {
		return paths, err
	}
	paths = append(paths, path)
	path = filepath.Join(dir, AggregateMD)
	if err := writeNew(path, SweepMarkdown(t.Keys, aggs)); err != nil {
		return paths, err
	}
	paths = append(paths, path)
	out, err := plotInto(dir, func(plots string) ([]string, error) { return PlotSweep(t.Keys, aggs, plots) })
	return append(paths, out...), err
}

// Report draws the plots of the run bundle or sweep directory dir into
// dir/plots/ and writes dir/report.md and dir/report.html (see RunHTML
// and SweepHTML), replacing the files an earlier Report wrote there; it
// writes nothing else. tol applies to a run
// bundle; a sweep's rows carry their own. The bundle of a run that did
// not finish (see Detect) is reported from its complete metrics lines,
// with report.md saying so at the top (see WriteRunReport). It returns
// the paths written.
func Report(dir string, tol Tolerance) ([]string, error) {
	kind, err := Detect(dir)
	if err != nil {
		return nil, err
	}
	switch kind {
	case KindRun, KindIncompleteRun:
		r, err := ReadRun(dir)
		if err != nil {
			return nil, err
		}
		return WriteRunReport(r, tol)
	case KindSweep:
		return reportSweep(dir)
	}
	return nil, NotResultsDir(dir)
}

// WriteRunReport draws the plots of r into r.Dir/plots/ and writes
// r.Dir/report.md and r.Dir/report.html, as Report does for a run bundle. The report.md of an
// incomplete run starts with a line saying the run did not finish (see
// Run.IncompleteNote) and gives "unknown (run did not finish)" for what
// only summary.json holds. It returns the paths written.
func WriteRunReport(r *Run, tol Tolerance) ([]string, error) {
	dir := r.Dir
	st := StatsOf(r, tol.Abs, tol.Rel)
	paths, err := plotInto(dir, func(plots string) ([]string, error) { return PlotRun(r, st, plots) })
	if err != nil {
		return paths, err
	}
	var b strings.Builder
	b.WriteString(RunMarkdown(r, st))
	fmt.Fprintf(&b, "\nTolerance: %s.\n\n", tol)
	if hasMsgsAxis(r) {
		b.WriteString("Plots against rounds, then against messages: the messages all agents sent through the round (the msgs column).\n\n")
	} else {
		b.WriteString("Plots against rounds; the metrics rows carry no per-round message counts, so there are no plots against messages.\n\n")
	}
	writePlotLinks(&b, dir, paths)
	path := filepath.Join(dir, ReportMD)
	if err := writeFile(path, b.String()); err != nil {
		return paths, err
	}
	paths = append(paths, path)
	path, err = writeRunHTML(r, tol)
	if err != nil {
		return paths, err
	}
	return append(paths, path), nil
}

func reportSweep(dir string) ([]string, error) {
	t, err := ReadSweepCSV(filepath.Join(dir, SweepCSV))
	if err != nil {
		return nil, err
	}
	aggs := Aggregate(t)
	paths, err := plotInto(dir, func(plots string) ([]string, error) { return PlotSweep(t.Keys, aggs, plots) })
	if err != nil {
		return paths, err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# Sweep %s\n\n%d runs over %d grid points of %s.\n\n",
		filepath.Base(dir), len(t.Rows), len(aggs), strings.Join(t.Keys, " x "))
	b.WriteString(SweepMarkdown(t.Keys, aggs))
	b.WriteString("\n")
	writePlotLinks(&b, dir, paths)
	path := filepath.Join(dir, ReportMD)
	if err := writeFile(path, b.String()); err != nil {
		return paths, err
	}
	paths = append(paths, path)
	path, err = writeSweepHTML(dir, t)
	if err != nil {
		return paths, err
	}
	return append(paths, path), nil
}

// plotInto makes dir/plots and draws into it.
func plotInto(dir string, draw func(plots string) ([]string, error)) ([]string, error) {
	plots := filepath.Join(dir, PlotsDir)
	if err := os.MkdirAll(plots, 0o755); err != nil {
		return nil, fmt.Errorf("create plots directory: %w", err)
	}
	return draw(plots)
}

// writePlotLinks embeds the PNG plots in Markdown, relative to dir.
func writePlotLinks(b *strings.Builder, dir string, paths []string) {
	for _, p := range paths {
		if filepath.Ext(p) != ".png" {
			continue
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			rel = p
		}
		name := strings.TrimSuffix(filepath.Base(p), ".png")
		fmt.Fprintf(b, "![%s](%s)\n\n", name, filepath.ToSlash(rel))
	}
}

// writeNew creates path with text; it must not exist.
func writeNew(path, text string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return fmt.Errorf("create %s: %w", path, err)
	}
	if _, err := f.WriteString(text); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("close %s: %w", path, err)
	}
	return nil
}

// writeFile creates or replaces path with text.
func writeFile(path, text string) error {
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
