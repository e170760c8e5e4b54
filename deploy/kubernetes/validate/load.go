package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

// KustomizationFile is the name of the kustomization in the manifest
// directory.
const KustomizationFile = "kustomization.yaml"

// Kustomization is the part of a kustomization.yaml this validator
// understands; any other field is refused, so that nothing the validator
// cannot see changes what is deployed.
type Kustomization struct {
	APIVersion string           `json:"apiVersion"`
	Kind       string           `json:"kind"`
	Resources  []string         `json:"resources"`
	Images     []KustomizeImage `json:"images,omitempty"`
}

// KustomizeImage is one entry of a kustomization's images: containers whose
// image is Name run NewName:NewTag (or NewName@Digest) instead.
type KustomizeImage struct {
	Name    string `json:"name"`
	NewName string `json:"newName,omitempty"`
	NewTag  string `json:"newTag,omitempty"`
	Digest  string `json:"digest,omitempty"`
}

// kindKey is an object's apiVersion and kind.
type kindKey struct{ apiVersion, kind string }

func (k kindKey) String() string { return k.apiVersion + " " + k.kind }

// kinds are the object kinds a manifest may hold, each with a
// constructor of its typed k8s.io/api value.
var kinds = map[kindKey]func() metav1.Object{
	{"v1", "ConfigMap"}:                       func() metav1.Object { return new(corev1.ConfigMap) },
	{"v1", "Secret"}:                          func() metav1.Object { return new(corev1.Secret) },
	{"v1", "Service"}:                         func() metav1.Object { return new(corev1.Service) },
	{"v1", "PersistentVolumeClaim"}:           func() metav1.Object { return new(corev1.PersistentVolumeClaim) },
	{"v1", "Pod"}:                             func() metav1.Object { return new(corev1.Pod) },
	{"apps/v1", "StatefulSet"}:                func() metav1.Object { return new(appsv1.StatefulSet) },
	{"batch/v1", "Job"}:                       func() metav1.Object { return new(batchv1.Job) },
	{"networking.k8s.io/v1", "NetworkPolicy"}: func() metav1.Object { return new(networkingv1.NetworkPolicy) },
}

// knownKinds lists kinds for error messages.
func knownKinds() string {
	var s []string
	for k := range kinds {
		s = append(s, k.String())
	}
	sort.Strings(s)
	return strings.Join(s, ", ")
}

// Object is one object of a manifest file.
type Object struct {
	File string // file name in the manifest directory
	Doc  int    // 1-based index of its YAML document in the file
	Kind string // its kind, e.g. "StatefulSet"
	Obj  metav1.Object
}

// Name returns the object's metadata.name.
func (o Object) Name() string { return o.Obj.GetName() }

// String names the object and where it was found.
func (o Object) String() string {
	return fmt.Sprintf("%s %s (%s, document %d)", o.Kind, o.Name(), o.File, o.Doc)
}

// Manifests are the decoded files of a manifest directory.
type Manifests struct {
	Dir           string
	Kustomization Kustomization
	// Objects holds every object of every *.yaml file but the
	// kustomization, in file order.
	Objects []Object
	// Resources are the files the kustomization lists: what
	// `kubectl apply -k` deploys. Other files are templates or helpers.
	Resources map[string]bool
}

// Deployed returns the objects of the kustomization's resources.
func (m *Manifests) Deployed() []Object {
	var out []Object
	for _, o := range m.Objects {
		if m.Resources[o.File] {
			out = append(out, o)
		}
	}
	return out
}

// docSep matches a YAML document separator line.
var docSep = regexp.MustCompile(`(?m)^---[ \t]*$`)

// splitDocs returns the YAML documents of data, skipping documents that
// hold only comments and blank lines.
func splitDocs(data []byte) [][]byte {
	var out [][]byte
	for _, d := range docSep.Split(string(data), -1) {
		if !onlyComments(d) {
			out = append(out, []byte(d))
		}
	}
	return out
}

// onlyComments reports whether doc holds no YAML content.
func onlyComments(doc string) bool {
	for _, l := range strings.Split(doc, "\n") {
		l = strings.TrimSpace(l)
		if l != "" && !strings.HasPrefix(l, "#") {
			return false
		}
	}
	return true
}

// Decode decodes the objects of one manifest file named file: each
// document must be a known kind and decode strictly (no unknown or
// duplicate field, every value of its field's type) into its typed
// k8s.io/api object.
func Decode(file string, data []byte) ([]Object, error) {
	docs := splitDocs(data)
	if len(docs) == 0 {
		return nil, fmt.Errorf("%s: no object", file)
	}
	var out []Object
	for k, doc := range docs {
		var tm metav1.TypeMeta
		if err := yaml.Unmarshal(doc, &tm); err != nil {
			return nil, fmt.Errorf("%s: document %d: %w", file, k+1, err)
		}
		if tm.APIVersion == "" || tm.Kind == "" {
			return nil, fmt.Errorf("%s: document %d: apiVersion and kind are required (got apiVersion %q, kind %q)", file, k+1, tm.APIVersion, tm.Kind)
		}
		key := kindKey{tm.APIVersion, tm.Kind}
		newObj, ok := kinds[key]
		if !ok {
			return nil, fmt.Errorf("%s: document %d: kind %s is not one this deployment uses (%s)", file, k+1, key, knownKinds())
		}
		obj := newObj()
		if err := yaml.UnmarshalStrict(doc, obj); err != nil {
			return nil, fmt.Errorf("%s: document %d (%s): %w", file, k+1, tm.Kind, err)
		}
		if obj.GetName() == "" {
			return nil, fmt.Errorf("%s: document %d (%s): metadata.name is required", file, k+1, tm.Kind)
		}
		out = append(out, Object{File: file, Doc: k + 1, Kind: tm.Kind, Obj: obj})
	}
	return out, nil
}

// Load decodes the kustomization and every *.yaml file of dir, checking
// that each resource the kustomization lists is one of them.
func Load(dir string) (*Manifests, error) {
	m := &Manifests{Dir: dir, Resources: map[string]bool{}}
	data, err := os.ReadFile(filepath.Join(dir, KustomizationFile))
	if err != nil {
		return nil, fmt.Errorf("manifests: %w", err)
	}
	if err := yaml.UnmarshalStrict(data, &m.Kustomization); err != nil {
		return nil, fmt.Errorf("%s: %w (fields understood: apiVersion, kind, resources, images)", KustomizationFile, err)
	}
	if k := m.Kustomization; k.APIVersion != "kustomize.config.k8s.io/v1beta1" || k.Kind != "Kustomization" {
		return nil, fmt.Errorf("%s: apiVersion %q, kind %q: want kustomize.config.k8s.io/v1beta1, Kustomization", KustomizationFile, k.APIVersion, k.Kind)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("manifests: %w", err)
	}
	files := map[string]bool{}
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || name == KustomizationFile || !(strings.HasSuffix(name, ".yaml") || strings.HasSuffix(name, ".yml")) {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return nil, fmt.Errorf("manifests: %w", err)
		}
		objs, err := Decode(name, bytes.TrimPrefix(b, []byte("\ufeff")))
		if err != nil {
			return nil, err
		}
		files[name] = true
		m.Objects = append(m.Objects, objs...)
	}
	if len(m.Kustomization.Resources) == 0 {
		return nil, fmt.Errorf("%s: resources is empty", KustomizationFile)
	}
	for _, r := range m.Kustomization.Resources {
		switch {
		case m.Resources[r]:
			return nil, fmt.Errorf("%s: resource %s is listed twice", KustomizationFile, r)
		case !files[r]:
			return nil, fmt.Errorf("%s: resource %s is not a manifest file of %s (resources are files of this directory)", KustomizationFile, r, dir)
		}
		m.Resources[r] = true
	}
	return m, nil
}
