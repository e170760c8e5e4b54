// Command validate checks the consim Kubernetes manifests offline: it
// decodes every manifest of a directory strictly into the typed
// k8s.io/api objects (unknown kinds and fields are errors) and checks the
// invariants a consim run depends on (see Check). It exits with 1 and
// lists every problem when the manifests are broken.
//
// Usage, from this directory:
//
//	go run . [DIR]    # DIR defaults to .., deploy/kubernetes
package main

import (
	"fmt"
	"os"
)

func main() {
	dir := ".."
	switch len(os.Args) {
	case 1:
	case 2:
		dir = os.Args[1]
	default:
		fmt.Fprintln(os.Stderr, "usage: validate [DIR]   (DIR: the manifest directory, default ..)")
		os.Exit(2)
	}
	m, err := Load(dir)
	if err == nil {
		err = Check(m)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "validate %s:\n%v\n", dir, err)
		os.Exit(1)
	}
	fmt.Printf("validate %s: %d objects in %d resources (plus %d objects in templates) ok\n",
		dir, len(m.Deployed()), len(m.Resources), len(m.Objects)-len(m.Deployed()))
}
