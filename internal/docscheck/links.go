package docscheck

import (
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
)

var schemeRE = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*:`)

// CheckLinks checks every relative link of pages: the file or directory
// it names exists under root (a leading '/' is the root itself, as on
// GitHub), and an #anchor into a Markdown page names one of its headings.
// Links with a scheme (https:, mailto:) are not followed. Pages are looked
// up among pages by path, and read from root otherwise.
func CheckLinks(root string, pages []*Page) []Problem {
	byPath := make(map[string]*Page, len(pages))
	for _, p := range pages {
		byPath[p.Path] = p
	}
	var probs []Problem
	for _, p := range pages {
		for _, l := range p.Links {
			if msg := checkLink(root, p, l.Target, byPath); msg != "" {
				probs = append(probs, Problem{Page: p.Path, Line: l.Line, Msg: msg})
			}
		}
	}
	return probs
}

func checkLink(root string, p *Page, target string, byPath map[string]*Page) string {
	if schemeRE.MatchString(target) || strings.HasPrefix(target, "//") {
		return ""
	}
	file, anchor, _ := strings.Cut(target, "#")
	if f, err := url.PathUnescape(file); err == nil {
		file = f
	}
	rel := p.Path
	if file != "" {
		if strings.HasPrefix(file, "/") {
			rel = path.Clean(strings.TrimPrefix(file, "/"))
		} else {
			rel = path.Clean(path.Join(path.Dir(p.Path), file))
		}
		if rel == ".." || strings.HasPrefix(rel, "../") {
			return "link " + target + " leaves the repository"
		}
		if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(rel))); err != nil {
			return "link " + target + ": no such file or directory " + rel
		}
	}
	if anchor == "" || !strings.HasSuffix(rel, ".md") {
		return ""
	}
	q := byPath[rel]
	if q == nil {
		b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
		if err != nil {
			return "link " + target + ": " + err.Error()
		}
		q = Parse(rel, b)
		byPath[rel] = q
	}
	if a, err := url.PathUnescape(anchor); err == nil {
		anchor = a
	}
	if !q.Anchors[strings.ToLower(anchor)] && !q.Anchors[anchor] {
		return "link " + target + ": " + rel + " has no heading with anchor #" + anchor
	}
	return ""
}
