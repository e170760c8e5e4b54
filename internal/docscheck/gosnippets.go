package docscheck

import (
	"bytes"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// GoOptions configures CompileGo.
type GoOptions struct {
	// Go is the go command; "" looks "go" up on the PATH (go test puts
	// its own toolchain first there).
	Go string
	// Imports maps package names to import paths: a fragment that uses
	// name.X without importing name gets the import (see Packages).
	Imports map[string]string
}

// CompileGo compiles the ```go blocks of pages with the go command,
// against the module rooted at root (through a temporary go.work, so
// snippets import the module's packages as a user's program would).
//
// A block with a package clause is a file of its own. The other blocks of
// a page form one package (main if one of them declares func main): their
// imports are gathered at the top, their declarations follow in page
// order, and a block of statements becomes the body of a func _(). A
// fragment that uses a package of opts.Imports without importing it gets
// the import. //line directives point the compiler's messages at the
// page's lines. Blocks marked <!-- docs: not compiled: REASON --> are left
// out.
//
// The error is for a failure to run the compiler; what the compiler
// reports about the snippets is returned as problems.
func CompileGo(root string, pages []*Page, opts GoOptions) ([]Problem, error) {
	root, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	gomod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		return nil, err
	}
	goVersion := "1.21"
	if m := regexp.MustCompile(`(?m)^go\s+(\S+)`).FindSubmatch(gomod); m != nil {
		goVersion = string(m[1])
	}
	tmp, err := os.MkdirTemp("", "docscheck-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	work := fmt.Sprintf("go %s\n\nuse (\n\t%s\n\t./snippets\n)\n", goVersion, strconv.Quote(root))
	if err := os.WriteFile(filepath.Join(tmp, "go.work"), []byte(work), 0o644); err != nil {
		return nil, err
	}
	mod := filepath.Join(tmp, "snippets")
	if err := os.MkdirAll(mod, 0o755); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(mod, "go.mod"), []byte("module docsnippets\n\ngo "+goVersion+"\n"), 0o644); err != nil {
		return nil, err
	}

	var probs []Problem
	pageOf := make(map[string]string) // generated directory -> page
	mdPath := make(map[string]string) // absolute page path in //line -> page
	n := 0
	for _, pg := range pages {
		abs := filepath.Join(root, filepath.FromSlash(pg.Path))
		mdPath[abs] = pg.Path
		var group []Block
		for _, b := range pg.Blocks {
			if b.Lang != "go" || b.Skip != "" {
				continue
			}
			if hasPackageClause(b.Text) {
				n++
				dir := fmt.Sprintf("p%03d", n)
				pageOf[dir] = pg.Path
				src := lineDirective(abs, b.Line+1) + b.Text
				if err := writeFile(filepath.Join(mod, dir, "snippet.go"), src); err != nil {
					return nil, err
				}
				continue
			}
			group = append(group, b)
		}
		if len(group) == 0 {
			continue
		}
		n++
		dir := fmt.Sprintf("p%03d", n)
		pageOf[dir] = pg.Path
		if err := writeFile(filepath.Join(mod, dir, "page.go"), pageFile(abs, group, opts.Imports)); err != nil {
			return nil, err
		}
	}
	if n == 0 {
		return nil, nil
	}

	gobin := opts.Go
	if gobin == "" {
		if gobin, err = exec.LookPath("go"); err != nil {
			return nil, fmt.Errorf("compiling Go snippets: %w", err)
		}
	}
	cmd := exec.Command(gobin, "build", "./...")
	cmd.Dir = mod
	cmd.Env = append(os.Environ(), "GOWORK="+filepath.Join(tmp, "go.work"), "GOFLAGS=", "GOPROXY=off", "GO111MODULE=on")
	out, err := cmd.CombinedOutput()
	if err == nil {
		return probs, nil
	}
	var exit *exec.ExitError
	if !errors.As(err, &exit) {
		return nil, fmt.Errorf("compiling Go snippets: %w", err)
	}
	found := false
	for _, line := range strings.Split(string(out), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if m := compileMsgRE.FindStringSubmatch(line); m != nil {
			if page, ok := mdPath[m[1]]; ok {
				ln, _ := strconv.Atoi(m[2])
				probs = append(probs, Problem{Page: page, Line: ln, Msg: "go: " + m[3]})
				found = true
				continue
			}
		}
		page := ""
		for dir, pg := range pageOf {
			if strings.Contains(line, string(filepath.Separator)+dir+string(filepath.Separator)) || strings.Contains(line, "docsnippets/"+dir) {
				page = pg
			}
		}
		if page != "" {
			probs = append(probs, Problem{Page: page, Msg: "go: " + strings.TrimSpace(line)})
			found = true
		}
	}
	if !found {
		return nil, fmt.Errorf("compiling Go snippets: %v\n%s", err, out)
	}
	return probs, nil
}

var compileMsgRE = regexp.MustCompile(`^(.+?\.md):(\d+)(?::\d+)?: (.*)$`)

func lineDirective(file string, line int) string {
	return fmt.Sprintf("//line %s:%d\n", file, line)
}

func writeFile(name, src string) error {
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		return err
	}
	return os.WriteFile(name, []byte(src), 0o644)
}

func hasPackageClause(text string) bool {
	_, err := parser.ParseFile(token.NewFileSet(), "", text, parser.PackageClauseOnly)
	return err == nil
}

// isDecls reports whether text parses as top-level declarations (with
// imports first); the other fragments are statements.
func isDecls(text string) bool {
	_, err := parser.ParseFile(token.NewFileSet(), "", "package p\n"+text, parser.SkipObjectResolution)
	if err == nil {
		return true
	}
	_, err2 := parser.ParseFile(token.NewFileSet(), "", "package p\nfunc _() {\n"+text+"\n}\n", parser.SkipObjectResolution)
	return err2 != nil // neither: let the compiler say what is wrong with it as declarations
}

// importSpec is an import of a block, with the page line it stands on.
type importSpec struct {
	name, path string // name is the alias, "" without one
	line       int
}

// pageFile builds the one file of a page's blocks.
func pageFile(abs string, blocks []Block, known map[string]string) string {
	var body strings.Builder
	var imports []importSpec
	pkg := "snippet"
	for _, b := range blocks {
		first := b.Line + 1
		if !isDecls(b.Text) {
			body.WriteString("\nfunc _() {\n" + lineDirective(abs, first) + b.Text + "}\n")
			continue
		}
		text, specs, hasMain := splitImports(b.Text, first)
		imports = append(imports, specs...)
		if hasMain {
			pkg = "main"
		}
		body.WriteString("\n" + lineDirective(abs, first) + text)
	}
	// Imports a fragment uses without declaring them.
	names := make(map[string]bool)
	for _, s := range imports {
		names[importName(s)] = true
	}
	var auto []string
	for _, name := range unresolvedSelectors("package " + pkg + "\n" + body.String()) {
		if p, ok := known[name]; ok && !names[name] {
			auto = append(auto, p)
			names[name] = true
		}
	}
	slices.Sort(auto)
	var src strings.Builder
	src.WriteString("package " + pkg + "\n\nimport (\n")
	for _, p := range auto {
		src.WriteString("\t" + strconv.Quote(p) + "\n")
	}
	seen := make(map[importSpec]bool)
	for _, s := range imports {
		key := importSpec{name: s.name, path: s.path}
		if seen[key] {
			continue
		}
		seen[key] = true
		src.WriteString(lineDirective(abs, s.line) + "\t" + strings.TrimSpace(s.name+" "+strconv.Quote(s.path)) + "\n")
	}
	src.WriteString(")\n")
	if len(auto) == 0 && len(seen) == 0 {
		src.Reset()
		src.WriteString("package " + pkg + "\n")
	}
	src.WriteString(body.String())
	return src.String()
}

// splitImports blanks out the import declarations of a block of
// declarations (keeping its lines) and returns them, and whether the block
// declares func main.
func splitImports(text string, first int) (string, []importSpec, bool) {
	fset := token.NewFileSet()
	const head = "package p\n"
	f, err := parser.ParseFile(fset, "", head+text, parser.SkipObjectResolution)
	if err != nil {
		return text, nil, false
	}
	b := []byte(text)
	var specs []importSpec
	hasMain := false
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.GenDecl:
			if d.Tok != token.IMPORT {
				continue
			}
			for _, s := range d.Specs {
				is := s.(*ast.ImportSpec)
				p, _ := strconv.Unquote(is.Path.Value)
				sp := importSpec{path: p, line: first + fset.Position(is.Pos()).Line - 2}
				if is.Name != nil {
					sp.name = is.Name.Name
				}
				specs = append(specs, sp)
			}
			from, to := fset.Position(d.Pos()).Offset-len(head), fset.Position(d.End()).Offset-len(head)
			for k := from; k < to; k++ {
				if b[k] != '\n' {
					b[k] = ' '
				}
			}
		case *ast.FuncDecl:
			if d.Recv == nil && d.Name.Name == "main" {
				hasMain = true
			}
		}
	}
	return string(b), specs, hasMain
}

var majorVersionRE = regexp.MustCompile(`^v[0-9]+$`)

// importName is the name an import declares: its alias, or the last
// element of its path that is not a major version.
func importName(s importSpec) string {
	if s.name != "" {
		return s.name
	}
	elems := strings.Split(s.path, "/")
	for i := len(elems) - 1; i > 0; i-- {
		if !majorVersionRE.MatchString(elems[i]) {
			return elems[i]
		}
	}
	return path.Base(s.path)
}

// unresolvedSelectors lists the names x of selectors x.Sel in src that no
// declaration of the file resolves: the packages the file uses.
func unresolvedSelectors(src string) []string {
	f, err := parser.ParseFile(token.NewFileSet(), "", src, 0)
	if err != nil {
		return nil
	}
	seen := make(map[string]bool)
	var names []string
	ast.Inspect(f, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok {
			if id, ok := sel.X.(*ast.Ident); ok && id.Obj == nil && !seen[id.Name] {
				seen[id.Name] = true
				names = append(names, id.Name)
			}
		}
		return true
	})
	return names
}

// Packages lists the packages that patterns match (e.g. "std" and
// "github.com/consim/consim/..."), by name, for GoOptions.Imports: main
// packages, internal and vendored ones, and names that two packages share
// are left out, so a fragment that uses them must import them itself.
func Packages(gobin, dir string, patterns ...string) (map[string]string, error) {
	if gobin == "" {
		var err error
		if gobin, err = exec.LookPath("go"); err != nil {
			return nil, err
		}
	}
	cmd := exec.Command(gobin, append([]string{"list", "-f", "{{.Name}} {{.ImportPath}}"}, patterns...)...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list %s: %v: %s", strings.Join(patterns, " "), err, stderr.String())
	}
	byName := make(map[string]string)
	dup := make(map[string]bool)
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		name, p, ok := strings.Cut(line, " ")
		if !ok || name == "main" || strings.HasSuffix(name, "_test") {
			continue
		}
		elems := strings.Split(p, "/")
		if slices.Contains(elems, "internal") || slices.Contains(elems, "vendor") || slices.Contains(elems, "testdata") {
			continue
		}
		if _, ok := byName[name]; ok {
			dup[name] = true
		}
		byName[name] = p
	}
	for name := range dup {
		delete(byName, name)
	}
	return byName, nil
}
