package node

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"os"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
)

// Transport security on NATS: TLS for servers and clients, and the
// credentials a client presents (user and password, a NATS credentials
// file, or an nkey seed file). Every secret is read from a file (or the
// environment, see EnvNATSPasswordFile); none is ever taken on a command
// line or written to a log or a results bundle.

// Where a transport given a URL finds its TLS and credential files when
// NATSOptions leaves them empty (see resolveSecurity): paths, like
// EnvNATSPasswordFile, never secrets.
const (
	EnvNATSTLSCA   = "CONSIM_NATS_TLS_CA"
	EnvNATSTLSCert = "CONSIM_NATS_TLS_CERT"
	EnvNATSTLSKey  = "CONSIM_NATS_TLS_KEY"
	EnvNATSCreds   = "CONSIM_NATS_CREDS"
	EnvNATSNKey    = "CONSIM_NATS_NKEY"
)

// resolveSecurity returns the TLS files, credentials file and nkey seed
// file of o, each taken from its environment variable when o leaves the
// whole group empty.
func resolveSecurity(o NATSOptions) (TLSFiles, string, string) {
	f := o.TLS
	if !f.Set() {
		f = TLSFiles{CA: os.Getenv(EnvNATSTLSCA), Cert: os.Getenv(EnvNATSTLSCert), Key: os.Getenv(EnvNATSTLSKey)}
	}
	creds, nkey := o.CredsFile, o.NKeyFile
	if creds == "" && nkey == "" {
		creds, nkey = os.Getenv(EnvNATSCreds), os.Getenv(EnvNATSNKey)
	}
	return f, creds, nkey
}

// TLSFiles name PEM files. On a server, Cert and Key are its certificate
// and key, and CA, if set, makes it require and verify client
// certificates signed by that CA. On a client, CA verifies the server
// (default: the system's roots) and Cert and Key, if set, are its client
// certificate.
type TLSFiles struct {
	Cert, Key, CA string
}

// Set reports whether any file is named.
func (f TLSFiles) Set() bool { return f.Cert != "" || f.Key != "" || f.CA != "" }

// serverConfig returns the server's TLS configuration (nil when no file
// is named).
func (f TLSFiles) serverConfig() (*tls.Config, error) {
	if !f.Set() {
		return nil, nil
	}
	if f.Cert == "" || f.Key == "" {
		return nil, fmt.Errorf("node: NATS server TLS: certificate %q and key %q: both are required (the CA %q alone verifies clients only with them)", f.Cert, f.Key, f.CA)
	}
	cert, err := tls.LoadX509KeyPair(f.Cert, f.Key)
	if err != nil {
		return nil, fmt.Errorf("node: NATS server TLS: %w", err)
	}
	cfg := &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	if f.CA != "" {
		pool, err := loadCA(f.CA)
		if err != nil {
			return nil, fmt.Errorf("node: NATS server TLS: %w", err)
		}
		cfg.ClientCAs, cfg.ClientAuth = pool, tls.RequireAndVerifyClientCert
	}
	return cfg, nil
}

// loadCA reads a PEM file of CA certificates.
func loadCA(path string) (*x509.CertPool, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("CA file: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(b) {
		return nil, fmt.Errorf("CA file %s: no PEM certificate in it", path)
	}
	return pool, nil
}

// clientOptions returns the connection options of a client with the TLS
// files f, the credentials file creds and the nkey seed file nkey (each
// may be empty).
func clientOptions(f TLSFiles, creds, nkey string) ([]nats.Option, error) {
	var opts []nats.Option
	if f.CA != "" {
		if _, err := loadCA(f.CA); err != nil {
			return nil, fmt.Errorf("node: NATS client TLS: %w", err)
		}
		opts = append(opts, nats.RootCAs(f.CA))
	}
	switch {
	case (f.Cert == "") != (f.Key == ""):
		return nil, fmt.Errorf("node: NATS client TLS: certificate %q and key %q: give both or neither", f.Cert, f.Key)
	case f.Cert != "":
		if _, err := tls.LoadX509KeyPair(f.Cert, f.Key); err != nil {
			return nil, fmt.Errorf("node: NATS client TLS: %w", err)
		}
		opts = append(opts, nats.ClientCert(f.Cert, f.Key))
	}
	if creds != "" && nkey != "" {
		return nil, fmt.Errorf("node: NATS credentials: a credentials file (%s) and an nkey seed file (%s): give one", creds, nkey)
	}
	if creds != "" {
		if _, err := os.Stat(creds); err != nil {
			return nil, fmt.Errorf("node: NATS credentials file: %w", err)
		}
		opts = append(opts, nats.UserCredentials(creds))
	}
	if nkey != "" {
		o, err := nats.NkeyOptionFromSeed(nkey)
		if err != nil {
			return nil, fmt.Errorf("node: NATS nkey seed file %s: %w", nkey, err)
		}
		opts = append(opts, o)
	}
	return opts, nil
}

// ErrInsecureListen is wrapped by the error of a server asked to listen
// beyond loopback with no way to tell its clients apart.
var ErrInsecureListen = errors.New("refusing to serve other hosts without authentication")

// checkExposure refuses a server on a non-loopback interface without
// users and without verified client certificates, unless insecure.
func checkExposure(o NATSServerOptions) error {
	if o.InProcessOnly || o.Insecure || len(o.Users) > 0 || o.TLS.CA != "" || isLoopback(o.Host) {
		return nil
	}
	return fmt.Errorf("node: NATS server on %s: %w: give it a user (--user and --password-file), verify client certificates (--tls-ca), or pass --insecure", o.Host, ErrInsecureListen)
}

// isLoopback reports whether host names only loopback interfaces.
func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// applyTLS sets the TLS options of so from o.
func applyTLS(so *server.Options, o NATSServerOptions) error {
	cfg, err := o.TLS.serverConfig()
	if err != nil || cfg == nil {
		return err
	}
	so.TLSConfig, so.TLS = cfg, true
	so.TLSVerify = cfg.ClientAuth == tls.RequireAndVerifyClientCert
	so.TLSTimeout = 2
	return nil
}
