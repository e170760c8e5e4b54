package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/consim/consim/node"
)

// natsSecurity are the NATS client's credentials and TLS files, the
// flags every client command shares: --user with --password-file, or
// --creds, or --nkey; --tls-ca, --tls-cert, --tls-key. Secrets come from
// files only (or $CONSIM_NATS_USER and the file named by
// $CONSIM_NATS_PASSWORD_FILE): flags name paths, never secrets, so ps,
// logs and bundles show none.
type natsSecurity struct {
	user, passwordFile string
	creds, nkey        string
	tls                node.TLSFiles
}

// addNATSSecurityFlags adds the client security flags to cmd.
func addNATSSecurityFlags(cmd *cobra.Command, s *natsSecurity) {
	f := cmd.Flags()
	f.StringVar(&s.user, "user", "", "NATS `user` (its password from --password-file; env "+node.EnvNATSUser+")")
	f.StringVar(&s.passwordFile, "password-file", "", "`file` holding the NATS user's password (env "+node.EnvNATSPasswordFile+")")
	f.StringVar(&s.creds, "creds", "", "NATS credentials `file` (user JWT and nkey seed; env "+node.EnvNATSCreds+")")
	f.StringVar(&s.nkey, "nkey", "", "NATS nkey seed `file`, e.g. one of consim nats users (env "+node.EnvNATSNKey+")")
	addTLSFlags(cmd, &s.tls, "CA `file` (PEM) that verifies the server (env "+node.EnvNATSTLSCA+")",
		"client certificate `file` (PEM; env "+node.EnvNATSTLSCert+")", "client key `file` (PEM; env "+node.EnvNATSTLSKey+")")
	for _, name := range []string{"password-file", "creds", "nkey"} {
		mustComplete(cmd, name, cobra.FixedCompletions(nil, cobra.ShellCompDirectiveDefault))
	}
	mustComplete(cmd, "user", cobra.NoFileCompletions)
}

// addTLSFlags adds --tls-ca, --tls-cert and --tls-key.
func addTLSFlags(cmd *cobra.Command, t *node.TLSFiles, ca, cert, key string) {
	f := cmd.Flags()
	f.StringVar(&t.CA, "tls-ca", "", ca)
	f.StringVar(&t.Cert, "tls-cert", "", cert)
	f.StringVar(&t.Key, "tls-key", "", key)
	for _, name := range []string{"tls-ca", "tls-cert", "tls-key"} {
		mustComplete(cmd, name, cobra.FixedCompletions(nil, cobra.ShellCompDirectiveDefault))
	}
}

// apply sets the credentials and TLS files of o; the password is read
// from its file here.
func (s natsSecurity) apply(o *node.NATSOptions) error {
	pw, err := s.password()
	if err != nil {
		return err
	}
	if s.user != "" {
		o.User, o.Password = s.user, pw
	}
	o.CredsFile, o.NKeyFile, o.TLS = s.creds, s.nkey, s.tls
	return nil
}

// password checks that --user and --password-file come together and
// reads the password from its file ("" without a user).
func (s natsSecurity) password() (string, error) {
	if (s.user == "") != (s.passwordFile == "") {
		return "", usagef("--user %q and --password-file %q: give both or neither", s.user, s.passwordFile)
	}
	if s.passwordFile == "" {
		return "", nil
	}
	pw, err := node.ReadSecretFile(s.passwordFile)
	if err != nil {
		return "", usageError{fmt.Errorf("--password-file: %w", err)}
	}
	return pw, nil
}

// export sets the environment variables that give the transports this
// process makes (consim run and sweep build theirs from the scenario)
// the credentials and TLS files: node.EnvNATSUser and
// node.EnvNATSPasswordFile, node.EnvNATSTLSCA, ... Only paths enter the
// environment.
func (s natsSecurity) export() error {
	if _, err := s.password(); err != nil {
		return err
	}
	for _, kv := range [][2]string{{node.EnvNATSUser, s.user}, {node.EnvNATSPasswordFile, s.passwordFile},
		{node.EnvNATSCreds, s.creds}, {node.EnvNATSNKey, s.nkey},
		{node.EnvNATSTLSCA, s.tls.CA}, {node.EnvNATSTLSCert, s.tls.Cert}, {node.EnvNATSTLSKey, s.tls.Key}} {
		if kv[1] == "" {
			continue
		}
		if err := os.Setenv(kv[0], kv[1]); err != nil {
			return fmt.Errorf("set %s: %w", kv[0], err)
		}
	}
	return nil
}

// args returns the flags that give a child process the same security
// (paths only).
func (s natsSecurity) args() []string {
	var out []string
	for _, kv := range [][2]string{{"--user", s.user}, {"--password-file", s.passwordFile}, {"--creds", s.creds}, {"--nkey", s.nkey},
		{"--tls-ca", s.tls.CA}, {"--tls-cert", s.tls.Cert}, {"--tls-key", s.tls.Key}} {
		if kv[1] != "" {
			out = append(out, kv[0], kv[1])
		}
	}
	return out
}
