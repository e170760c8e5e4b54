package scenarios

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// ErrInvalid is matched (errors.Is) by every error this package returns
// for bad scenario input, so a caller can map all of them to one exit code.
var ErrInvalid = errors.New("invalid scenario")

// OverrideSource is the File of positions and errors that come from Set.
const OverrideSource = "--set"

// Pos is where a value was written: a file (or OverrideSource) and a
// 1-based line and column, zero when unknown.
type Pos struct {
	File         string
	Line, Column int
}

// String formats p as file:line:column, leaving out unknown parts.
func (p Pos) String() string {
	s := p.File
	if s == "" {
		s = "scenario"
	}
	if p.Line > 0 {
		s += ":" + strconv.Itoa(p.Line)
		if p.Column > 0 {
			s += ":" + strconv.Itoa(p.Column)
		}
	}
	return s
}

// Error is one problem with a scenario.
type Error struct {
	Pos
	// Key is the dotted key the problem is about, e.g. "graph.p"; empty
	// for syntax errors and unknown keys (the message names those).
	Key string
	// Msg says what is wrong and what is allowed.
	Msg string
	// Err is the underlying cause, if any (e.g. a file system error).
	Err error
}

// Error formats e as "file:line:col: key: msg".
func (e *Error) Error() string {
	if e.Key == "" {
		return e.Pos.String() + ": " + e.Msg
	}
	return e.Pos.String() + ": " + e.Key + ": " + e.Msg
}

// Unwrap returns the underlying cause.
func (e *Error) Unwrap() error { return e.Err }

// Is reports whether target is ErrInvalid.
func (e *Error) Is(target error) bool { return target == ErrInvalid }

// ErrorList is every problem found in one pass, in the order found
// (mostly file order). It is never empty when returned as an error.
type ErrorList []*Error

// Error lists the errors one per line.
func (l ErrorList) Error() string {
	msgs := make([]string, len(l))
	for i, e := range l {
		msgs[i] = e.Error()
	}
	return strings.Join(msgs, "\n")
}

// Unwrap exposes the single errors to errors.Is and errors.As.
func (l ErrorList) Unwrap() []error {
	errs := make([]error, len(l))
	for i, e := range l {
		errs[i] = e
	}
	return errs
}

// errorsCollector accumulates errors; err returns nil when there are none.
type errorsCollector struct{ list ErrorList }

func (c *errorsCollector) add(p Pos, key, format string, args ...any) {
	c.list = append(c.list, &Error{Pos: p, Key: key, Msg: fmt.Sprintf(format, args...)})
}

func (c *errorsCollector) err() error {
	if len(c.list) == 0 {
		return nil
	}
	return c.list
}

// yamlLine matches the "yaml: line N: msg" form of the parser's errors.
var yamlLine = regexp.MustCompile(`^yaml: (?:line (\d+): )?(.*)$`)

// parserProblems are the messages yaml.v3 raises from its parser (as
// opposed to its scanner). For those it prints the 0-based line of the
// enclosing construct (or none when that is the first line), so one is
// added to make the line 1-based like every other position.
var parserProblems = []string{
	"did not find expected",
	"found duplicate %",
	"found incompatible YAML document",
	"found undefined tag handle",
}

// syntaxError turns a YAML parser error into an *Error carrying its line.
func syntaxError(file string, err error) *Error {
	msg := err.Error()
	m := yamlLine.FindStringSubmatch(msg)
	if m == nil {
		return &Error{Pos: Pos{File: file}, Msg: "invalid YAML: " + msg, Err: err}
	}
	line, _ := strconv.Atoi(m[1]) // 0 when the parser gave no line
	for _, p := range parserProblems {
		if strings.HasPrefix(m[2], p) {
			line++
			break
		}
	}
	return &Error{Pos: Pos{File: file, Line: line}, Msg: "invalid YAML: " + m[2], Err: err}
}
