package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// crashBundle runs the plain tiny scenario (60 rounds, measured every
// 10) into dir/r/<id>, then makes its bundle look like one of a run
// killed while writing round 60: no summary.json, and the last line of
// metrics.jsonl and of metrics.csv cut in half.
func crashBundle(t *testing.T, dir, id string) string {
	t.Helper()
	scen := writeScenario(t, dir, id+".yaml", strings.Split(tinySweep, "sweep:")[0])
	code, stdout, stderr := consim(t, "run", scen, "--transport", "chan", "--out", filepath.Join(dir, "r"), "--run-id", id, "--log-level", "warn")
	if code != exitOK {
		t.Fatalf("run: exit %d\n%s\n%s", code, stdout, stderr)
	}
	bundle := filepath.Join(dir, "r", id)
	if err := os.Remove(filepath.Join(bundle, "summary.json")); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"metrics.jsonl", "metrics.csv"} {
		path := filepath.Join(bundle, name)
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasSuffix(data, []byte("\n")) {
			t.Fatalf("%s does not end in a newline", name)
		}
		start := bytes.LastIndexByte(data[:len(data)-1], '\n') + 1
		last := data[start:]
		if !bytes.HasPrefix(last, []byte(`{"round":60,`)) && !bytes.HasPrefix(last, []byte("60,")) {
			t.Fatalf("last line of %s is not round 60: %q", name, last)
		}
		if err := os.WriteFile(path, data[:start+len(last)/2], 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return bundle
}

// TestReportCrashedRun reports the bundle of a real run cut short: exit
// 0, the paths on stdout, a warning on stderr, and a report.md that says
// at the top that the run did not finish; with metrics.jsonl gone too,
// from metrics.csv.
func TestReportCrashedRun(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name, id string
		noJSONL  bool
		file     string
	}{
		{"metrics.jsonl", "crashed", false, "metrics.jsonl"},
		{"metrics.csv only", "crashed-csv", true, "metrics.csv"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			bundle := crashBundle(t, dir, tc.id)
			if tc.noJSONL {
				if err := os.Remove(filepath.Join(bundle, "metrics.jsonl")); err != nil {
					t.Fatal(err)
				}
			}
			code, stdout, stderr := consim(t, "report", bundle)
			if code != exitOK {
				t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
			}
			note := "the run did not finish (no summary.json: status unknown, last round recorded 50, 1 incomplete trailing line of " + tc.file + " skipped)"
			if want := "warning: " + bundle + " is an incomplete run bundle: " + note; !strings.Contains(stderr, want) {
				t.Errorf("stderr lacks %q:\n%s", want, stderr)
			}
			for _, f := range []string{"report.md", "report.html", "plots/consensus.png", "plots/optgap_feasibility.svg", "plots/consensus_vs_msgs.png"} {
				path := filepath.Join(bundle, f)
				if !strings.Contains(stdout, "wrote "+path+"\n") {
					t.Errorf("stdout lacks wrote %s:\n%s", path, stdout)
				}
				if fi, err := os.Stat(path); err != nil || fi.Size() == 0 {
					t.Errorf("%s: %v", f, err)
				}
			}
			md, err := os.ReadFile(filepath.Join(bundle, "report.md"))
			if err != nil {
				t.Fatal(err)
			}
			head := strings.SplitN(string(md), "\n", 4)
			if len(head) < 4 || head[0] != "# Run "+tc.id+" (did not finish)" || !strings.Contains(head[2], note) {
				t.Errorf("report.md does not start by saying the run did not finish:\n%s", md)
			}
			for _, s := range []string{"| status | unknown (run did not finish) |", "| stop cause | unknown (run did not finish) |", "| rounds | unknown (run did not finish); last round recorded 50 |"} {
				if !strings.Contains(string(md), s) {
					t.Errorf("report.md lacks %q:\n%s", s, md)
				}
			}
		})
	}
}

// TestReportNeitherNamesFiles: a directory that is no results directory
// is a usage error naming the files looked for.
func TestReportNeitherNamesFiles(t *testing.T) {
	dir := t.TempDir()
	writeScenario(t, dir, "scenario.yaml", "name: x\n")
	code, stdout, stderr := consim(t, "report", dir)
	if code != exitUsage || stdout != "" {
		t.Fatalf("exit %d, stdout %q; want exit %d and nothing written", code, stdout, exitUsage)
	}
	for _, s := range []string{dir + " is neither a run bundle", "summary.json", "scenario.yaml with metrics.jsonl or metrics.csv", "sweep directory (sweep.csv)"} {
		if !strings.Contains(stderr, s) {
			t.Errorf("stderr lacks %q:\n%s", s, stderr)
		}
	}
}
