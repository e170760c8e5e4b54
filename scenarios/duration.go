package scenarios

import (
	"fmt"
	"time"

	"go.yaml.in/yaml/v3"
)

// Duration is a time.Duration written in YAML as a Go duration string
// such as 500ms, 5s or 10m.
type Duration time.Duration

// Std returns d as a time.Duration.
func (d Duration) Std() time.Duration { return time.Duration(d) }

// String formats d like time.Duration.
func (d Duration) String() string { return time.Duration(d).String() }

// MarshalYAML writes d as a duration string.
func (d Duration) MarshalYAML() (any, error) { return d.String(), nil }

// UnmarshalYAML reads a duration string.
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	v, err := parseDuration(n)
	if err != nil {
		return err
	}
	*d = v
	return nil
}

func parseDuration(n *yaml.Node) (Duration, error) {
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!str" {
		return 0, fmt.Errorf("expected a duration such as 500ms, 5s or 10m, got %s", describe(n))
	}
	v, err := time.ParseDuration(n.Value)
	if err != nil {
		return 0, fmt.Errorf("%q is not a duration (expected e.g. 500ms, 5s, 10m)", n.Value)
	}
	return Duration(v), nil
}
