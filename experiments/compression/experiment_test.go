package compression

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/consim/consim/node"
)

// TestComparisonCountsFrames runs the comparison on a small scenario over
// NATS on TCP and checks the bytes the transport counted against the
// frames' sizes: every agent of the ring publishes one frame per round to
// its two neighbours, of 18 header bytes, 2 destinations of 4 bytes, the
// payload and the 32-byte MAC. DGD's payload is 8 bytes a value; 4-bit
// qsgd's, at n = 100, 1 kind + 1 length + 1 width + 8 scale + 50 levels +
// 13 signs = 74 bytes. top_k's payload varies with the gaps of its
// indices: at least 1 + 1 + 1 + 10 + 80 = 93 bytes.
func TestComparisonCountsFrames(t *testing.T) {
	c := Config{Scenario: filepath.Join("testdata", "small.yaml"), Out: t.TempDir(), Gammas: []float64{0.1, 0.4}}
	res, err := c.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	const agents, rounds, n = 8, 200, 100
	frames := int64(agents * rounds)
	frame := func(payload int) int64 { return frames * int64(node.HeaderLen+2*4+payload+node.MACLen) }
	if len(res.Methods) != 3 {
		t.Fatalf("%d methods, want dgd and two CHOCO-SGD runs", len(res.Methods))
	}
	dgd, top, q4 := res.Methods[0], res.Methods[1], res.Methods[2]
	if dgd.Bytes != frame(8*n) {
		t.Errorf("dgd: %d bytes, want %d", dgd.Bytes, frame(8*n))
	}
	if q4.Bytes != frame(74) {
		t.Errorf("qsgd: %d bytes, want %d", q4.Bytes, frame(74))
	}
	if top.Bytes < frame(93) || top.Bytes > frame(1+1+1+2*10+80) {
		t.Errorf("top_k: %d bytes, want between %d and %d", top.Bytes, frame(93), frame(1+1+1+2*10+80))
	}
	for _, m := range res.Methods {
		if m.Rounds != rounds || m.Msgs != 2*frames || !(m.Gap > 0) || math.IsNaN(m.Consensus) {
			t.Errorf("%s: %d rounds, %d messages, gap %v, consensus error %v", m.Name, m.Rounds, m.Msgs, m.Gap, m.Consensus)
		}
		if m.Step != 0.1 {
			t.Errorf("%s: step %v, want the scenario's 0.1", m.Name, m.Step)
		}
	}
	if len(res.Tuning) != 4 || (top.Gamma != 0.1 && top.Gamma != 0.4) || math.IsNaN(top.Delta) {
		t.Errorf("tuning %+v; top_k gamma %v delta %v", res.Tuning, top.Gamma, top.Delta)
	}
	table := res.Table()
	for _, want := range []string{"| dgd | 0.1 | - | - | 200 |", "| choco_sgd top_k 10% | 0.1 |", "| choco_sgd qsgd 4 bits | 0.1 |", "| top_k 10% |", "| qsgd 4 bits |"} {
		if !strings.Contains(table, want) {
			t.Errorf("table lacks %q:\n%s", want, table)
		}
	}
	t.Logf("\n%s", table)
	if err := res.Check(); err != nil {
		t.Logf("claims on the small scenario: %v", err)
	}
}

// TestCheck names every unmet claim.
func TestCheck(t *testing.T) {
	r := &Result{Methods: []Method{
		{Name: "dgd", Gap: 1, Bytes: 1000},
		{Name: "a", Gap: 1.05, Bytes: 200},
		{Name: "b", Gap: 1.2, Bytes: 201},
	}}
	err := r.Check()
	if err == nil || !strings.Contains(err.Error(), "b: gap 1.2 is not within 10% of DGD's 1") ||
		!strings.Contains(err.Error(), "b: 201 bytes, not 5 times fewer than DGD's 1000") || strings.Contains(err.Error(), "a:") {
		t.Errorf("Check = %v", err)
	}
	r.Methods = r.Methods[:2]
	if err := r.Check(); err != nil {
		t.Errorf("Check = %v, want nil", err)
	}
}

// TestWriteDoc replaces the generated block only, and refuses a page
// without one.
func TestWriteDoc(t *testing.T) {
	path := filepath.Join(t.TempDir(), "page.md")
	page := "# Page\n\n" + BeginMarker + "\nold\n" + EndMarker + "\n\nafter\n"
	if err := os.WriteFile(path, []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteDoc(path, "| new |\n"); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	if want := "# Page\n\n" + BeginMarker + "\n| new |\n" + EndMarker + "\n\nafter\n"; string(b) != want {
		t.Errorf("page:\n%s\nwant:\n%s", b, want)
	}
	if err := os.WriteFile(path, []byte("no block"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteDoc(path, "x"); err == nil || !strings.Contains(err.Error(), "has no generated block") {
		t.Errorf("WriteDoc on a page without a block: %v", err)
	}
}
