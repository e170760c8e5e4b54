package node

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/consim/consim/consensus"
)

// The tests of this file read docs/protocol.md, the description an
// outsider writes a client from, and check its tables against the code:
// a client written from the document decodes what the code encodes.

// protocolDoc returns docs/protocol.md.
func protocolDoc(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../docs/protocol.md")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// docTable returns the rows of the table after the marker
// "<!-- table: name -->" in doc, each a list of cells without the
// surrounding spaces and backquotes, the header and separator left out.
func docTable(t *testing.T, doc, name string) [][]string {
	t.Helper()
	marker := "<!-- table: " + name + " -->"
	_, rest, ok := strings.Cut(doc, marker)
	if !ok {
		t.Fatalf("docs/protocol.md has no %s", marker)
	}
	var rows [][]string
	for k, line := range strings.Split(strings.TrimLeft(rest, "\n"), "\n") {
		if !strings.HasPrefix(line, "|") {
			break
		}
		if k < 2 {
			continue // header and separator
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		for i, c := range cells {
			cells[i] = strings.Trim(strings.TrimSpace(c), "`")
		}
		rows = append(rows, cells)
	}
	if len(rows) == 0 {
		t.Fatalf("docs/protocol.md: table %s is empty", name)
	}
	return rows
}

// jsonName is the JSON key of a struct field.
func jsonName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	return name
}

// trafficNames returns the JSON keys of the counters of trafficFields,
// in wire order.
func trafficNames(t *testing.T) []string {
	t.Helper()
	var tr Traffic
	v := reflect.ValueOf(&tr).Elem()
	var names []string
	for _, p := range trafficFields(&tr) {
		found := false
		for i := range v.NumField() {
			if v.Field(i).Addr().Pointer() == reflect.ValueOf(p).Pointer() {
				names = append(names, jsonName(v.Type().Field(i)))
				found = true
			}
		}
		if !found {
			t.Fatal("a counter of trafficFields is no field of Traffic")
		}
	}
	return names
}

// TestProtocolDocTrafficCounters: the counters table lists the counters
// in wire order, from index 0, all svarints.
func TestProtocolDocTrafficCounters(t *testing.T) {
	rows := docTable(t, protocolDoc(t), "traffic-counters")
	want := trafficNames(t)
	if len(rows) != len(want) || len(want) != trafficCounters {
		t.Fatalf("the document lists %d counters, the code sends %d (trafficCounters %d)", len(rows), len(want), trafficCounters)
	}
	for i, r := range rows {
		if r[0] != strconv.Itoa(i) || r[1] != want[i] || r[2] != "svarint" {
			t.Errorf("counters row %v: want index %d, counter %s, svarint", r, i, want[i])
		}
	}
}

// TestProtocolDocStatusKinds: the codes of the status kinds.
func TestProtocolDocStatusKinds(t *testing.T) {
	rows := docTable(t, protocolDoc(t), "status-kinds")
	if len(rows) != len(statusKinds) {
		t.Fatalf("the document lists %d status kinds, the code %d", len(rows), len(statusKinds))
	}
	for i, r := range rows {
		if r[0] != strconv.Itoa(i+1) || r[1] != string(statusKinds[i]) {
			t.Errorf("status kinds row %v: want code %d, kind %s", r, i+1, statusKinds[i])
		}
	}
}

// docReader decodes a status frame the way the document's layout table
// says, field by field.
type docReader struct {
	t *testing.T
	b []byte
}

func (r *docReader) uvarint() uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.t.Fatalf("uvarint at %x", r.b)
	}
	r.b = r.b[n:]
	return v
}

func (r *docReader) svarint() int64 {
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.t.Fatalf("svarint at %x", r.b)
	}
	r.b = r.b[n:]
	return v
}

func (r *docReader) string() string {
	n := r.uvarint()
	s := string(r.b[:n])
	r.b = r.b[n:]
	return s
}

func (r *docReader) floats() []float64 {
	v := make([]float64, r.uvarint())
	for k := range v {
		v[k] = math.Float64frombits(binary.LittleEndian.Uint64(r.b))
		r.b = r.b[8:]
	}
	return v
}

// item reads one item of the encoding enc: byte, svarint, string or
// floats.
func (r *docReader) item(enc string) any {
	switch enc {
	case "byte":
		v := r.b[0]
		r.b = r.b[1:]
		return int64(v)
	case "svarint":
		return r.svarint()
	case "uvarint":
		return int64(r.uvarint())
	case "string":
		return r.string()
	case "floats":
		return r.floats()
	}
	r.t.Fatalf("the document names an encoding %q the test does not know", enc)
	return nil
}

// perEntry matches "uvarint count, then per X: a enc, b enc[, c enc][, by ...]".
var perEntry = regexp.MustCompile(`^uvarint count, then per \w+: (.*?)(, by ascending \w+)?$`)

// read reads the field encoded as the layout row says: a single item,
// or a counted list of entries of named items.
func (r *docReader) read(enc string, counters int) any {
	first, _, _ := strings.Cut(enc, ",")
	if m := perEntry.FindStringSubmatch(enc); m != nil {
		var names, encs []string
		for _, p := range strings.Split(m[1], ", ") {
			name, e, ok := strings.Cut(p, " ")
			if !ok {
				r.t.Fatalf("entry item %q: want name and encoding", p)
			}
			names, encs = append(names, name), append(encs, e)
		}
		n := r.uvarint()
		var out []map[string]any
		for range n {
			e := make(map[string]any)
			for k := range names {
				e[names[k]] = r.item(encs[k])
			}
			out = append(out, e)
		}
		return out
	}
	if strings.HasSuffix(enc, " svarints, in the order of the counters table") {
		if want := strconv.Itoa(counters) + " svarints"; !strings.HasPrefix(enc, want) {
			r.t.Errorf("layout: %q, want %s", enc, want)
		}
		v := make([]int64, counters)
		for k := range v {
			v[k] = r.svarint()
		}
		return v
	}
	return r.item(strings.TrimRight(strings.Fields(first)[0], ":"))
}

// TestProtocolDocStatusLayout encodes a status with every field set
// (negative ids and counters among them, which only zig-zag keeps short
// and signed) and decodes it with a reader that follows the document's
// layout table row by row: every value comes back, and nothing is left.
func TestProtocolDocStatusLayout(t *testing.T) {
	doc := protocolDoc(t)
	s := Status{Kind: StatusFinal, ID: 5, PID: -7, Err: "err text", Stop: "stopped", Scenario: "rounds: 3\n",
		Report: consensus.Report{ID: 5, Round: 12, GradEvals: -3, X: []float64{1.5, -2}, Measures: []float64{0.25},
			EdgeDuals: []consensus.EdgeDual{{Peer: 2, Version: -4, Y: []float64{3}}, {Peer: 6, Version: 9, Y: nil}}},
		Traffic: Traffic{DropoutsByPeer: map[int]int64{4: 2, 1: -1}, InjectedLossByPeer: map[int]int64{3: 8},
			RefusedBySubject: map[string]int64{"consim.r.a.1": 3, "consim.r.a.0": 1}}}
	for k, p := range trafficFields(&s.Traffic) {
		*p = int64(k*1000 - 5) // the first ones negative
	}
	frame, err := EncodeStatus(s)
	if err != nil {
		t.Fatal(err)
	}
	counters := docTable(t, doc, "traffic-counters")
	r := &docReader{t: t, b: frame}
	got := make(map[string]any)
	for i, row := range docTable(t, doc, "status-layout") {
		if row[0] != strconv.Itoa(i+1) {
			t.Errorf("layout row %v: want number %d", row, i+1)
		}
		got[row[1]] = r.read(row[2], len(counters))
		if v := regexp.MustCompile("`(\\d+)`").FindStringSubmatch(row[2]); v != nil {
			if want, _ := strconv.ParseInt(v[1], 10, 64); got[row[1]] != want {
				t.Errorf("layout row %v: the frame has %v", row, got[row[1]])
			}
		}
	}
	if len(r.b) != 0 {
		t.Fatalf("%d bytes left after the document's last field", len(r.b))
	}
	if got["format"] != int64(StatusFormat) || got["kind"] != int64(slices.Index(statusKinds[:], StatusFinal)+1) {
		t.Errorf("format %v kind %v", got["format"], got["kind"])
	}
	want := map[string]any{
		"id": int64(5), "pid": int64(-7), "err": "err text", "stop": "stopped", "scenario": "rounds: 3\n",
		"report.id": int64(5), "report.round": int64(12), "report.grad_evals": int64(-3),
		"report.x": []float64{1.5, -2}, "report.measures": []float64{0.25},
		"report.edge_duals":             []map[string]any{{"peer": int64(2), "version": int64(-4), "y": []float64{3}}, {"peer": int64(6), "version": int64(9), "y": []float64{}}},
		"traffic.dropouts_by_peer":      []map[string]any{{"key": int64(1), "value": int64(-1)}, {"key": int64(4), "value": int64(2)}},
		"traffic.injected_loss_by_peer": []map[string]any{{"key": int64(3), "value": int64(8)}},
		"traffic.refused_by_subject":    []map[string]any{{"subject": "consim.r.a.0", "value": int64(1)}, {"subject": "consim.r.a.1", "value": int64(3)}},
	}
	for k, w := range want {
		if !reflect.DeepEqual(got[k], w) {
			t.Errorf("%s: the document's reader got %#v, want %#v", k, got[k], w)
		}
	}
	// The counters, by the names of the counters table.
	byName := make(map[string]int64)
	for k, p := range trafficFields(&s.Traffic) {
		byName[trafficNames(t)[k]] = *p
	}
	values, _ := got["traffic counters"].([]int64)
	for i, row := range counters {
		if i >= len(values) || values[i] != byName[row[1]] {
			t.Errorf("counter %s: the document's reader got %v, want %d", row[1], values, byName[row[1]])
		}
	}
}

// TestProtocolDocFrameHeader reads a frame at the document's offsets.
func TestProtocolDocFrameHeader(t *testing.T) {
	f, err := AppendFrameTo(nil, FrameReduce, 0x010203, []int{7, 9}, 0x0a0b0c, 0x0d0e, []float64{1.5, 2.5, 3.5})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]uint64{"version": FrameVersion, "kind": uint64(FrameReduce), "from": 0x010203, "round": 0x0a0b0c, "phase": 0x0d0e, "count": 3, "nto": 2}
	seen := 0
	for _, row := range docTable(t, protocolDoc(t), "frame-header") {
		off, err1 := strconv.Atoi(row[0])
		size, err2 := strconv.Atoi(row[1])
		if err1 != nil || err2 != nil {
			continue // the variable-length parts
		}
		name := strings.TrimRight(strings.Fields(row[2])[0], ":,")
		w, ok := want[name]
		if !ok {
			t.Errorf("frame header row %v: no field %q", row, name)
			continue
		}
		var v uint64
		for k := size - 1; k >= 0; k-- {
			v = v<<8 | uint64(f[off+k])
		}
		if v != w {
			t.Errorf("%s at offset %d, %d bytes: %#x, want %#x", name, off, size, v, w)
		}
		seen++
	}
	if seen != len(want) || HeaderLen != 18 {
		t.Errorf("the document gives %d of the %d header fields; HeaderLen %d", seen, len(want), HeaderLen)
	}
	if len(f) != 18+4*2+8*3 {
		t.Errorf("frame of %d bytes, want 18 + 4 nto + 8 count", len(f))
	}
}

// TestProtocolDocFrameKinds: the numbers and names of the frame kinds.
func TestProtocolDocFrameKinds(t *testing.T) {
	rows := docTable(t, protocolDoc(t), "frame-kinds")
	for _, r := range rows {
		k, err := strconv.Atoi(r[0])
		if err != nil || FrameKind(k).String() != r[1] || !FrameKind(k).known() {
			t.Errorf("frame kinds row %v: kind %s", r, FrameKind(k))
		}
	}
	if len(rows) != int(FrameCompact) {
		t.Errorf("the document lists %d frame kinds, the code %d", len(rows), FrameCompact)
	}
}

// TestProtocolDocMAC seals a message of each class as the document says,
// with the label of the derived key the document gives, and compares
// with what a transport seals.
func TestProtocolDocMAC(t *testing.T) {
	doc := protocolDoc(t)
	if !strings.Contains(doc, `HMAC-SHA256(K, "consim" || 0x01 || class || run || 0x00 || payload)`) {
		t.Fatal("docs/protocol.md lost the MAC formula")
	}
	rows := docTable(t, doc, "mac-classes")
	classes := []byte{macAgent, macResult, macEval, macStatus, macControl}
	if len(rows) != len(classes) {
		t.Fatalf("the document lists %d classes, the code %d", len(rows), len(classes))
	}
	_, rest, _ := strings.Cut(doc, "<!-- derived-key-label -->")
	m := regexp.MustCompile(`^\x60SHA-256\("(.*?)" \|\| run\)\x60`).FindStringSubmatch(rest)
	if m == nil {
		t.Fatal("docs/protocol.md: no derived key after its marker")
	}
	label := strings.ReplaceAll(m[1], `\x00`, "\x00")
	const run = "r1"
	key := sha256.Sum256([]byte(label + run))
	if !bytes.Equal(key[:], DeriveRunKey(run)) {
		t.Fatalf("the document's derived key of run %s differs from DeriveRunKey", run)
	}
	payload := []byte("any payload")
	for k, r := range rows {
		if len(r[0]) != 1 || r[0][0] != classes[k] {
			t.Errorf("class row %v, want %q", r, classes[k])
			continue
		}
		h := hmac.New(sha256.New, key[:])
		h.Write([]byte("consim"))
		h.Write([]byte{0x01, r[0][0]})
		h.Write([]byte(run))
		h.Write([]byte{0})
		h.Write(payload)
		want := h.Sum(append([]byte(nil), payload...))
		var got []byte
		_ = newMacer(DeriveRunKey(run), run).seal(classes[k], payload, func(msg []byte) error { got = append(got, msg...); return nil })
		if !bytes.Equal(got, want) {
			t.Errorf("class %q: the document's MAC differs from the transport's", r[0])
		}
	}
}

// TestProtocolDocControls: every control kind of the document decodes,
// with the JSON fields it names; no other kind does.
func TestProtocolDocControls(t *testing.T) {
	rows := docTable(t, protocolDoc(t), "control-kinds")
	tags := make(map[string]bool)
	ct := reflect.TypeFor[Control]()
	for i := range ct.NumField() {
		tags[jsonName(ct.Field(i))] = true
	}
	var kinds []string
	for _, r := range rows {
		kinds = append(kinds, r[0])
		if _, err := DecodeControl([]byte(fmt.Sprintf(`{"kind": %q}`, r[0]))); err != nil {
			t.Errorf("control %s: %v", r[0], err)
		}
		for _, f := range strings.Fields(strings.NewReplacer("(hex)", "", "`", "").Replace(r[1])) {
			if !tags[f] {
				t.Errorf("control %s: the document names field %q, Control has %v", r[0], f, tags)
			}
		}
	}
	for _, k := range []ControlKind{ControlStart, ControlStop, ControlAlive, ControlLost, ControlRefuse} {
		if !slices.Contains(kinds, string(k)) {
			t.Errorf("the document lacks control kind %s", k)
		}
	}
	if _, err := DecodeControl([]byte(`{"kind": "resume"}`)); err == nil {
		t.Error("an unknown control kind decoded")
	}
	b, _ := json.Marshal(Control{Kind: ControlStart, Scenario: "ab"})
	if string(b) != `{"kind":"start","scenario":"ab"}` {
		t.Errorf("start control %s", b)
	}
}

// TestProtocolDocClaimPayload: claims are the text the document gives.
func TestProtocolDocClaimPayload(t *testing.T) {
	if !strings.Contains(protocolDoc(t), "the ASCII text `"+claimPrefix+"` followed by 32 hex digits") {
		t.Errorf("docs/protocol.md does not give the claim payload %q + 32 hex digits", claimPrefix)
	}
}
