package main

import (
	"errors"
	"fmt"
	"net/url"
	"path"
	"regexp"
	"strconv"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/yaml"
)

// completionIndexEnv is the variable an Indexed Job's pods hold their
// completion index in; completionIndexPath is the field it comes from.
const (
	completionIndexEnv  = "JOB_COMPLETION_INDEX"
	completionIndexPath = "metadata.annotations['" + batchv1.JobCompletionIndexAnnotation + "']"
)

// The environment variables consim reads (README: Connection settings,
// multi-host run).
const (
	envNATSURL      = "CONSIM_NATS_URL"
	envNATSUser     = "CONSIM_NATS_USER"
	envPasswordFile = "CONSIM_NATS_PASSWORD_FILE"
	envRunKeyFile   = "CONSIM_RUN_KEY_FILE"
)

// runIDRE is what a run id may contain (it names NATS subjects and a
// directory).
var runIDRE = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

// index holds the deployed objects by kind, and the Secrets of the other
// files (templates).
type index struct {
	statefulSets []Object
	jobs         []Object
	services     map[string]*corev1.Service
	configMaps   map[string]*corev1.ConfigMap
	secrets      map[string]*corev1.Secret
	pvcs         map[string]*corev1.PersistentVolumeClaim
	policies     []*networkingv1.NetworkPolicy
	templates    map[string]Object // Secrets outside the kustomization
}

// newIndex indexes m, refusing two deployed objects of one kind and name.
func newIndex(m *Manifests) (*index, error) {
	ix := &index{
		services: map[string]*corev1.Service{}, configMaps: map[string]*corev1.ConfigMap{},
		secrets: map[string]*corev1.Secret{}, pvcs: map[string]*corev1.PersistentVolumeClaim{},
		templates: map[string]Object{},
	}
	seen := map[string]Object{}
	for _, o := range m.Objects {
		if !m.Resources[o.File] {
			if s, ok := o.Obj.(*corev1.Secret); ok {
				ix.templates[s.Name] = o
			}
			continue
		}
		key := o.Kind + "/" + o.Name()
		if prev, ok := seen[key]; ok {
			return nil, fmt.Errorf("%s: same kind and name as %s", o, prev)
		}
		seen[key] = o
		switch x := o.Obj.(type) {
		case *appsv1.StatefulSet:
			ix.statefulSets = append(ix.statefulSets, o)
		case *batchv1.Job:
			ix.jobs = append(ix.jobs, o)
		case *corev1.Service:
			ix.services[x.Name] = x
		case *corev1.ConfigMap:
			ix.configMaps[x.Name] = x
		case *corev1.Secret:
			ix.secrets[x.Name] = x
		case *corev1.PersistentVolumeClaim:
			ix.pvcs[x.Name] = x
		case *networkingv1.NetworkPolicy:
			ix.policies = append(ix.policies, x)
		}
	}
	return ix, nil
}

// Validate loads the manifests of dir and checks them (see Check).
func Validate(dir string) error {
	m, err := Load(dir)
	if err != nil {
		return err
	}
	return Check(m)
}

// Check checks the consim invariants of decoded manifests: hygiene of
// every pod (resources set, no secret in args or env values), the NATS
// cluster (its config, routes, Services, probes and password Secret), the
// coordinator and agents Jobs (an Indexed Job whose completions and
// parallelism are the scenario's agents, --id from the completion index,
// the same run id, scenario and overrides, secrets as mounted files of the
// Secret NATS reads), the Secret template and the NetworkPolicy. It
// returns every problem found, joined.
func Check(m *Manifests) error {
	ix, err := newIndex(m)
	if err != nil {
		return err
	}
	var errs []error
	secretValues := ix.secretValues()
	for _, o := range m.Objects {
		if spec := podSpec(o.Obj); spec != nil {
			errs = append(errs, prefix(o.String(), checkPodHygiene(spec, secretValues))...)
		}
	}
	nats, err := ix.checkNATS()
	if err != nil {
		errs = append(errs, err)
	}
	if nats != nil {
		errs = append(errs, ix.checkJobs(nats)...)
		errs = append(errs, ix.checkPolicies(nats)...)
	}
	errs = append(errs, checkImages(m)...)
	return errors.Join(errs...)
}

// prefix prefixes each error of errs with p.
func prefix(p string, errs []error) []error {
	out := make([]error, len(errs))
	for k, e := range errs {
		out[k] = fmt.Errorf("%s: %w", p, e)
	}
	return out
}

// podSpec returns the pod spec of a workload object, nil for other kinds.
func podSpec(obj metav1.Object) *corev1.PodSpec {
	switch x := obj.(type) {
	case *appsv1.StatefulSet:
		return &x.Spec.Template.Spec
	case *batchv1.Job:
		return &x.Spec.Template.Spec
	case *corev1.Pod:
		return &x.Spec
	}
	return nil
}

// containers returns the init containers and containers of spec.
func containers(spec *corev1.PodSpec) []*corev1.Container {
	var out []*corev1.Container
	for k := range spec.InitContainers {
		out = append(out, &spec.InitContainers[k])
	}
	for k := range spec.Containers {
		out = append(out, &spec.Containers[k])
	}
	return out
}

// secretValues returns the values of every Secret, deployed or template,
// mapped to where they are defined: none may appear in args or env.
func (ix *index) secretValues() map[string]string {
	out := map[string]string{}
	add := func(s *corev1.Secret) {
		for k, v := range s.StringData {
			out[strings.TrimSpace(v)] = s.Name + "/" + k
		}
		for k, v := range s.Data {
			out[strings.TrimSpace(string(v))] = s.Name + "/" + k
		}
	}
	for _, s := range ix.secrets {
		add(s)
	}
	for _, o := range ix.templates {
		add(o.Obj.(*corev1.Secret))
	}
	delete(out, "")
	return out
}

// secretFlags are command-line options that would carry a secret in argv
// (nats-server's --pass and --auth among them).
var secretFlags = map[string]bool{"pass": true, "password": true, "auth": true, "token": true}

// valueParts splits a value into the parts that may each be a secret.
var valueParts = regexp.MustCompile(`[=:,;@/\s]+`)

// urlRE matches the URLs in a value.
var urlRE = regexp.MustCompile(`[A-Za-z][A-Za-z0-9+.-]*://[^\s,;'"]+`)

// hexSecret matches what `openssl rand -hex N` makes for N >= 16.
var hexSecret = regexp.MustCompile(`(?i)^[0-9a-f]{32,}$`)

// secretName reports whether an environment variable's name says it holds
// a secret (and not a file naming one).
func secretName(name string) bool {
	n := strings.ToUpper(name)
	if strings.HasSuffix(n, "_FILE") || strings.HasSuffix(n, "_PATH") {
		return false
	}
	for _, w := range []string{"PASSWORD", "PASSWD", "SECRET", "TOKEN", "NKEY", "CREDS"} {
		if strings.Contains(n, w) {
			return true
		}
	}
	return n == "KEY" || strings.HasSuffix(n, "_KEY")
}

// checkValue reports a secret in an argument or literal environment value.
func checkValue(v string, secretValues map[string]string) error {
	if where, ok := secretValues[strings.TrimSpace(v)]; ok {
		return fmt.Errorf("holds the value of Secret key %s", where)
	}
	for _, part := range valueParts.Split(v, -1) {
		if hexSecret.MatchString(part) {
			return fmt.Errorf("looks like a password or key (%d hex digits)", len(part))
		}
	}
	for _, raw := range urlRE.FindAllString(v, -1) {
		if u, err := url.Parse(raw); err == nil && u.User != nil {
			if _, ok := u.User.Password(); ok {
				return errors.New("is a URL with a password")
			}
		}
	}
	return nil
}

// checkPodHygiene checks every container of spec: CPU and memory
// requests and limits set, and no secret in its command, args or literal
// environment values (secrets reach pods as Secret files or, for servers
// that read no files, secretKeyRef variables).
func checkPodHygiene(spec *corev1.PodSpec, secretValues map[string]string) []error {
	var errs []error
	for _, c := range containers(spec) {
		p := "container " + c.Name
		if c.Image == "" {
			errs = append(errs, fmt.Errorf("%s: image is empty", p))
		}
		for _, r := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
			if _, ok := c.Resources.Requests[r]; !ok {
				errs = append(errs, fmt.Errorf("%s: resources.requests.%s is not set", p, r))
			}
			if _, ok := c.Resources.Limits[r]; !ok {
				errs = append(errs, fmt.Errorf("%s: resources.limits.%s is not set", p, r))
			}
		}
		for k, a := range append(append([]string(nil), c.Command...), c.Args...) {
			name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
			if strings.HasPrefix(a, "-") && secretFlags[name] {
				errs = append(errs, fmt.Errorf("%s: argument %d %q passes a secret on the command line; pass a file", p, k, a))
			}
			if err := checkValue(a, secretValues); err != nil {
				errs = append(errs, fmt.Errorf("%s: argument %d %w; secrets come from mounted Secret files", p, k, err))
			}
		}
		for _, e := range c.Env {
			if e.ValueFrom == nil {
				if secretName(e.Name) && e.Value != "" {
					errs = append(errs, fmt.Errorf("%s: env %s holds a literal secret; mount it from a Secret and name the file", p, e.Name))
				} else if err := checkValue(e.Value, secretValues); err != nil {
					errs = append(errs, fmt.Errorf("%s: env %s %w", p, e.Name, err))
				}
			}
			if e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil && isConsim(c) {
				errs = append(errs, fmt.Errorf("%s: env %s reads Secret %s into the environment; consim reads secrets from mounted files only",
					p, e.Name, e.ValueFrom.SecretKeyRef.Name))
			}
		}
		for _, e := range c.EnvFrom {
			if e.SecretRef != nil {
				errs = append(errs, fmt.Errorf("%s: envFrom Secret %s puts secrets in the environment; mount them as files", p, e.SecretRef.Name))
			}
		}
	}
	return errs
}

// isConsim reports whether c runs consim node or coordinator.
func isConsim(c *corev1.Container) bool {
	return len(c.Args) > 0 && (c.Args[0] == "node" || c.Args[0] == "coordinator")
}

// fileSource is where a path in a container comes from.
type fileSource struct {
	kind     string // secret, configMap, persistentVolumeClaim, emptyDir or other
	name     string // the Secret, ConfigMap or claim
	key      string // the Secret or ConfigMap key (secret, configMap)
	readOnly bool
}

func (s fileSource) String() string {
	if s.key != "" {
		return fmt.Sprintf("%s %s key %s", s.kind, s.name, s.key)
	}
	return fmt.Sprintf("%s %s", s.kind, s.name)
}

// resolvePath returns the volume source of file p in container c of spec:
// the deepest volume mount holding p and, for Secret and ConfigMap
// volumes, the key that becomes the file.
func resolvePath(spec *corev1.PodSpec, c *corev1.Container, p string) (fileSource, error) {
	if !path.IsAbs(p) {
		return fileSource{}, fmt.Errorf("path %q is not absolute", p)
	}
	p = path.Clean(p)
	var best *corev1.VolumeMount
	var rel string
	for k := range c.VolumeMounts {
		vm := &c.VolumeMounts[k]
		mp := path.Clean(vm.MountPath)
		switch {
		case p == mp:
			if best == nil || len(mp) > len(best.MountPath) {
				best, rel = vm, ""
			}
		case strings.HasPrefix(p, strings.TrimSuffix(mp, "/")+"/"):
			if best == nil || len(mp) > len(best.MountPath) {
				best, rel = vm, strings.TrimPrefix(p, strings.TrimSuffix(mp, "/")+"/")
			}
		}
	}
	if best == nil {
		return fileSource{}, fmt.Errorf("path %s is on no volume mount of container %s", p, c.Name)
	}
	if best.SubPath != "" {
		rel = path.Join(best.SubPath, rel)
	}
	var vol *corev1.Volume
	for k := range spec.Volumes {
		if spec.Volumes[k].Name == best.Name {
			vol = &spec.Volumes[k]
		}
	}
	if vol == nil {
		return fileSource{}, fmt.Errorf("volume mount %s of container %s names no volume of the pod", best.Name, c.Name)
	}
	keyOf := func(items []corev1.KeyToPath) (string, error) {
		if rel == "" {
			return "", fmt.Errorf("path %s is the mount point of volume %s, not a file in it", p, vol.Name)
		}
		if len(items) == 0 {
			if strings.Contains(rel, "/") {
				return "", fmt.Errorf("path %s: volume %s has no nested files", p, vol.Name)
			}
			return rel, nil
		}
		for _, it := range items {
			if path.Clean(it.Path) == rel {
				return it.Key, nil
			}
		}
		return "", fmt.Errorf("path %s: volume %s projects no item at %s", p, vol.Name, rel)
	}
	src := fileSource{readOnly: best.ReadOnly}
	var err error
	switch {
	case vol.Secret != nil:
		src.kind, src.name = "Secret", vol.Secret.SecretName
		src.key, err = keyOf(vol.Secret.Items)
		src.readOnly = true
	case vol.ConfigMap != nil:
		src.kind, src.name = "ConfigMap", vol.ConfigMap.Name
		src.key, err = keyOf(vol.ConfigMap.Items)
		src.readOnly = true
	case vol.PersistentVolumeClaim != nil:
		src.kind, src.name = "PersistentVolumeClaim", vol.PersistentVolumeClaim.ClaimName
		src.readOnly = src.readOnly || vol.PersistentVolumeClaim.ReadOnly
	case vol.EmptyDir != nil:
		src.kind, src.name = "emptyDir", vol.Name
	default:
		src.kind, src.name = "volume", vol.Name
	}
	return src, err
}

// secretKey names one key of a Secret.
type secretKey struct{ name, key string }

func (s secretKey) String() string { return "Secret " + s.name + " key " + s.key }

// secretFile resolves file p of container c to a Secret key.
func secretFile(spec *corev1.PodSpec, c *corev1.Container, p string) (secretKey, error) {
	src, err := resolvePath(spec, c, p)
	if err != nil {
		return secretKey{}, err
	}
	if src.kind != "Secret" {
		return secretKey{}, fmt.Errorf("path %s is on %s, not a Secret", p, src)
	}
	return secretKey{src.name, src.key}, nil
}

// checkSecretKey checks that key is defined by a Secret: a deployed one,
// or the template of one created outside the kustomization.
func (ix *index) checkSecretKey(k secretKey) error {
	if s, ok := ix.secrets[k.name]; ok {
		if _, ok := s.Data[k.key]; ok {
			return nil
		}
		if _, ok := s.StringData[k.key]; ok {
			return nil
		}
		return fmt.Errorf("Secret %s has no key %s", k.name, k.key)
	}
	o, ok := ix.templates[k.name]
	if !ok {
		return fmt.Errorf("%s: no Secret %s is deployed or templated (a Secret manifest outside the kustomization)", k, k.name)
	}
	s := o.Obj.(*corev1.Secret)
	_, inData := s.Data[k.key]
	_, inString := s.StringData[k.key]
	if !inData && !inString {
		return fmt.Errorf("%s: the template %s has no key %s", k, o, k.key)
	}
	return nil
}

// checkTemplates checks that every value of every Secret template is
// marked as an example, so that it cannot pass for a real secret, and
// that no deployed Secret holds such an example value.
func (ix *index) checkTemplates() []error {
	var errs []error
	for _, o := range ix.templates {
		s := o.Obj.(*corev1.Secret)
		for k, v := range s.StringData {
			if !strings.Contains(strings.ToUpper(v), "EXAMPLE") {
				errs = append(errs, fmt.Errorf("%s: stringData.%s is not marked EXAMPLE: a template holds placeholders, never a real secret", o, k))
			}
		}
		for k, v := range s.Data {
			if !strings.Contains(strings.ToUpper(string(v)), "EXAMPLE") {
				errs = append(errs, fmt.Errorf("%s: data.%s is not marked EXAMPLE: a template holds placeholders, never a real secret", o, k))
			}
		}
	}
	for _, s := range ix.secrets {
		for k, v := range s.StringData {
			if strings.Contains(strings.ToUpper(v), "EXAMPLE") {
				errs = append(errs, fmt.Errorf("deployed Secret %s holds the example value of key %s; create the Secret from random files (secret-example.yaml) and keep the template out of the resources", s.Name, k))
			}
		}
		for k, v := range s.Data {
			if strings.Contains(strings.ToUpper(string(v)), "EXAMPLE") {
				errs = append(errs, fmt.Errorf("deployed Secret %s holds the example value of key %s; create the Secret from random files (secret-example.yaml) and keep the template out of the resources", s.Name, k))
			}
		}
	}
	return errs
}

// envVar returns the variable name of container c, nil if absent.
func envVar(c *corev1.Container, name string) *corev1.EnvVar {
	for k := range c.Env {
		if c.Env[k].Name == name {
			return &c.Env[k]
		}
	}
	return nil
}

// literalEnv returns the literal value of variable name of c.
func literalEnv(c *corev1.Container, name string) (string, bool) {
	e := envVar(c, name)
	if e == nil || e.ValueFrom != nil {
		return "", false
	}
	return e.Value, true
}

// resolveVars expands the $(VAR) references of s from c's environment:
// literal values and ConfigMap keys. Other sources, and variables the
// container does not declare (which Kubernetes leaves unexpanded), are
// errors.
func (ix *index) resolveVars(c *corev1.Container, s string) (string, error) {
	var err error
	out := varRef.ReplaceAllStringFunc(s, func(ref string) string {
		name := varRef.FindStringSubmatch(ref)[1]
		e := envVar(c, name)
		switch {
		case e == nil:
			err = errors.Join(err, fmt.Errorf("$(%s) is not in the container's env, so Kubernetes would pass it verbatim", name))
		case e.ValueFrom == nil:
			return e.Value
		case e.ValueFrom.ConfigMapKeyRef != nil:
			r := e.ValueFrom.ConfigMapKeyRef
			cm, ok := ix.configMaps[r.Name]
			if !ok {
				err = errors.Join(err, fmt.Errorf("$(%s) reads ConfigMap %s, which is not deployed", name, r.Name))
				return ref
			}
			v, ok := cm.Data[r.Key]
			if !ok {
				err = errors.Join(err, fmt.Errorf("$(%s) reads key %s of ConfigMap %s, which has no such key", name, r.Key, r.Name))
			}
			return v
		default:
			err = errors.Join(err, fmt.Errorf("$(%s) comes from neither a literal nor a ConfigMap", name))
		}
		return ref
	})
	return out, err
}

// containerPort resolves a port (number or name) of container c.
func containerPort(c *corev1.Container, p intstr.IntOrString) (int, bool) {
	if p.Type == intstr.Int {
		return int(p.IntVal), p.IntVal > 0
	}
	for _, cp := range c.Ports {
		if cp.Name == p.StrVal {
			return int(cp.ContainerPort), true
		}
	}
	return 0, false
}

// selects reports whether selector matches the labels lbls.
func selects(selector *metav1.LabelSelector, lbls map[string]string) bool {
	if selector == nil {
		return false
	}
	s, err := metav1.LabelSelectorAsSelector(selector)
	return err == nil && !s.Empty() && s.Matches(labels.Set(lbls))
}

// checkImages checks that every image entry of the kustomization renames
// an image some container uses.
func checkImages(m *Manifests) []error {
	used := map[string]bool{}
	for _, o := range m.Deployed() {
		if spec := podSpec(o.Obj); spec != nil {
			for _, c := range containers(spec) {
				name, _, _ := strings.Cut(c.Image, "@")
				if i := strings.LastIndex(name, ":"); i > strings.LastIndex(name, "/") {
					name = name[:i]
				}
				used[name] = true
			}
		}
	}
	var errs []error
	for _, im := range m.Kustomization.Images {
		if !used[im.Name] {
			errs = append(errs, fmt.Errorf("%s: images entry %s names no container image of the resources", KustomizationFile, im.Name))
		}
	}
	return errs
}

// scenarioAgents returns the agents: of scenario YAML text data, after
// the --set overrides sets (agents=N).
func scenarioAgents(data string, sets []string) (int, error) {
	var doc map[string]any
	if err := yaml.Unmarshal([]byte(data), &doc); err != nil {
		return 0, fmt.Errorf("scenario: %w", err)
	}
	var n int
	switch v := doc["agents"].(type) {
	case nil:
		return 0, errors.New("scenario: agents is required")
	case float64:
		if v != float64(int(v)) || v < 1 {
			return 0, fmt.Errorf("scenario: agents %v: want an integer >= 1", v)
		}
		n = int(v)
	default:
		return 0, fmt.Errorf("scenario: agents %v: want an integer >= 1", v)
	}
	for _, s := range sets {
		k, v, ok := strings.Cut(s, "=")
		if !ok || strings.TrimSpace(k) != "agents" {
			continue
		}
		x, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || x < 1 {
			return 0, fmt.Errorf("--set %s: want agents=N with N >= 1", s)
		}
		n = x
	}
	return n, nil
}
