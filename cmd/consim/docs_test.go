package main

import (
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/consim/consim/internal/docscheck"
)

// repoRoot is the repository, seen from this package's directory.
const repoRoot = "../.."

// docPages parses every Markdown page of the repository (README.md,
// CHANGELOG.md, docs/ and the pages beside the code), leaving out test
// fixtures, results and build output.
func docPages(t *testing.T) []*docscheck.Page {
	t.Helper()
	var pages []*docscheck.Page
	err := filepath.WalkDir(repoRoot, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p != repoRoot && (strings.HasPrefix(name, ".") || name == "testdata" || name == "results" || name == "bin" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".md") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(repoRoot, p)
		if err != nil {
			return err
		}
		pages = append(pages, docscheck.Parse(filepath.ToSlash(rel), b))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return pages
}

func reportProblems(t *testing.T, what string, probs []docscheck.Problem) {
	t.Helper()
	for _, p := range probs {
		t.Errorf("%s: %s", what, p)
	}
}

// parseConsim parses a consim command line with the real command tree,
// without running it.
func parseConsim(args []string) error {
	a := &app{stdout: io.Discard, stderr: io.Discard}
	return docscheck.ParseCobra(a.rootCmd(), args)
}

// TestDocs: the documentation cannot rot. Every relative link and anchor
// of every page resolves; every consim command line of a fenced sh,
// console or bash block (and every inline `consim ...` without
// placeholders) parses with this command's tree (subcommands, flags, flag
// values, argument counts; scenario files exist); every ```go block
// compiles against the module. internal/docscheck's own tests show each
// check failing on a broken page.
func TestDocs(t *testing.T) {
	pages := docPages(t)
	for _, p := range pages {
		reportProblems(t, "page", p.Problems)
	}
	reportProblems(t, "link", docscheck.CheckLinks(repoRoot, pages))

	cmds, probs := docscheck.Commands(pages, "consim")
	reportProblems(t, "command", probs)
	inline := inlineCommands(pages)
	if len(cmds) < 30 || len(inline) < 30 {
		t.Errorf("found only %d consim command lines in blocks and %d inline; is the extraction broken?", len(cmds), len(inline))
	}
	reportProblems(t, "command", docscheck.CheckCommands(repoRoot, cmds, parseConsim))
	reportProblems(t, "inline command", docscheck.CheckCommands(repoRoot, inline, func(args []string) error {
		return docscheck.ParseCobraRef((&app{stdout: io.Discard, stderr: io.Discard}).rootCmd(), args)
	}))

	imports, err := docscheck.Packages("", repoRoot, "std", "github.com/consim/consim/...")
	if err != nil {
		t.Fatal(err)
	}
	probs, err = docscheck.CompileGo(repoRoot, pages, docscheck.GoOptions{Imports: imports})
	if err != nil {
		t.Fatal(err)
	}
	reportProblems(t, "go", probs)

	var goBlocks, links int
	for _, p := range pages {
		links += len(p.Links)
		for _, b := range p.Blocks {
			if b.Lang == "go" && b.Skip == "" {
				goBlocks++
			}
		}
	}
	t.Logf("%d pages: %d Go blocks compiled, %d consim command lines parsed (%d in shell blocks, %d inline), %d links resolved",
		len(pages), goBlocks, len(cmds)+len(inline), len(cmds), len(inline), links)
}

// placeholderSpanRE matches inline commands that show a synopsis rather
// than a command line: optional parts, alternatives, ellipses, <names>.
var (
	placeholderSpanRE = regexp.MustCompile(`[\[\]|<>…]|\.\.\.`)
	upperRE           = regexp.MustCompile(`^[A-Z][A-Z0-9_]*$`)
)

// inlineCommands are the inline code spans that name a consim command,
// without synopsis syntax or a placeholder for the command itself
// (`consim CMD --help`).
func inlineCommands(pages []*docscheck.Page) []docscheck.Command {
	var cmds []docscheck.Command
	for _, p := range pages {
		for _, s := range p.Spans {
			rest, ok := strings.CutPrefix(s.Text, "consim ")
			if !ok || placeholderSpanRE.MatchString(rest) || strings.ContainsAny(rest, "'\"$`") ||
				upperRE.MatchString(strings.Fields(rest)[0]) {
				continue
			}
			cmds = append(cmds, docscheck.Command{Page: p.Path, Line: s.Line, Args: strings.Fields(rest), Text: s.Text})
		}
	}
	return cmds
}

// TestDocsIndex: the README stays a short page, and docs/README.md links
// every page of docs/.
func TestDocsIndex(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join(repoRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(readme), "\n"); n > 300 {
		t.Errorf("README.md has %d lines; keep it to 300 and move the rest into docs/", n)
	}
	pages := docPages(t)
	var index *docscheck.Page
	for _, p := range pages {
		if p.Path == "docs/README.md" {
			index = p
		}
	}
	if index == nil {
		t.Fatal("no docs/README.md")
	}
	linked := make(map[string]bool)
	for _, l := range index.Links {
		file, _, _ := strings.Cut(l.Target, "#")
		linked[filepath.ToSlash(filepath.Clean(filepath.Join("docs", file)))] = true
	}
	var missing []string
	for _, p := range pages {
		if strings.HasPrefix(p.Path, "docs/") && p.Path != "docs/README.md" && !linked[p.Path] {
			missing = append(missing, p.Path)
		}
	}
	slices.Sort(missing)
	for _, m := range missing {
		t.Errorf("docs/README.md does not link %s", m)
	}
}

// TestBenchDocStamp: the benchmark table of docs/benchmarks.md needs an
// idle machine and minutes to regenerate (make docs BENCH=1), so the test
// checks its stamp instead: the command it names parses, asks for the
// Markdown table, and prints today the header and columns the page has.
func TestBenchDocStamp(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(repoRoot, "docs", "benchmarks.md"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?m)^<!-- bench: generated by `consim ([^`]*)` -->\n((?:\\|.*\n)+)<!-- end of bench -->").FindSubmatch(b)
	if m == nil {
		t.Fatal("docs/benchmarks.md has no generated bench table (<!-- bench: generated by `consim ...` --> ... <!-- end of bench -->)")
	}
	root := (&app{stdout: io.Discard, stderr: io.Discard}).rootCmd()
	args := strings.Fields(string(m[1]))
	if err := docscheck.ParseCobra(root, args); err != nil {
		t.Fatalf("the stamp's command consim %s: %v", m[1], err)
	}
	cmd, _, _ := root.Find(args)
	if md, _ := cmd.Flags().GetBool("markdown"); cmd.Name() != "bench" || !md {
		t.Fatalf("the stamp's command consim %s is not consim bench --markdown", m[1])
	}
	algos, err := cmd.Flags().GetStringSlice("algos")
	if err != nil {
		t.Fatal(err)
	}
	var want strings.Builder
	writeBenchMarkdown(&want, algos, nil)
	lines := strings.Split(strings.TrimSuffix(string(m[2]), "\n"), "\n")
	if got := strings.Join(lines[:2], "\n") + "\n"; got != want.String() {
		t.Errorf("docs/benchmarks.md's bench table is stale: its header\n%s\nis not what consim %s prints now\n%s\nregenerate it with make docs BENCH=1", got, m[1], want.String())
	}
	cols := strings.Count(lines[0], "|")
	for i, l := range lines[2:] {
		if strings.Count(l, "|") != cols {
			t.Errorf("docs/benchmarks.md's bench table: row %d has %d cells, the header %d", i+1, strings.Count(l, "|")-1, cols-1)
		}
	}
}
