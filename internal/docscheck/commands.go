package docscheck

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Command is one invocation of the documented program found in a page.
type Command struct {
	Page string
	Line int
	Args []string // the words after the program's name
	Text string   // the command as written
}

func (c Command) String() string { return fmt.Sprintf("%s:%d: %s", c.Page, c.Line, c.Text) }

// shellLangs are the info strings of blocks whose lines are commands.
var shellLangs = map[string]bool{"sh": true, "bash": true, "shell": true, "console": true, "zsh": true}

var (
	promptRE  = regexp.MustCompile(`^\s*[A-Za-z0-9_.@:~/-]*\$\s+`)
	heredocRE = regexp.MustCompile(`<<-?\s*['"]?([A-Za-z_][A-Za-z0-9_]*)['"]?`)
)

// Commands returns the invocations of program (e.g. "consim", also
// written ./bin/consim or bin/consim) in the fenced sh, bash, shell, zsh
// and console blocks of pages, with the problems of lines that do not
// split into words. In a console block only lines after a prompt ("$ ",
// "host0$ ") are commands; in the others every line is, a prompt
// stripped. Lines continued with '\' are joined, here-documents skipped,
// and commands inside $(...) and <(...) found too. Blocks marked
// <!-- docs: not checked: REASON --> are left out.
func Commands(pages []*Page, program string) ([]Command, []Problem) {
	var cmds []Command
	var probs []Problem
	for _, pg := range pages {
		for _, b := range pg.Blocks {
			if !shellLangs[b.Lang] || b.Skip != "" {
				continue
			}
			lines := strings.Split(strings.TrimSuffix(b.Text, "\n"), "\n")
			for i := 0; i < len(lines); i++ {
				ln := b.Line + 1 + i
				line := lines[i]
				prompt := promptRE.FindString(line)
				if prompt == "" && b.Lang == "console" {
					continue // output
				}
				line = line[len(prompt):]
				for strings.HasSuffix(strings.TrimRight(line, " \t"), `\`) && i+1 < len(lines) {
					line = strings.TrimSuffix(strings.TrimRight(line, " \t"), `\`) + " " + strings.TrimSpace(lines[i+1])
					i++
				}
				if m := heredocRE.FindStringSubmatch(line); m != nil {
					for i+1 < len(lines) && strings.TrimSpace(lines[i+1]) != m[1] {
						i++
					}
					i++
				}
				found, err := findInvocations(line, program)
				if err != nil {
					probs = append(probs, Problem{Page: pg.Path, Line: ln, Msg: err.Error()})
					continue
				}
				for _, args := range found {
					cmds = append(cmds, Command{Page: pg.Path, Line: ln, Args: args, Text: strings.TrimSpace(line)})
				}
			}
		}
	}
	return cmds, probs
}

// CheckCommands parses every command with parse, which reports an unknown
// subcommand, an unknown flag, a bad flag value or a wrong argument count
// without running anything (see ParseCobra). An argument naming a
// scenario file of the repository (scenarios/....yaml) must exist under
// root.
func CheckCommands(root string, cmds []Command, parse func(args []string) error) []Problem {
	var probs []Problem
	for _, c := range cmds {
		if err := parse(c.Args); err != nil {
			probs = append(probs, Problem{Page: c.Page, Line: c.Line, Msg: fmt.Sprintf("%s: %v", c.Text, err)})
			continue
		}
		for _, a := range c.Args {
			if strings.HasPrefix(a, "scenarios/") && (strings.HasSuffix(a, ".yaml") || strings.HasSuffix(a, ".yml")) {
				if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(a))); err != nil {
					probs = append(probs, Problem{Page: c.Page, Line: c.Line, Msg: fmt.Sprintf("%s: no scenario file %s", c.Text, a)})
				}
			}
		}
	}
	return probs
}

// ParseCobra parses args as the command line of root without running it:
// the subcommand must exist (cobra's Find), the flags must exist and their
// values parse (ParseFlags), and the arguments left must satisfy the
// command's Args. A flag value that is a shell expansion ($VAR, $(...))
// or an upper-case placeholder (URL, ID, N) stands for a value of the
// flag's type. root must be a fresh command tree: parsing sets its flags.
func ParseCobra(root *cobra.Command, args []string) error {
	cmd, pos, err := parseCobra(root, args)
	if err != nil || cmd == nil {
		return err
	}
	if !cmd.Runnable() && !cmd.HasAvailableSubCommands() {
		return fmt.Errorf("%q does nothing", cmd.CommandPath())
	}
	return cmd.ValidateArgs(pos)
}

// ParseCobraRef parses args as a command named in prose (`consim node`,
// `consim run --transport chan`): the subcommand must exist and the flags
// given must exist and parse, but the arguments are not counted.
//
// A placeholder for the subcommand (`consim reproduce EXPERIMENT`) is
// accepted where the command has subcommands, and a last flag may name
// the flag without its value (`consim graph --record`).
func ParseCobraRef(root *cobra.Command, args []string) error {
	cmd, _, err := root.Find(args)
	if err == nil && cmd.HasAvailableSubCommands() {
		for _, a := range args {
			if a == cmd.Name() || strings.HasPrefix(a, "-") {
				continue
			}
			if placeholderRE.MatchString(a) {
				return nil
			}
		}
	}
	if err == nil && len(args) > 0 {
		last := args[len(args)-1]
		if f := flagOf(cmd, last); f != nil && !strings.Contains(last, "=") && f.NoOptDefVal == "" {
			args = append(args[:len(args):len(args)], sampleValue(f))
		}
	}
	_, _, err = parseCobra(root, args)
	return err
}

// flagOf returns the flag of cmd (its own or inherited) that tok names,
// as --name, --name=value or -x; nil when tok names none.
func flagOf(cmd *cobra.Command, tok string) *pflag.Flag {
	name, _, _ := strings.Cut(tok, "=")
	switch {
	case strings.HasPrefix(name, "--"):
		if f := cmd.Flags().Lookup(name[2:]); f != nil {
			return f
		}
		return cmd.InheritedFlags().Lookup(name[2:])
	case strings.HasPrefix(name, "-") && len(name) == 2:
		if f := cmd.Flags().ShorthandLookup(name[1:]); f != nil {
			return f
		}
		return cmd.InheritedFlags().ShorthandLookup(name[1:])
	}
	return nil
}

// parseCobra finds the command of args and parses its flags; it returns
// the positional arguments left, or a nil command after --help.
func parseCobra(root *cobra.Command, args []string) (*cobra.Command, []string, error) {
	cmd, rest, err := root.Find(args)
	if err != nil {
		return nil, nil, err
	}
	rest = fillPlaceholders(cmd, rest)
	cmd.InitDefaultHelpFlag()
	if err := cmd.ParseFlags(rest); err != nil {
		return nil, nil, err
	}
	if h := cmd.Flags().Lookup("help"); h != nil && h.Changed {
		return nil, nil, nil
	}
	pos := cmd.Flags().Args()
	if cmd.HasAvailableSubCommands() && len(pos) > 0 {
		return nil, nil, fmt.Errorf("unknown command %q for %q", pos[0], cmd.CommandPath())
	}
	return cmd, pos, nil
}

var placeholderRE = regexp.MustCompile(`^[A-Z][A-Z0-9_]*$`)

// fillPlaceholders replaces flag values that stand for a value (shell
// expansions, upper-case placeholders) with a value of the flag's type.
func fillPlaceholders(cmd *cobra.Command, args []string) []string {
	out := append([]string(nil), args...)
	for i := 0; i < len(out); i++ {
		tok := out[i]
		if tok == "--" {
			break
		}
		if !strings.HasPrefix(tok, "-") || tok == "-" {
			continue
		}
		name, val, hasVal := strings.Cut(tok, "=")
		f := flagOf(cmd, tok)
		if f == nil {
			continue
		}
		if hasVal {
			if isPlaceholder(val) {
				out[i] = name + "=" + sampleValue(f)
			}
			continue
		}
		if f.NoOptDefVal != "" || i+1 >= len(out) {
			continue // a bool or count flag takes no separate value
		}
		i++
		if isPlaceholder(out[i]) {
			out[i] = sampleValue(f)
		}
	}
	return out
}

func isPlaceholder(v string) bool {
	return strings.Contains(v, "$") || strings.Contains(v, "`") || placeholderRE.MatchString(v)
}

// sampleValue is a value every flag of f's type accepts.
func sampleValue(f *pflag.Flag) string {
	t := f.Value.Type()
	switch {
	case strings.HasPrefix(t, "int"), strings.HasPrefix(t, "uint"), strings.HasPrefix(t, "float"):
		return "1"
	case strings.HasPrefix(t, "duration"):
		return "1s"
	case strings.HasPrefix(t, "bool"):
		return "true"
	}
	return "x"
}

// findInvocations splits a shell line into simple commands and returns
// the arguments of each that runs program, including those inside $(...)
// and <(...).
func findInvocations(line, program string) ([][]string, error) {
	words, subs, err := shellWords(line)
	if err != nil {
		return nil, err
	}
	var found [][]string
	for _, sc := range simpleCommands(words) {
		if len(sc) > 0 && (sc[0] == program || strings.HasSuffix(sc[0], "/"+program)) {
			found = append(found, sc[1:])
		}
	}
	for _, s := range subs {
		inner, err := findInvocations(s, program)
		if err != nil {
			return nil, err
		}
		found = append(found, inner...)
	}
	return found, nil
}

// A word of a shell line: text, or a control or redirection operator.
type word struct {
	text string
	op   bool
}

// shellWords splits a line as a POSIX shell would into words (quotes
// removed) and operators, drops a comment, and returns the text of every
// $(...), <(...) and `...` substitution besides.
func shellWords(line string) ([]word, []string, error) {
	var words []word
	var subs []string
	var cur strings.Builder
	inWord := false
	emit := func() {
		if inWord {
			words = append(words, word{text: cur.String()})
			cur.Reset()
			inWord = false
		}
	}
	// subst reads a balanced (...) from i (at the '('), returns the index
	// after it.
	subst := func(i int) (int, error) {
		depth := 0
		for j := i; j < len(line); j++ {
			switch line[j] {
			case '(':
				depth++
			case ')':
				depth--
				if depth == 0 {
					subs = append(subs, line[i+1:j])
					return j + 1, nil
				}
			case '\'':
				k := strings.IndexByte(line[j+1:], '\'')
				if k < 0 {
					return 0, fmt.Errorf("unterminated ' in %q", line)
				}
				j += k + 1
			}
		}
		return 0, fmt.Errorf("unbalanced ( in %q", line)
	}
	for i := 0; i < len(line); {
		c := line[i]
		switch {
		case c == ' ' || c == '\t':
			emit()
			i++
		case c == '#' && !inWord:
			return words, subs, nil // a comment
		case c == '\'':
			j := strings.IndexByte(line[i+1:], '\'')
			if j < 0 {
				return nil, nil, fmt.Errorf("unterminated ' in %q", line)
			}
			cur.WriteString(line[i+1 : i+1+j])
			inWord = true
			i += j + 2
		case c == '"':
			i++
			inWord = true
			for ; i < len(line) && line[i] != '"'; i++ {
				switch {
				case line[i] == '\\' && i+1 < len(line) && strings.IndexByte("\"\\$`", line[i+1]) >= 0:
					i++
					cur.WriteByte(line[i])
				case line[i] == '$' && i+1 < len(line) && line[i+1] == '(':
					end, err := subst(i + 1)
					if err != nil {
						return nil, nil, err
					}
					cur.WriteString(line[i:end])
					i = end - 1
				default:
					cur.WriteByte(line[i])
				}
			}
			if i >= len(line) {
				return nil, nil, fmt.Errorf("unterminated \" in %q", line)
			}
			i++
		case c == '\\':
			if i+1 < len(line) {
				cur.WriteByte(line[i+1])
			}
			inWord = true
			i += 2
		case c == '`':
			j := strings.IndexByte(line[i+1:], '`')
			if j < 0 {
				return nil, nil, fmt.Errorf("unterminated ` in %q", line)
			}
			subs = append(subs, line[i+1:i+1+j])
			cur.WriteString(line[i : i+2+j])
			inWord = true
			i += j + 2
		case c == '$' && i+1 < len(line) && line[i+1] == '(':
			end, err := subst(i + 1)
			if err != nil {
				return nil, nil, err
			}
			cur.WriteString(line[i:end])
			inWord = true
			i = end
		case (c == '<' || c == '>') && i+1 < len(line) && line[i+1] == '(' && !inWord:
			end, err := subst(i + 1)
			if err != nil {
				return nil, nil, err
			}
			words = append(words, word{text: line[i:end]})
			i = end
		case strings.IndexByte("|&;()<>", c) >= 0:
			// A redirection may start with a file descriptor (2>, 2>&1).
			if isDigits(cur.String()) && inWord && (c == '<' || c == '>') {
				cur.Reset()
				inWord = false
			}
			emit()
			j := i + 1
			for j < len(line) && strings.IndexByte("|&<>", line[j]) >= 0 && (line[j] == c || line[j] == '&' || c == '&') {
				j++
			}
			op := line[i:j]
			if (c == '<' || c == '>') && j < len(line) && line[j-1] == '&' {
				for j < len(line) && (isDigit(line[j]) || line[j] == '-') {
					j++
				}
				op = line[i:j]
			}
			words = append(words, word{text: op, op: true})
			i = j
		default:
			cur.WriteByte(c)
			inWord = true
			i++
		}
	}
	emit()
	return words, subs, nil
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return true
}

var (
	assignRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*=`)
	dupRE    = regexp.MustCompile(`&[0-9-]+$`) // >&2, 2>&1: no target word
)

// wrappers run the command that follows them.
var wrappers = map[string]bool{"time": true, "sudo": true, "env": true, "exec": true, "nohup": true, "command": true,
	"do": true, "then": true, "else": true, "!": true}

// simpleCommands splits words at control operators and returns each
// simple command's words, redirections, leading assignments and wrappers
// (time, sudo, env, ...) removed.
func simpleCommands(words []word) [][]string {
	var out [][]string
	var cur []string
	for i := 0; i < len(words); i++ {
		w := words[i]
		if w.op {
			if strings.ContainsAny(w.text, "<>") {
				if !dupRE.MatchString(w.text) {
					i++ // the redirection's target
				}
				continue
			}
			out = append(out, cur)
			cur = nil
			continue
		}
		if strings.HasPrefix(w.text, "<(") || strings.HasPrefix(w.text, ">(") {
			continue
		}
		if len(cur) == 0 && (assignRE.MatchString(w.text) || wrappers[w.text]) {
			continue
		}
		cur = append(cur, w.text)
	}
	return append(out, cur)
}
