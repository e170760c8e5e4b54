package docscheck

import (
	"fmt"
	"regexp"
	"strings"
	"unicode"
)

// Problem is one thing wrong with a page, at a line of it.
type Problem struct {
	Page string // the page's path, slash-separated, relative to the root
	Line int    // 1-based line of the page; 0 when the page as a whole
	Msg  string
}

func (p Problem) String() string { return fmt.Sprintf("%s:%d: %s", p.Page, p.Line, p.Msg) }

// Block is a fenced code block of a page.
type Block struct {
	Line int    // line of the opening fence
	Lang string // first word of the info string ("go", "sh", ...)
	// Text is the block's content, each line ending in "\n", with the
	// fence's own indentation removed.
	Text string
	// Skip is the reason of a <!-- docs: not compiled|not checked: REASON -->
	// marker on the line before the fence; "" without one.
	Skip string
}

// Link is the target of a link, image or reference definition outside
// code.
type Link struct {
	Line   int
	Target string
}

// Span is an inline code span outside fenced blocks.
type Span struct {
	Line int // line where the span opens
	Text string
}

// Page is a parsed Markdown file.
type Page struct {
	Path    string
	Blocks  []Block
	Links   []Link
	Spans   []Span
	Anchors map[string]bool // GitHub anchors of its headings and <a id|name>
	// Problems are the page's own defects: unclosed fences, markers
	// without a reason or without a block.
	Problems []Problem
}

// markerRE matches a marker line; kind and reason are its groups.
var markerRE = regexp.MustCompile(`^\s*<!--\s*docs:\s*([a-z ]+?)\s*(?::\s*(.*?))?\s*-->\s*$`)

// markers are the kinds of marker a page may carry before a fence.
var markers = map[string]bool{"not compiled": true, "not checked": true}

var (
	fenceRE   = regexp.MustCompile("^(\\s*)(`{3,}|~{3,})\\s*([^`]*)$")
	headingRE = regexp.MustCompile(`^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$`)
	anchorRE  = regexp.MustCompile(`<a\s+(?:id|name)="([^"]+)"`)
	linkRE    = regexp.MustCompile(`!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*<?([^()\s<>]+)>?(?:\s+"[^"]*")?\s*\)`)
	refDefRE  = regexp.MustCompile(`^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+"[^"]*")?\s*$`)
	htmlRefRE = regexp.MustCompile(`\b(?:href|src)="([^"]+)"`)
)

// Parse reads a Markdown page: its fenced blocks (with their markers), its
// links outside code, its inline code spans and its anchors.
func Parse(path string, src []byte) *Page {
	pg := &Page{Path: path, Anchors: make(map[string]bool)}
	lines := strings.SplitAfter(string(src), "\n")
	if n := len(lines); n > 0 && lines[n-1] == "" {
		lines = lines[:n-1]
	}
	var para []string // lines of the current paragraph
	paraStart := 0
	flush := func() {
		if len(para) > 0 {
			pg.scanText(paraStart, strings.Join(para, ""))
			para = nil
		}
	}
	pendingMarker, markerLine := "", 0
	slugs := make(map[string]int)
	for i := 0; i < len(lines); i++ {
		ln := i + 1
		line := lines[i]
		trimmed := strings.TrimRight(line, "\r\n")
		if m := markerRE.FindStringSubmatch(trimmed); m != nil {
			flush()
			if pendingMarker != "" {
				pg.problem(markerLine, "docs marker not followed by a fenced block")
			}
			switch {
			case !markers[m[1]]:
				pg.problem(ln, fmt.Sprintf("unknown docs marker %q (want \"not compiled: REASON\" or \"not checked: REASON\")", m[1]))
			case strings.TrimSpace(m[2]) == "":
				pg.problem(ln, fmt.Sprintf("docs marker %q gives no reason (want <!-- docs: %s: REASON -->)", m[1], m[1]))
				pendingMarker, markerLine = "(no reason)", ln
			default:
				pendingMarker, markerLine = m[2], ln
			}
			continue
		}
		if m := fenceRE.FindStringSubmatch(trimmed); m != nil {
			flush()
			indent, fence := len(m[1]), m[2]
			b := Block{Line: ln, Lang: firstWord(m[3]), Skip: pendingMarker}
			pendingMarker = ""
			var body strings.Builder
			closed := false
			for i++; i < len(lines); i++ {
				l := strings.TrimRight(lines[i], "\r\n")
				if t := strings.TrimSpace(l); strings.HasPrefix(t, fence[:1]) && strings.Trim(t, fence[:1]) == "" && len(t) >= len(fence) {
					closed = true
					break
				}
				body.WriteString(dedent(l, indent) + "\n")
			}
			if !closed {
				pg.problem(ln, "fenced block is never closed")
			}
			b.Text = body.String()
			pg.Blocks = append(pg.Blocks, b)
			continue
		}
		if strings.TrimSpace(trimmed) == "" {
			flush() // blank lines between a marker and its fence are allowed
			continue
		}
		if pendingMarker != "" {
			pg.problem(markerLine, "docs marker not followed by a fenced block")
			pendingMarker = ""
		}
		if m := headingRE.FindStringSubmatch(trimmed); m != nil {
			flush()
			s := Slug(m[2])
			if n := slugs[s]; n > 0 {
				pg.Anchors[fmt.Sprintf("%s-%d", s, n)] = true
			} else {
				pg.Anchors[s] = true
			}
			slugs[s]++
			pg.scanText(ln, trimmed+"\n")
			continue
		}
		if len(para) == 0 {
			paraStart = ln
		}
		para = append(para, line)
	}
	flush()
	if pendingMarker != "" {
		pg.problem(markerLine, "docs marker not followed by a fenced block")
	}
	return pg
}

func (pg *Page) problem(line int, msg string) {
	pg.Problems = append(pg.Problems, Problem{Page: pg.Path, Line: line, Msg: msg})
}

// scanText collects the code spans, links and anchors of a paragraph
// that starts at line start.
func (pg *Page) scanText(start int, text string) {
	lineAt := func(off int) int { return start + strings.Count(text[:off], "\n") }
	// Blank out code spans, keeping offsets and newlines, so that link
	// syntax inside them is not read as a link.
	plain := []byte(text)
	for i := 0; i < len(text); {
		if text[i] != '`' {
			i++
			continue
		}
		n := 1
		for i+n < len(text) && text[i+n] == '`' {
			n++
		}
		run := text[i : i+n]
		end := indexRun(text, run, i+n)
		if end < 0 {
			i += n
			continue
		}
		content := text[i+n : end]
		pg.Spans = append(pg.Spans, Span{Line: lineAt(i), Text: strings.TrimSpace(strings.ReplaceAll(content, "\n", " "))})
		for k := i; k < end+n; k++ {
			if plain[k] != '\n' {
				plain[k] = ' '
			}
		}
		i = end + n
	}
	s := string(plain)
	for _, m := range linkRE.FindAllStringSubmatchIndex(s, -1) {
		pg.Links = append(pg.Links, Link{Line: lineAt(m[2]), Target: s[m[2]:m[3]]})
	}
	for _, m := range htmlRefRE.FindAllStringSubmatchIndex(s, -1) {
		pg.Links = append(pg.Links, Link{Line: lineAt(m[2]), Target: s[m[2]:m[3]]})
	}
	for _, m := range anchorRE.FindAllStringSubmatch(s, -1) {
		pg.Anchors[m[1]] = true
	}
	off := 0
	for _, l := range strings.SplitAfter(s, "\n") {
		if m := refDefRE.FindStringSubmatchIndex(strings.TrimRight(l, "\n")); m != nil {
			pg.Links = append(pg.Links, Link{Line: lineAt(off), Target: l[m[2]:m[3]]})
		}
		off += len(l)
	}
}

// indexRun returns the offset of the next run of exactly len(run)
// backticks in s at or after from, or -1.
func indexRun(s, run string, from int) int {
	for i := from; i < len(s); {
		j := strings.Index(s[i:], run)
		if j < 0 {
			return -1
		}
		j += i
		end := j + len(run)
		if (j == 0 || s[j-1] != '`') && (end == len(s) || s[end] != '`') {
			return j
		}
		for end < len(s) && s[end] == '`' {
			end++
		}
		i = end
	}
	return -1
}

// dedent removes up to n leading spaces from l.
func dedent(l string, n int) string {
	for n > 0 && strings.HasPrefix(l, " ") {
		l, n = l[1:], n-1
	}
	return l
}

func firstWord(s string) string {
	f := strings.FieldsFunc(s, func(r rune) bool { return unicode.IsSpace(r) || r == '{' || r == ',' })
	if len(f) == 0 {
		return ""
	}
	return strings.ToLower(f[0])
}

var (
	inlineLinkRE = regexp.MustCompile(`!?\[([^\]]*)\]\([^)]*\)`)
	htmlTagRE    = regexp.MustCompile(`<[^>]+>`)
)

// Slug is the anchor GitHub gives a heading's text: the rendered text
// (code spans, links and emphasis reduced to their words), lower-cased,
// every character but letters, digits, '_', '-' and spaces dropped, and
// spaces turned into '-'. A repeated slug gets -1, -2, ... (Parse adds
// those).
func Slug(heading string) string {
	// Outside code spans (the odd pieces between backticks), links become
	// their text and HTML tags and emphasis go.
	parts := strings.Split(heading, "`")
	for i := 0; i < len(parts); i += 2 {
		parts[i] = inlineLinkRE.ReplaceAllString(parts[i], "$1")
		parts[i] = htmlTagRE.ReplaceAllString(parts[i], "")
		parts[i] = strings.ReplaceAll(parts[i], "*", "")
	}
	t := strings.Join(parts, "")
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(t)) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r):
			b.WriteRune(r)
		}
	}
	return b.String()
}
