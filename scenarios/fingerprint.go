package scenarios

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/consim/consim/consensus/registry"
)

// Canonical is the canonical form of a resolved scenario: what every
// process of a run (the coordinator, each agent process, on any host)
// must agree on before the run starts. It is one line per leaf key,
//
//	key: value
//
// with dotted keys in schema order and every default filled in (the keys
// of Marshal), each value on one line (sequences and mappings in flow
// form). Keys that only the local process reads are left out (see
// localKeys), and a file a key names (graph.file, edges.replay, a
// problem's data file or directory) is given by its base name and the
// SHA-256 of its content, so that hosts that keep the same file under
// different directories agree, and hosts whose copies differ do not.
type Canonical []byte

// localKeys are the keys, and the prefixes of subtrees, that Canonical
// leaves out: where one process writes its results (output.dir), how it
// reaches the bus (runtime.transport, runtime.nats_url), what it may
// spend (runtime.memory_limit), what only the coordinator reads
// (runtime.timeout, metrics.tolerance), the label of the file (name) and
// the sweep grid, which consim run ignores.
var localKeys = []string{"name", "output.dir", "runtime.transport", "runtime.nats_url", "runtime.memory_limit",
	"runtime.timeout", "metrics.tolerance", "sweep"}

// Canonical returns the canonical form of the resolved scenario s (see
// type Canonical). It reads every file the scenario names; a file that
// cannot be read is an error naming its key.
func (s *Scenario) Canonical() (Canonical, error) {
	y, err := s.Marshal()
	if err != nil {
		return nil, err
	}
	var root yaml.Node
	if err := yaml.Unmarshal(y, &root); err != nil || len(root.Content) == 0 {
		return nil, fmt.Errorf("scenarios: canonical form of %s: %v", s.Name, err)
	}
	files := make(map[string]string)
	s.pathKeys(files)
	var b bytes.Buffer
	var ferr error
	flatten(root.Content[0], "", func(key string, v *yaml.Node) {
		if isLocal(key) {
			return
		}
		value := flow(v)
		if p, ok := files[key]; ok && p != "" {
			sum, err := contentSum(p)
			if err != nil && ferr == nil {
				ferr = fmt.Errorf("scenarios: canonical form of %s: %s: %w", s.Name, key, err)
			}
			value = filepath.Base(p) + " sha256:" + sum
		}
		b.WriteString(key)
		b.WriteString(": ")
		b.WriteString(value)
		b.WriteByte('\n')
	})
	if ferr != nil {
		return nil, ferr
	}
	return Canonical(b.Bytes()), nil
}

// Fingerprint returns the SHA-256 of the canonical form c.
func (c Canonical) Fingerprint() [sha256.Size]byte { return sha256.Sum256(c) }

// maxDifferences is how many differing keys Differences names.
const maxDifferences = 3

// Differences names the first keys (at most 3, in schema order) where the
// canonical form other differs from c, with both values: c's labelled
// here, other's labelled there, as in
//
//	rounds is 3000 at the coordinator and 2000 at agent 4
//
// followed by how many more keys differ. A key that only one side has is
// "not set" on the other. It returns "" when the forms are the same.
func (c Canonical) Differences(other []byte, here, there string) string {
	mine, theirs := canonicalLines(c), canonicalLines(other)
	at := make(map[string]int, len(theirs))
	for k, kv := range theirs {
		at[kv[0]] = k
	}
	var diffs []string
	add := func(key, a, b string) {
		diffs = append(diffs, fmt.Sprintf("%s is %s at %s and %s at %s", key, a, here, b, there))
	}
	seen := make(map[string]bool, len(mine))
	for _, kv := range mine {
		seen[kv[0]] = true
		k, ok := at[kv[0]]
		switch {
		case !ok:
			add(kv[0], kv[1], "not set")
		case theirs[k][1] != kv[1]:
			add(kv[0], kv[1], theirs[k][1])
		}
	}
	for _, kv := range theirs {
		if !seen[kv[0]] {
			add(kv[0], "not set", kv[1])
		}
	}
	if len(diffs) == 0 {
		if bytes.Equal(c, other) {
			return ""
		}
		return fmt.Sprintf("the key order differs between %s and %s", here, there)
	}
	msg := strings.Join(diffs[:min(len(diffs), maxDifferences)], "; ")
	if n := len(diffs) - maxDifferences; n > 0 {
		msg += fmt.Sprintf("; and %d more keys", n)
	}
	return msg
}

// canonicalLines splits a canonical form into its (key, value) lines.
func canonicalLines(c []byte) [][2]string {
	var out [][2]string
	for line := range strings.SplitSeq(strings.TrimSuffix(string(c), "\n"), "\n") {
		if line == "" {
			continue
		}
		k, v, _ := strings.Cut(line, ": ")
		out = append(out, [2]string{k, v})
	}
	return out
}

// isLocal reports whether key is one of localKeys or under one of them.
func isLocal(key string) bool {
	for _, l := range localKeys {
		if key == l || strings.HasPrefix(key, l+".") {
			return true
		}
	}
	return false
}

// flatten calls leaf for every leaf of the mapping n in order: a value
// that is not a non-empty mapping, under its dotted key.
func flatten(n *yaml.Node, prefix string, leaf func(key string, v *yaml.Node)) {
	for i := 0; i+1 < len(n.Content); i += 2 {
		key := joinKey(prefix, n.Content[i].Value)
		v := n.Content[i+1]
		if v.Kind == yaml.MappingNode && len(v.Content) > 0 {
			flatten(v, key, leaf)
			continue
		}
		leaf(key, v)
	}
}

// flow renders a YAML value on one line: scalars as written (quoted when
// they hold a line break or control character), sequences as [a, b] and
// mappings as {k: v}.
func flow(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		parts := make([]string, len(n.Content))
		for k, c := range n.Content {
			parts[k] = flow(c)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case yaml.MappingNode:
		parts := make([]string, 0, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			parts = append(parts, flow(n.Content[i])+": "+flow(n.Content[i+1]))
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case yaml.AliasNode:
		return flow(n.Alias)
	}
	if strings.ContainsFunc(n.Value, func(r rune) bool { return r < ' ' }) {
		return strconv.Quote(n.Value)
	}
	return n.Value
}

// pathKeys records, under their dotted keys, the files the scenario
// names: graph.file, edges.replay and every registry.Path of the problem
// and algorithm blocks.
func (s *Scenario) pathKeys(out map[string]string) {
	out["graph.file"] = s.Graph.File
	out["edges.replay"] = s.Edges.Replay
	for _, r := range []registered{&s.Problem, &s.Algorithm} {
		if v := settingsValue(r); v.IsValid() {
			collectPaths(v, r.section(), out)
		}
	}
}

// collectPaths records each registry.Path in v under its dotted key.
func collectPaths(v reflect.Value, key string, out map[string]string) {
	switch {
	case v.Type() == reflect.TypeFor[registry.Path]():
		out[key] = v.String()
	case v.Kind() == reflect.Pointer && !v.IsNil():
		collectPaths(v.Elem(), key, out)
	case v.Kind() == reflect.Struct:
		for _, f := range fieldsOf(v.Type()) {
			collectPaths(v.FieldByIndex(f.index), joinKey(key, f.name), out)
		}
	}
}

// contentSum returns the first 16 hex digits of the SHA-256 of the file at
// path; for a directory, of the names and contents of the regular files
// in it, in name order.
func contentSum(path string) (string, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	if !fi.IsDir() {
		if err := hashFile(h, path); err != nil {
			return "", err
		}
		return hex.EncodeToString(h.Sum(nil))[:16], nil
	}
	entries, err := os.ReadDir(path)
	if err != nil {
		return "", err
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		if e.Type().IsRegular() {
			names = append(names, e.Name())
		}
	}
	slices.Sort(names)
	for _, name := range names {
		fmt.Fprintf(h, "%s\x00", name)
		if err := hashFile(h, filepath.Join(path, name)); err != nil {
			return "", err
		}
	}
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}

// hashFile writes the content of the file at path to w.
func hashFile(w io.Writer, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = io.Copy(w, f)
	return err
}
