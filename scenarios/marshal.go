package scenarios

import (
	"bytes"
	"fmt"

	"go.yaml.in/yaml/v3"
)

// Marshal renders the resolved scenario as YAML: every key with its value
// after defaults and overrides, in schema order. Keys that only apply to
// other choices (graph.rows for a ring, graph.p with p_range) and
// algorithm keys left to the preset are omitted. Parse(Marshal(s))
// yields s again.
func (s *Scenario) Marshal() ([]byte, error) {
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(s); err != nil {
		return nil, fmt.Errorf("scenarios: marshal %s: %w", s.Name, err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("scenarios: marshal %s: %w", s.Name, err)
	}
	return b.Bytes(), nil
}
