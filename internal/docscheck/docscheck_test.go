package docscheck

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// site writes files under a new root and parses its Markdown pages.
func site(t *testing.T, files map[string]string) (string, []*Page) {
	t.Helper()
	root := t.TempDir()
	var pages []*Page
	for name, text := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(name, ".md") {
			pages = append(pages, Parse(name, []byte(text)))
		}
	}
	sort.Slice(pages, func(i, j int) bool { return pages[i].Path < pages[j].Path })
	return root, pages
}

// expect checks that the problems are exactly those wanted, each given as
// "page:line: " followed by a substring of the message.
func expect(t *testing.T, got []Problem, want []string) {
	t.Helper()
	var gs []string
	for _, p := range got {
		gs = append(gs, p.String())
	}
	matched := make([]bool, len(gs))
	for _, w := range want {
		ok := false
		for i, g := range gs {
			pos, msg, _ := strings.Cut(w, " ")
			if !matched[i] && strings.HasPrefix(g, pos+" ") && strings.Contains(g, msg) {
				matched[i], ok = true, true
				break
			}
		}
		if !ok {
			t.Errorf("missing problem %q; got:\n  %s", w, strings.Join(gs, "\n  "))
		}
	}
	for i, g := range gs {
		if !matched[i] {
			t.Errorf("unexpected problem %s", g)
		}
	}
}

func TestSlug(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"Results bundle", "results-bundle"},
		{"com-SVR-ADMM, portfolio mean-variance (Yu and Huang §4.1)", "com-svr-admm-portfolio-mean-variance-yu-and-huang-41"},
		{"Statuses (`s.<id>`)", "statuses-sid"},
		{"The NATS envelope: MACs", "the-nats-envelope-macs"},
		{"[Links](x.md) and **bold** and snake_case", "links-and-bold-and-snake_case"},
		{"ALM-STORM against the ALM, and the baselines", "alm-storm-against-the-alm-and-the-baselines"},
	} {
		if got := Slug(c.in); got != c.want {
			t.Errorf("Slug(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestParse(t *testing.T) {
	pg := Parse("p.md", []byte("# Title\n\n## Same\n\n## Same\n\n<a id=\"here\"></a>\n"+
		"Text with `code [not](a-link.md)` and a [link](b.md#x\n) split over lines.\n"+
		"A [wrapped\nlink](c.md) and ![img](fig.png \"title\").\n\n"+
		"  ```go\n  x := 1\n  ```\n\n"+
		"[ref]: d.md\n"))
	for _, a := range []string{"title", "same", "same-1", "here"} {
		if !pg.Anchors[a] {
			t.Errorf("anchor %q missing: %v", a, pg.Anchors)
		}
	}
	var targets []string
	for _, l := range pg.Links {
		targets = append(targets, l.Target)
	}
	if got, want := strings.Join(targets, " "), "b.md#x c.md fig.png d.md"; got != want {
		t.Errorf("links %q, want %q", got, want)
	}
	if len(pg.Blocks) != 1 || pg.Blocks[0].Text != "x := 1\n" || pg.Blocks[0].Lang != "go" || pg.Blocks[0].Line != 13 {
		t.Errorf("blocks %+v", pg.Blocks)
	}
	if len(pg.Spans) != 1 || pg.Spans[0].Text != "code [not](a-link.md)" {
		t.Errorf("spans %+v", pg.Spans)
	}
}

func TestCheckLinks(t *testing.T) {
	for _, c := range []struct {
		name  string
		files map[string]string
		want  []string
	}{
		{"good", map[string]string{
			"README.md":        "See [docs](docs/README.md), [a section](docs/a.md#the-b-part), [here](#top) and ![fig](docs/fig.png).\n\n# Top\n",
			"docs/README.md":   "[back](../README.md) [dir](../scenarios) [web](https://example.com/x.md) [mail](mailto:a@b)\n",
			"docs/a.md":        "# A\n\n## The B part\n\n`[in code](nowhere.md)`\n\n```\n[in a block](nowhere.md)\n```\n",
			"docs/fig.png":     "png",
			"scenarios/x.yaml": "agents: 1\n",
		}, nil},
		{"broken link", map[string]string{
			"README.md": "Intro.\n\nSee [the guide](docs/guide.md).\n",
		}, []string{"README.md:3: no such file or directory docs/guide.md"}},
		{"broken anchor", map[string]string{
			"README.md": "[x](docs/a.md#no-such-part)\n[y](#nor-here)\n",
			"docs/a.md": "# A\n",
		}, []string{"README.md:1: docs/a.md has no heading with anchor #no-such-part", "README.md:2: README.md has no heading with anchor #nor-here"}},
		{"outside the repository", map[string]string{
			"docs/a.md": "[data](../../shared/data)\n",
		}, []string{"docs/a.md:1: leaves the repository"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			root, pages := site(t, c.files)
			expect(t, CheckLinks(root, pages), c.want)
		})
	}
}

// cli is a small command tree standing for the documented program.
func cli() *cobra.Command {
	root := &cobra.Command{Use: "tool", SilenceErrors: true, SilenceUsage: true}
	run := &cobra.Command{Use: "run SCENARIO", Args: cobra.ExactArgs(1), RunE: func(*cobra.Command, []string) error { return nil }}
	run.Flags().String("transport", "chan", "")
	run.Flags().StringArray("set", nil, "")
	run.Flags().Int("rounds", 0, "")
	run.Flags().Duration("timeout", 0, "")
	run.Flags().Bool("quiet", false, "")
	repro := &cobra.Command{Use: "reproduce"}
	repro.AddCommand(&cobra.Command{Use: "admm", Args: cobra.NoArgs, RunE: func(*cobra.Command, []string) error { return nil }})
	root.AddCommand(run, repro)
	return root
}

func parseCLI(args []string) error { return ParseCobra(cli(), args) }

func TestCommands(t *testing.T) {
	for _, c := range []struct {
		name string
		page string
		want []string // problems
		args []string // the commands found, joined by " ; "
	}{
		{"good", "```sh\ntool run scenarios/x.yaml --rounds 10 --set a=1   # a comment\n" +
			"./bin/tool run scenarios/x.yaml --transport=nats && tool reproduce admm\n" +
			"TOOL_ENV=1 time tool run scenarios/x.yaml \\\n    --rounds $N --timeout \"$T\" > out.txt 2>&1\n" +
			"source <(tool run scenarios/x.yaml --quiet)\n" +
			"for s in a b; do tool run scenarios/x.yaml --rounds N; done\n" +
			"cat <<EOF\ntool nonsense\nEOF\n" +
			"host0$ tool run scenarios/x.yaml\n```\n" +
			"```console\n$ tool run scenarios/x.yaml\ntool output that is not a command --nope\n```\n" +
			"```yaml\ntool: not a command\n```\n",
			nil,
			[]string{"run scenarios/x.yaml --rounds 10 --set a=1", "run scenarios/x.yaml --transport=nats", "reproduce admm",
				"run scenarios/x.yaml --rounds $N --timeout $T", "run scenarios/x.yaml --quiet", "run scenarios/x.yaml --rounds N",
				"run scenarios/x.yaml", "run scenarios/x.yaml"}},
		{"unknown flag", "```sh\ntool run scenarios/x.yaml --trnasport nats\n```\n",
			[]string{"p.md:2: unknown flag: --trnasport"}, nil},
		{"unknown subcommand", "```sh\ntool reproduce admn\n```\n\n```sh\ntool rnu scenarios/x.yaml\n```\n",
			[]string{`p.md:2: unknown command "admn" for "tool reproduce"`, `p.md:6: unknown command "rnu" for "tool"`}, nil},
		{"bad value", "```sh\ntool run scenarios/x.yaml --rounds ten\n```\n",
			[]string{`p.md:2: invalid argument "ten" for "--rounds"`}, nil},
		{"argument count", "```sh\ntool run\n```\n",
			[]string{"p.md:2: accepts 1 arg(s), received 0"}, nil},
		{"missing scenario", "```sh\ntool run scenarios/gone.yaml\n```\n",
			[]string{"p.md:2: no scenario file scenarios/gone.yaml"}, nil},
		{"unbalanced quote", "```sh\ntool run 'scenarios/x.yaml\n```\n",
			[]string{"p.md:2: unterminated '"}, nil},
		{"not checked", "<!-- docs: not checked: a flag of a future release -->\n```sh\ntool run --future\n```\n", nil, nil},
		{"marker without reason", "<!-- docs: not checked -->\n```sh\ntool run --future\n```\n",
			[]string{"p.md:1: gives no reason"}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			root, pages := site(t, map[string]string{"p.md": c.page, "scenarios/x.yaml": "agents: 1\n"})
			cmds, probs := Commands(pages, "tool")
			for _, p := range pages {
				probs = append(probs, p.Problems...)
			}
			probs = append(probs, CheckCommands(root, cmds, parseCLI)...)
			expect(t, probs, c.want)
			if c.args != nil {
				var got []string
				for _, cmd := range cmds {
					got = append(got, strings.Join(cmd.Args, " "))
				}
				if strings.Join(got, " ; ") != strings.Join(c.args, " ; ") {
					t.Errorf("commands\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(c.args, "\n  "))
				}
			}
		})
	}
}

func TestParseCobraRef(t *testing.T) {
	for _, c := range []struct {
		args string
		want string // "" for no error
	}{
		{"run", ""},
		{"run --transport nats", ""},
		{"run --nope", "unknown flag: --nope"},
		{"rnu", `unknown command "rnu" for "tool"`},
		{"reproduce admn", `unknown command "admn" for "tool reproduce"`},
		{"reproduce EXPERIMENT", ""},
		{"reproduce EXPERIMENT --help", ""},
		{"run SCENARIO --help", ""},
		{"RUN", `unknown command "RUN" for "tool"`},
		{"run --rounds", ""},
		{"run --rounds --quiet", `invalid argument "--quiet" for "--rounds"`},
	} {
		err := ParseCobraRef(cli(), strings.Fields(c.args))
		if (err == nil) != (c.want == "") || err != nil && !strings.Contains(err.Error(), c.want) {
			t.Errorf("ParseCobraRef(%q) = %v, want %q", c.args, err, c.want)
		}
	}
}

func TestCompileGo(t *testing.T) {
	if testing.Short() {
		// Still run: it is the point of the package, and one go build of
		// a few files takes about a second with a warm cache.
		t.Log("compiling snippets with the go command")
	}
	const gomod = "module example.com/site\n\ngo 1.22\n"
	const greet = "// Package greet is a package of the fixture module.\npackage greet\n\n// Hello greets.\nfunc Hello(name string) string { return \"hello, \" + name }\n"
	imports := map[string]string{"fmt": "fmt", "strings": "strings", "greet": "example.com/site/greet"}
	for _, c := range []struct {
		name string
		page string
		want []string
	}{
		{"fragments form one package", "# Guide\n\n```go\ntype Params struct{ Step float64 }\n\nfunc (p Params) Twice() float64 { return 2 * p.Step }\n```\n\n" +
			"Then:\n\n```go\n\tp := Params{Step: 0.5}\n\tfmt.Println(p.Twice(), greet.Hello(\"x\"))\n```\n", nil},
		{"explicit imports are hoisted", "```go\nimport \"strings\"\n\nfunc up(s string) string { return strings.ToUpper(s) }\n```\n\n" +
			"```go\nimport (\n\t\"fmt\"\n\t\"strings\"\n)\n\nfunc show() { fmt.Println(up(strings.TrimSpace(\" a \"))) }\n```\n", nil},
		{"a file of its own", "```go\npackage main\n\nimport \"example.com/site/greet\"\n\nfunc main() { println(greet.Hello(\"w\")) }\n```\n\n" +
			"```go\nfunc main() {}\n```\n", nil},
		{"broken snippet", "# Running it\n\n```go\n\tsum, err := fmt.Println(\"x\")\n\tif err != nil {\n\t\treturn\n\t}\n```\n",
			[]string{"p.md:4: declared and not used: sum"}},
		{"undefined name", "```go\nfunc f() int { return greet.Missing() }\n```\n",
			[]string{"p.md:2: undefined: greet.Missing"}},
		{"syntax error", "text\n\n```go\nfunc f( {\n```\n", []string{"p.md:4: syntax error"}},
		{"not compiled", "<!-- docs: not compiled: pseudo-code of the update -->\n```go\nx_i <- x_i - alpha grad f_i\n```\n", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			root, pages := site(t, map[string]string{"go.mod": gomod, "greet/greet.go": greet, "p.md": c.page})
			probs, err := CompileGo(root, pages, GoOptions{Imports: imports})
			if err != nil {
				t.Fatal(err)
			}
			expect(t, probs, c.want)
		})
	}
}
