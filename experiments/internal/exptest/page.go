package exptest

import (
	"os"
	"strings"
	"testing"
)

// Page markers: a docs page holds a generated table between a line
// "<!-- begin generated: NAME -->" and a line "<!-- end generated: NAME -->".
const (
	beginMark = "<!-- begin generated: "
	endMark   = "<!-- end generated: "
)

// CheckPage compares the section NAME of the docs page at path with want
// (a table rendered from a run's checked-in data), or, with update,
// rewrites the section to want.
func CheckPage(t *testing.T, path, name, want string, update bool) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	page := string(data)
	begin, end := beginMark+name+" -->\n", endMark+name+" -->"
	i := strings.Index(page, begin)
	j := strings.Index(page, end)
	if i < 0 || j < i {
		t.Fatalf("%s: no section %q between %q and %q", path, name, strings.TrimSpace(begin), end)
	}
	got := page[i+len(begin) : j]
	want = strings.TrimRight(want, "\n") + "\n"
	if got == want {
		return
	}
	if update {
		if err := os.WriteFile(path, []byte(page[:i+len(begin)]+want+page[j:]), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s: section %s is stale: it is not the table of the checked-in data (run the test with -update)\n--- page\n%s--- data\n%s", path, name, got, want)
}
