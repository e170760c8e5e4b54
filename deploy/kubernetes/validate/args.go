package main

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// The flags of `consim node` and `consim coordinator` (see
// `consim node --help`); every one takes a value. --run is the deprecated
// spelling of --run-id.
var (
	commonFlags = []string{"nats", "run-id", "run", "log-level", "set", "creds", "nkey", "password-file", "tls-ca", "tls-cert", "tls-key", "user"}
	nodeFlags   = append([]string{"id"}, commonFlags...)
	coordFlags  = append([]string{"out", "ready-timeout"}, commonFlags...)
)

// Command is a parsed consim command line of a container.
type Command struct {
	Sub   string              // node or coordinator
	Flags map[string][]string // each flag's values, in order
	Args  []string            // the positional arguments
}

// Flag returns the last value of flag name and whether it was given.
func (c *Command) Flag(name string) (string, bool) {
	v := c.Flags[name]
	if len(v) == 0 {
		return "", false
	}
	return v[len(v)-1], true
}

// ParseCommand parses a consim container's args (its command, if set, must
// run consim): the subcommand node or coordinator, then its flags (as
// --flag value or --flag=value) and arguments in any order.
func ParseCommand(command, args []string) (*Command, error) {
	if len(command) > 1 || (len(command) == 1 && !strings.HasSuffix(command[0], "consim")) {
		return nil, fmt.Errorf("command %q: want none (the image's entrypoint) or consim", command)
	}
	if len(args) == 0 {
		return nil, fmt.Errorf("no args: want node or coordinator and its flags")
	}
	c := &Command{Sub: args[0], Flags: map[string][]string{}}
	var known []string
	switch c.Sub {
	case "node":
		known = nodeFlags
	case "coordinator":
		known = coordFlags
	default:
		return nil, fmt.Errorf("subcommand %q: want node or coordinator", c.Sub)
	}
	isKnown := map[string]bool{}
	for _, f := range known {
		isKnown[f] = true
	}
	rest := args[1:]
	for k := 0; k < len(rest); k++ {
		a := rest[k]
		if a == "--" {
			c.Args = append(c.Args, rest[k+1:]...)
			break
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			c.Args = append(c.Args, a)
			continue
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !isKnown[name] {
			sorted := append([]string(nil), known...)
			sort.Strings(sorted)
			return nil, fmt.Errorf("consim %s: unknown flag %s (known: --%s)", c.Sub, a, strings.Join(sorted, ", --"))
		}
		if !hasValue {
			if k+1 == len(rest) {
				return nil, fmt.Errorf("consim %s: flag --%s needs a value", c.Sub, name)
			}
			k++
			value = rest[k]
		}
		if name == "run" {
			name = "run-id"
		}
		c.Flags[name] = append(c.Flags[name], value)
	}
	return c, nil
}

// varRef matches a Kubernetes $(VAR) reference in args.
var varRef = regexp.MustCompile(`\$\(([A-Za-z_][A-Za-z0-9_.-]*)\)`)

// varRefs returns the variables s references as $(VAR).
func varRefs(s string) []string {
	var out []string
	for _, m := range varRef.FindAllStringSubmatch(s, -1) {
		out = append(out, m[1])
	}
	return out
}
