package phonelink

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"io"
	"io/fs"
	"log"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func mustCreate(t *testing.T, dir string, hosts []string, now time.Time) (tls.Certificate, bool) {
	t.Helper()
	c, created, err := loadOrCreate(dir, hosts, now)
	if err != nil {
		t.Fatal(err)
	}
	return c, created
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestLoadOrCreateCert_CreatesThenReuses(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "tls")
	c1, created, err := LoadOrCreateCert(dir, []string{"192.168.1.23", "ligretto.lan"})
	if err != nil || !created {
		t.Fatalf("first start: created %v, %v", created, err)
	}
	leaf := c1.Leaf
	for _, h := range []string{"192.168.1.23", "ligretto.lan", "localhost", "127.0.0.1", "::1"} {
		if err := leaf.VerifyHostname(h); err != nil {
			t.Errorf("SAN %s: %v", h, err)
		}
	}
	if _, ok := leaf.PublicKey.(*ecdsa.PublicKey); !ok || leaf.PublicKey.(*ecdsa.PublicKey).Curve != elliptic.P256() {
		t.Errorf("key %T, want ECDSA P-256", leaf.PublicKey)
	}
	if life := leaf.NotAfter.Sub(leaf.NotBefore); life < 360*24*time.Hour || life > 370*24*time.Hour {
		t.Errorf("valid for %v, want about a year", life)
	}
	for name, want := range map[string]fs.FileMode{"": 0o700, KeyFile: 0o600} {
		st, err := os.Stat(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode().Perm() != want {
			t.Errorf("%q mode %v, want %v", name, st.Mode().Perm(), want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, MarkerFile)); err != nil {
		t.Errorf("no marker: %v", err)
	}
	certPEM := readFile(t, filepath.Join(dir, CertFile))

	// Second start: the same certificate, untouched files; the order and
	// spelling of hosts do not matter.
	c2, created, err := LoadOrCreateCert(dir, []string{"LIGRETTO.lan", "192.168.1.23", ""})
	if err != nil || created {
		t.Fatalf("second start: created %v, %v", created, err)
	}
	if c2.Leaf.SerialNumber.Cmp(leaf.SerialNumber) != 0 {
		t.Fatalf("serial %v, then %v", leaf.SerialNumber, c2.Leaf.SerialNumber)
	}
	if !bytes.Equal(certPEM, readFile(t, filepath.Join(dir, CertFile))) {
		t.Fatal("cert.pem was rewritten")
	}
	if _, _, err := LoadOrCreateCert(dir, []string{"no spaces please"}); !errors.Is(err, ErrBadHost) {
		t.Fatalf("a bad host: %v", err)
	}
}

func TestLoadOrCreateCert_RemakesWhenHostAdded(t *testing.T) {
	dir := t.TempDir()
	now := time.Now()
	c1, _ := mustCreate(t, dir, []string{"192.168.1.23"}, now)
	c2, created := mustCreate(t, dir, []string{"10.0.0.7"}, now)
	if !created || c2.Leaf.SerialNumber.Cmp(c1.Leaf.SerialNumber) == 0 {
		t.Fatalf("a new host: created %v, serial %v then %v", created, c1.Leaf.SerialNumber, c2.Leaf.SerialNumber)
	}
	for _, h := range []string{"10.0.0.7", "192.168.1.23", "localhost"} {
		if err := c2.Leaf.VerifyHostname(h); err != nil {
			t.Errorf("remade certificate: %v", err)
		}
	}
	// Both hosts are in it now: no new one on the next start.
	c3, created := mustCreate(t, dir, []string{"192.168.1.23"}, now)
	if created || c3.Leaf.SerialNumber.Cmp(c2.Leaf.SerialNumber) != 0 {
		t.Fatalf("back on the first network: created %v", created)
	}
}

func TestLoadOrCreateCert_RemakesWhenExpiring(t *testing.T) {
	dir := t.TempDir()
	now := time.Now()
	c1, _ := mustCreate(t, dir, nil, now)
	// 8 days before the end: kept.
	if _, created := mustCreate(t, dir, nil, c1.Leaf.NotAfter.Add(-8*24*time.Hour)); created {
		t.Fatal("remade 8 days before the end")
	}
	// 6 days before: remade, for a year from then.
	later := c1.Leaf.NotAfter.Add(-6 * 24 * time.Hour)
	c2, created := mustCreate(t, dir, nil, later)
	if !created || !c2.Leaf.NotAfter.After(later.Add(360*24*time.Hour)) {
		t.Fatalf("6 days before the end: created %v, valid to %v", created, c2.Leaf.NotAfter)
	}
	// Expired long ago (a machine left in a drawer): remade too.
	if _, created := mustCreate(t, dir, nil, c2.Leaf.NotAfter.Add(400*24*time.Hour)); !created {
		t.Fatal("an expired certificate was kept")
	}
}

func TestLoadOrCreateCert_RefusesCorrupt(t *testing.T) {
	for _, bad := range []string{CertFile, KeyFile} {
		t.Run(bad, func(t *testing.T) {
			dir := t.TempDir()
			mustCreate(t, dir, nil, time.Now())
			path := filepath.Join(dir, bad)
			junk := []byte("-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydA==\n-----END CERTIFICATE-----\n")
			if bad == KeyFile {
				junk = []byte("hello")
			}
			if err := os.WriteFile(path, junk, 0o600); err != nil {
				t.Fatal(err)
			}
			_, _, err := LoadOrCreateCert(dir, nil)
			var fe *FileError
			if !errors.Is(err, ErrCorrupt) || !errors.As(err, &fe) || fe.Path != path || !strings.Contains(err.Error(), bad) {
				t.Fatalf("got %v, want ErrCorrupt naming %s", err, path)
			}
			if !bytes.Equal(readFile(t, path), junk) {
				t.Fatal("the corrupt file was overwritten")
			}
		})
	}
	t.Run("mismatch", func(t *testing.T) {
		dir, other := t.TempDir(), t.TempDir()
		mustCreate(t, dir, nil, time.Now())
		mustCreate(t, other, nil, time.Now())
		otherKey := readFile(t, filepath.Join(other, KeyFile))
		if err := os.WriteFile(filepath.Join(dir, KeyFile), otherKey, 0o600); err != nil {
			t.Fatal(err)
		}
		_, _, err := LoadOrCreateCert(dir, nil)
		if !errors.Is(err, ErrMismatch) || !strings.Contains(err.Error(), KeyFile) || !strings.Contains(err.Error(), CertFile) {
			t.Fatalf("got %v, want ErrMismatch naming both files", err)
		}
	})
}

// writeForeign puts a valid pair in dir that this package did not make.
func writeForeign(t *testing.T, dir string, hosts []string, notAfter time.Time) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(42), NotBefore: time.Now().Add(-time.Hour), NotAfter: notAfter}
	for _, h := range hosts {
		if ip := net.ParseIP(h); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, h)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kder, _ := x509.MarshalECPrivateKey(key)
	if err := os.WriteFile(filepath.Join(dir, CertFile), pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, KeyFile), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestLoadOrCreateCert_KeepsForeignFiles: the user's own pair is used as it
// is, and never replaced, even when it would need to be.
func TestLoadOrCreateCert_KeepsForeignFiles(t *testing.T) {
	dir := t.TempDir()
	hosts := []string{"localhost", "127.0.0.1", "::1", "table.lan"}
	writeForeign(t, dir, hosts[:1], time.Now().Add(90*24*time.Hour))
	before := readFile(t, filepath.Join(dir, CertFile))
	// It lacks the IPs: a certificate of ours would be remade; this one is not.
	_, created, err := LoadOrCreateCert(dir, nil)
	if !errors.Is(err, ErrNotOurs) || created || !strings.Contains(err.Error(), CertFile) {
		t.Fatalf("got %v, want ErrNotOurs naming cert.pem", err)
	}
	if !bytes.Equal(before, readFile(t, filepath.Join(dir, CertFile))) {
		t.Fatal("the user's certificate was replaced")
	}
	// One that covers every host is used as it is.
	writeForeign(t, dir, hosts, time.Now().Add(90*24*time.Hour))
	c, created, err := LoadOrCreateCert(dir, []string{"table.lan"})
	if err != nil || created || c.Leaf.SerialNumber.Int64() != 42 {
		t.Fatalf("a good foreign pair: created %v, %v", created, err)
	}

	// Replaced by the user after we made ours: theirs now, though the
	// marker is still there (it records hashes, not names alone).
	dir2 := t.TempDir()
	mustCreate(t, dir2, nil, time.Now())
	writeForeign(t, dir2, hosts[:1], time.Now().Add(3*24*time.Hour))
	if _, _, err := LoadOrCreateCert(dir2, nil); !errors.Is(err, ErrNotOurs) {
		t.Fatalf("user's expiring pair over ours: %v", err)
	}

	// Theirs, valid for 3 more days and with every host: used until then.
	writeForeign(t, dir2, hosts, time.Now().Add(3*24*time.Hour))
	if c, created, err := LoadOrCreateCert(dir2, nil); err != nil || created || c.Leaf.SerialNumber.Int64() != 42 {
		t.Fatalf("user's valid pair expiring soon: created %v, %v", created, err)
	}
	// Expired: refused, not replaced.
	writeForeign(t, dir2, hosts, time.Now().Add(-time.Minute))
	if _, _, err := LoadOrCreateCert(dir2, nil); !errors.Is(err, ErrNotOurs) || !strings.Contains(err.Error(), "expired") {
		t.Fatalf("user's expired pair: %v", err)
	}

	// Half a pair: ours is made again, theirs is refused.
	dir3 := t.TempDir()
	mustCreate(t, dir3, nil, time.Now())
	os.Remove(filepath.Join(dir3, KeyFile))
	if _, created := mustCreate(t, dir3, nil, time.Now()); !created {
		t.Fatal("our pair with its key lost was not remade")
	}
	os.Remove(filepath.Join(dir, KeyFile))
	if _, _, err := LoadOrCreateCert(dir, nil); !errors.Is(err, ErrNotOurs) {
		t.Fatalf("the user's certificate without its key: %v", err)
	}
}

// TestLoadOrCreateCert_ServesTLS: a client that trusts the certificate
// completes a handshake for a name in its SANs, and fails for any other.
func TestLoadOrCreateCert_ServesTLS(t *testing.T) {
	cert, _, err := LoadOrCreateCert(t.TempDir(), []string{"referee.test", "192.168.1.23"})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "ok") }))
	ts.TLS = &tls.Config{Certificates: []tls.Certificate{cert}}
	ts.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshakes below are expected
	ts.StartTLS()
	defer ts.Close()
	roots := x509.NewCertPool()
	roots.AddCert(cert.Leaf)
	get := func(serverName string) error {
		tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots, ServerName: serverName}}
		defer tr.CloseIdleConnections()
		resp, err := (&http.Client{Transport: tr, Timeout: 5 * time.Second}).Get(ts.URL)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if string(b) != "ok" {
			t.Fatalf("body %q", b)
		}
		if got := resp.TLS.PeerCertificates[0].SerialNumber; got.Cmp(cert.Leaf.SerialNumber) != 0 {
			t.Fatalf("served serial %v", got)
		}
		return nil
	}
	for _, name := range []string{"referee.test", "localhost", ""} { // "": the URL's 127.0.0.1
		if err := get(name); err != nil {
			t.Fatalf("handshake as %q: %v", name, err)
		}
	}
	var he x509.HostnameError
	if err := get("elsewhere.test"); !errors.As(err, &he) {
		t.Fatalf("a name not in the SANs: %v, want a hostname error", err)
	}
	// Without the certificate in the roots, it is not trusted.
	tr := &http.Transport{TLSClientConfig: &tls.Config{ServerName: "referee.test"}}
	defer tr.CloseIdleConnections()
	var ua x509.UnknownAuthorityError
	if _, err := (&http.Client{Transport: tr}).Get(ts.URL); !errors.As(err, &ua) {
		t.Fatalf("untrusted client: %v", err)
	}
}

func TestLoadCert(t *testing.T) {
	dir := t.TempDir()
	mustCreate(t, dir, nil, time.Now())
	certFile, keyFile := filepath.Join(dir, CertFile), filepath.Join(dir, KeyFile)
	c, err := LoadCert(certFile, keyFile)
	if err != nil || c.Leaf == nil {
		t.Fatalf("LoadCert: %v", err)
	}
	if _, err := LoadCert(filepath.Join(dir, "nope.pem"), keyFile); !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "nope.pem") {
		t.Fatalf("a missing file: %v", err)
	}
	if _, err := LoadCert(keyFile, keyFile); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), KeyFile) {
		t.Fatalf("a key as the certificate: %v", err)
	}
	if _, err := LoadCert(certFile, certFile); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("a certificate as the key: %v", err)
	}
	old := t.TempDir()
	writeForeign(t, old, []string{"localhost"}, time.Now().Add(-time.Minute))
	if _, err := LoadCert(filepath.Join(old, CertFile), filepath.Join(old, KeyFile)); !errors.Is(err, ErrExpired) {
		t.Fatalf("an expired certificate: %v", err)
	}
}

// TestLoadOrCreateCert_Addresses: LANAddresses feeds LoadOrCreateCert.
func TestLoadOrCreateCert_Addresses(t *testing.T) {
	var hosts []string
	for _, ip := range LANAddresses() {
		hosts = append(hosts, ip.String())
	}
	c, _, err := LoadOrCreateCert(t.TempDir(), hosts)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range hosts {
		if !containsIP(c.Leaf.IPAddresses, net.ParseIP(h)) {
			t.Errorf("no SAN for %s", h)
		}
	}
}

func containsIP(ips []net.IP, ip net.IP) bool {
	for _, x := range ips {
		if x.Equal(ip) {
			return true
		}
	}
	return false
}
