package graph

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
)

// fmaKernels are the packages whose arithmetic is on a run's bit path:
// the common randomness and edge processes, the algorithms' agents and
// references, the problems' oracles and the measures. Each must compile
// without a fused multiply-add on every target (see the package doc,
// "Floating point"). Paths are relative to the module root.
var fmaKernels = []string{
	"./graph",
	"./consensus/alm",
	"./consensus/dadmm",
	"./consensus/admm",
	"./objective",
	"./problems/regression",
	"./problems/portfolio",
	"./observe",
	"./engine",
	"./consensus/lockstep",
	"./consensus/null",
	"./consensus/pushsum",
	"./consensus/pushpull",
	"./async",
	"./consensus/exchange",
	"./consensus/pairwise",
	"./consensus/adpsgd",
	"./consensus/asyncadmm",
}

// offBitPath are files inside fmaKernels whose arithmetic is not on a
// run's bit path: the ALM's rate model (consensus/alm/rate*.go) builds the
// mean iteration matrix once to predict a contraction factor, which is
// compared with observations to a tolerance, never bit for bit.
var offBitPath = []string{
	"consensus/alm/rate.go",
	"consensus/alm/rate_problem.go",
	"consensus/alm/rate_run.go",
}

// fmaTargets are the targets that fuse: amd64 from GOAMD64=v3 on, and
// arm64 always. fused matches their fused multiply-add mnemonics in the
// compiler's assembly listing.
var fmaTargets = []struct {
	env   []string
	fused *regexp.Regexp
}{
	{[]string{"GOARCH=amd64", "GOAMD64=v3"}, regexp.MustCompile(`\bVF(N)?M(ADD|SUB)[0-9]*S[DS]\b`)},
	{[]string{"GOARCH=arm64"}, regexp.MustCompile(`\bF(N)?M(ADD|SUB)[DS]\b`)},
}

// position is the "(file:line)" of an instruction in a -S listing.
var position = regexp.MustCompile(`\((/[^():]+\.go):(\d+)\)`)

// TestNoFusedMultiplyAdd compiles the kernel packages for every target
// that fuses and fails on any fused multiply-add in them, naming the
// source lines: each is a place where Go may fuse x*y + z and the code
// must round the product explicitly, x*y -> float64(x*y). It needs the go
// tool and compiles 2 x len(fmaKernels) packages (about 7 s with a warm
// build cache, minutes on a loaded machine with a cold one), so it runs
// only with CONSIM_LONG=1 and never under -short.
func TestNoFusedMultiplyAdd(t *testing.T) {
	if testing.Short() || os.Getenv("CONSIM_LONG") != "1" {
		t.Skip("long: set CONSIM_LONG=1 (compiles the kernel packages for amd64/v3 and arm64)")
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go tool not on PATH")
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Skipf("module root not found above graph: %v", err)
	}
	for _, tg := range fmaTargets {
		args := append([]string{"build", "-gcflags=-S"}, fmaKernels...)
		cmd := exec.Command(gobin, args...)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		cmd.Env = append(cmd.Env, tg.env...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s go build: %v\n%s", strings.Join(tg.env, " "), err, tail(out))
		}
		sites := map[string]bool{}
		sc := bufio.NewScanner(bytes.NewReader(out))
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			if !tg.fused.MatchString(line) {
				continue
			}
			if m := position.FindStringSubmatch(line); m != nil && strings.HasPrefix(m[1], root+string(filepath.Separator)) {
				rel, _ := filepath.Rel(root, m[1])
				if slices.Contains(offBitPath, filepath.ToSlash(rel)) {
					continue
				}
				sites[rel+":"+m[2]] = true
			}
		}
		if err := sc.Err(); err != nil {
			t.Fatal(err)
		}
		if len(sites) == 0 {
			continue
		}
		var list []string
		for s := range sites {
			list = append(list, s)
		}
		sort.Strings(list)
		var b strings.Builder
		for _, s := range list {
			fmt.Fprintf(&b, "\t%s: %s\n", s, sourceLine(root, s))
		}
		t.Errorf("%s: fused multiply-add at %d source lines; round the products explicitly:\n%s", strings.Join(tg.env, " "), len(list), b.String())
	}
}

// sourceLine returns the trimmed text of "file:line" under root.
func sourceLine(root, site string) string {
	i := strings.LastIndexByte(site, ':')
	var n int
	fmt.Sscan(site[i+1:], &n)
	data, err := os.ReadFile(filepath.Join(root, site[:i]))
	if err != nil {
		return "?"
	}
	lines := strings.Split(string(data), "\n")
	if n < 1 || n > len(lines) {
		return "?"
	}
	return strings.TrimSpace(lines[n-1])
}

// tail returns the last lines of a build's output.
func tail(out []byte) string {
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) > 20 {
		lines = lines[len(lines)-20:]
	}
	return strings.Join(lines, "\n")
}
