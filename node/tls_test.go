package node

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// testPKI writes a self-signed CA, a server certificate for 127.0.0.1
// and a client certificate, each signed by the CA, as PEM files in dir.
type testPKI struct{ ca, serverCert, serverKey, clientCert, clientKey string }

func newTestPKI(t *testing.T) testPKI {
	t.Helper()
	dir := t.TempDir()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "consim test CA"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(time.Hour), IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		t.Fatal(err)
	}
	write := func(name, typ string, der []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	leaf := func(serial int64, usage x509.ExtKeyUsage, name string) (string, string) {
		key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		tmpl := &x509.Certificate{SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: name},
			NotBefore: now.Add(-time.Hour), NotAfter: now.Add(time.Hour), ExtKeyUsage: []x509.ExtKeyUsage{usage},
			KeyUsage: x509.KeyUsageDigitalSignature, IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
		if err != nil {
			t.Fatal(err)
		}
		kder, err := x509.MarshalECPrivateKey(key)
		if err != nil {
			t.Fatal(err)
		}
		return write(name+".pem", "CERTIFICATE", der), write(name+"-key.pem", "EC PRIVATE KEY", kder)
	}
	p := testPKI{ca: write("ca.pem", "CERTIFICATE", caDER)}
	p.serverCert, p.serverKey = leaf(2, x509.ExtKeyUsageServerAuth, "server")
	p.clientCert, p.clientKey = leaf(3, x509.ExtKeyUsageClientAuth, "client")
	return p
}

// TestTLSAndPassword serves NATS with TLS (client certificates verified
// by the test CA) and one user, and connects a run's transport: with the
// CA, a client certificate and the password it runs a round trip; without
// the CA (the server's certificate is not trusted), without a client
// certificate, or with a wrong password, it is refused.
func TestTLSAndPassword(t *testing.T) {
	pki := newTestPKI(t)
	user := NATSUser{Name: "consim", Password: "s3cret-from-a-file", Subscribe: []string{">"}}
	srv, err := StartNATSServer(NATSServerOptions{Port: -1, Users: []NATSUser{user},
		TLS: TLSFiles{Cert: pki.serverCert, Key: pki.serverKey, CA: pki.ca}})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { srv.Shutdown(); srv.WaitForShutdown() }()
	key, err := NewRunKey()
	if err != nil {
		t.Fatal(err)
	}
	good := NATSOptions{RunID: "tls", URL: srv.ClientURL(), Key: key, User: user.Name, Password: user.Password,
		TLS: TLSFiles{CA: pki.ca, Cert: pki.clientCert, Key: pki.clientKey}, ConnectTimeout: 2 * time.Second}
	for _, tc := range []struct {
		name string
		edit func(o *NATSOptions)
		ok   bool
	}{
		{"ca+cert+password", func(*NATSOptions) {}, true},
		{"no CA", func(o *NATSOptions) { o.TLS.CA = "" }, false},
		{"no client certificate", func(o *NATSOptions) { o.TLS.Cert, o.TLS.Key = "", "" }, false},
		{"wrong password", func(o *NATSOptions) { o.Password = "guess" }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := good
			tc.edit(&o)
			tr, err := NewNATSTransport(o)
			if !tc.ok {
				if err == nil {
					tr.Close()
					t.Fatal("connected; want refused")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer tr.Close()
			obs, err := tr.Observer()
			if err != nil {
				t.Fatal(err)
			}
			ep, err := tr.Endpoint(0)
			if err != nil {
				t.Fatal(err)
			}
			ready, _ := EncodeStatus(Status{Kind: StatusReady})
			if err := ep.Status(ready); err != nil {
				t.Fatal(err)
			}
			f, ok := <-obs.Statuses()
			if !ok {
				t.Fatal("the observer closed without a status through the TLS connection")
			}
			if s, err := DecodeStatus(f); err != nil || s.Kind != StatusReady {
				t.Fatalf("status %q: %v", f, err)
			}
		})
	}
}

// TestServerRefusesOpenExposure: a server on every interface without
// users or verified client certificates is refused unless Insecure.
func TestServerRefusesOpenExposure(t *testing.T) {
	_, err := StartNATSServer(NATSServerOptions{Host: "0.0.0.0", Port: -1})
	if !errors.Is(err, ErrInsecureListen) {
		t.Fatalf("err = %v, want ErrInsecureListen", err)
	}
	for _, o := range []NATSServerOptions{
		{Host: "0.0.0.0", Port: -1, Insecure: true},
		{Host: "0.0.0.0", Port: -1, Users: []NATSUser{{Name: "u", Password: "p", Subscribe: []string{">"}}}},
		{Host: "127.0.0.1", Port: -1},
	} {
		srv, err := StartNATSServer(o)
		if err != nil {
			t.Fatalf("%+v: %v", o, err)
		}
		srv.Shutdown()
		srv.WaitForShutdown()
	}
}
