package scenarios

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// roundTrip checks Parse(Marshal(s)) == s on every exported field.
func roundTrip(t *testing.T, s *Scenario) {
	t.Helper()
	out, err := s.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	back, err := Parse(out, "resolved.yaml")
	if err != nil {
		t.Fatalf("Parse(Marshal(s)): %v\n%s", err, out)
	}
	a, b := *s, *back
	a.src, b.src = source{}, source{}
	a.reg, b.reg = nil, nil
	if !reflect.DeepEqual(a, b) {
		t.Errorf("round trip changed the scenario\nbefore %+v\n after %+v\nyaml:\n%s", a, b, out)
	}
	if err := back.Validate(); err != nil {
		t.Errorf("resolved scenario does not validate: %v\n%s", err, out)
	}
}

func TestMarshalRoundTrip(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "e.txt"), []byte("0 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		sets []string
	}{
		{"defaults", nil},
		{"p_range and params", []string{"graph.p_range=[0.25, 0.75]", "algorithm.penalty=2", "algorithm.m_y=.inf", "algorithm.smoothing=0.001"}},
		{"grid and box", []string{"graph={topology: grid, rows: 2, cols: 2}", "problem.box=[-.inf, 3.5]", "seed=18446744073709551615"}},
		{"edge file", []string{"graph={topology: file, file: e.txt}"}},
		{"runtime", []string{"runtime={transport: nats-tcp, nats_url: 'nats://h:4222', phase_deadline: 250ms, timeout: 1h30m}", "name='yes'"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Parse([]byte(minimal), filepath.Join(dir, "s.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			for _, o := range tt.sets {
				if err := s.Set(o); err != nil {
					t.Fatal(err)
				}
			}
			if err := s.Validate(); err != nil {
				t.Fatal(err)
			}
			roundTrip(t, s)
		})
	}
}

func TestMarshalWritesResolvedValues(t *testing.T) {
	s := parseMinimal(t)
	out, err := s.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"name: x\n", "seed: 1\n", "  p: 1\n", "  model: bernoulli\n", "  box: [-.inf, .inf]\n",
		"  preset: practical\n", "  phase_deadline: 5s\n", "  dir: results\n",
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("Marshal output lacks %q:\n%s", want, out)
		}
	}
	for _, absent := range []string{"rows:", "p_range:", "rho:", "nats_url:"} {
		if strings.Contains(string(out), absent) {
			t.Errorf("Marshal output has %q, which does not apply:\n%s", absent, out)
		}
	}
}
