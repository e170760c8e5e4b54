package coordinator

import (
	"os"
	"reflect"
	"strings"
	"testing"
)

// TestProtocolDocSummaryTraffic checks the table of summary.json's
// traffic keys in docs/protocol.md against TrafficTotals: every key in
// order, and which of them summary.json leaves out when they are 0.
func TestProtocolDocSummaryTraffic(t *testing.T) {
	b, err := os.ReadFile("../docs/protocol.md")
	if err != nil {
		t.Fatal(err)
	}
	const marker = "<!-- table: summary-traffic -->"
	_, rest, ok := strings.Cut(string(b), marker)
	if !ok {
		t.Fatalf("docs/protocol.md has no %s", marker)
	}
	var rows [][]string
	for k, line := range strings.Split(strings.TrimLeft(rest, "\n"), "\n") {
		if !strings.HasPrefix(line, "|") {
			break
		}
		if k >= 2 {
			cells := strings.Split(strings.Trim(line, "|"), "|")
			for i := range cells {
				cells[i] = strings.TrimSpace(cells[i])
			}
			rows = append(rows, cells)
		}
	}
	typ := reflect.TypeFor[TrafficTotals]()
	if len(rows) != typ.NumField() {
		t.Fatalf("the document lists %d keys, TrafficTotals has %d fields", len(rows), typ.NumField())
	}
	for i, r := range rows {
		name, opts, _ := strings.Cut(typ.Field(i).Tag.Get("json"), ",")
		omit := "no"
		if strings.Contains(opts, "omitempty") {
			omit = "yes"
		}
		if r[0] != name || r[1] != omit {
			t.Errorf("summary traffic row %v: want key %s, omitted when 0: %s", r[:2], name, omit)
		}
	}
}
