package layers

import (
	"bufio"
	"bytes"
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/consim/consim/"

// layer is the rank of each package path prefix (see the package doc); a
// path takes the rank of its longest listed prefix.
var layer = map[string]int{
	"internal/wallclock": 0, "internal/cdp": 0, "internal/proc": 0, "internal/docscheck": 0,
	"internal/units": 0, "internal/buildinfo": 0,
	"graph":     1,
	"objective": 2, "dataset": 2, "consensus/compress": 2,
	"consensus":          3,
	"consensus/registry": 4, "engine": 4,
	"observe":  5,
	"problems": 6, "consensus/gossip": 6, "consensus/edgeadmm": 6, "consensus/exchange": 6, "consensus/lockstep": 6,
	"consensus/*": 7, "consensus/registry/registrytest": 7,
	"catalog": 8,
	"node":    9, "stepped": 9, "async": 9, "engine/conformance": 9,
	"async/realtime": 10, "scenarios": 10,
	"coordinator": 11, "coordinator/report": 11,
	"internal/bench": 12, "internal/browsercheck": 12,
	"sim":         13,
	"experiments": 14,
	"cmd":         15, "drills": 15,
	"internal/layers": 15,
}

// rankOf returns the rank of the module package p (without the module
// prefix); "consensus/*" stands for every package directly under
// consensus that has no entry of its own.
func rankOf(p string) (int, bool) {
	best, bestLen, ok := 0, -1, false
	for pre, r := range layer {
		match := p == pre || strings.HasPrefix(p, pre+"/")
		if pre == "consensus/*" {
			match = strings.HasPrefix(p, "consensus/")
		}
		if match && len(pre) > bestLen {
			best, bestLen, ok = r, len(pre), true
		}
	}
	return best, ok
}

// TestImportsPointDown lists the module's packages with go list and fails
// on a package the table does not place and on an import of a higher
// layer, naming both packages and their layers.
func TestImportsPointDown(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command on PATH to list the packages")
	}
	cmd := exec.Command("go", "list", "-f", `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`, module+"...")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	n, edges := 0, 0
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		p := strings.TrimPrefix(f[0], module)
		rp, ok := rankOf(p)
		if !ok {
			t.Errorf("package %s has no layer: place it in the table of internal/layers", p)
			continue
		}
		n++
		for _, imp := range f[1:] {
			q, inModule := strings.CutPrefix(imp, module)
			if !inModule {
				continue
			}
			edges++
			if rq, ok := rankOf(q); ok && rq > rp {
				t.Errorf("%s (layer %d) imports %s (layer %d), a higher layer", p, rp, q, rq)
			}
		}
	}
	if n < 50 || edges < 100 {
		t.Fatalf("go list gave %d packages and %d imports within the module; want the whole module", n, edges)
	}
	t.Logf("%d packages, %d imports within the module", n, edges)
}

// TestRankOf: the longest prefix decides, and consensus/* stands for the
// algorithm packages only.
func TestRankOf(t *testing.T) {
	for p, want := range map[string]int{
		"consensus": 3, "consensus/alm": 7, "consensus/registry": 4, "consensus/registry/registrytest": 7,
		"problems/slicing": 6, "coordinator/live": 11, "experiments/zosplm/cmd": 14,
	} {
		if got, ok := rankOf(p); !ok || got != want {
			t.Errorf("rankOf(%s) = %d, %v; want %d", p, got, ok, want)
		}
	}
	if _, ok := rankOf("nowhere"); ok {
		t.Error("a package outside the table has a layer")
	}
}
