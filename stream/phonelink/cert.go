// Package phonelink helps a phone on the same Wi-Fi reach the server: a
// self-signed TLS certificate (browsers give the camera only to secure
// pages), the machine's LAN addresses for the URL, and QR codes of that URL
// for a terminal and for the console page. It is pure Go.
package phonelink

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// File names in the directory LoadOrCreateCert keeps.
const (
	CertFile   = "cert.pem"
	KeyFile    = "key.pem"
	MarkerFile = ".made-by-ligretto"
)

const (
	certLifetime = 365 * 24 * time.Hour
	// renewBefore: a certificate this close to its end is made again, so a
	// match never starts on one that expires during it.
	renewBefore = 7 * 24 * time.Hour
)

// defaultHosts are in every certificate made here.
var defaultHosts = []string{"localhost", "127.0.0.1", "::1"}

// Sentinel errors, matched with errors.Is; a *FileError names the file.
var (
	// ErrCorrupt: a file is not a PEM certificate or private key.
	ErrCorrupt = errors.New("not a valid PEM certificate or private key")
	// ErrMismatch: the private key does not belong to the certificate.
	ErrMismatch = errors.New("the private key does not match the certificate")
	// ErrNotOurs: the certificate must be made again (expiring, a host
	// missing, its pair missing) but the file was not made by this package,
	// so it is left alone.
	ErrNotOurs = errors.New("not made by ligretto, so not replaced")
	// ErrExpired: a certificate given with LoadCert is expired or not yet valid.
	ErrExpired = errors.New("certificate expired or not yet valid")
	// ErrBadHost: a host is neither an IP address nor a DNS name.
	ErrBadHost = errors.New("not an IP address or DNS name")
)

// FileError is an error about one file (or a pair, for ErrMismatch).
type FileError struct {
	Path string
	Err  error
}

func (e *FileError) Error() string { return e.Path + ": " + e.Err.Error() }
func (e *FileError) Unwrap() error { return e.Err }

// LoadCert loads the pair given with --tls-cert and --tls-key. An expired
// certificate is refused: phones would refuse it anyway, with a less
// helpful message.
func LoadCert(certFile, keyFile string) (tls.Certificate, error) {
	c, err := loadPair(certFile, keyFile)
	if err != nil {
		return tls.Certificate{}, err
	}
	if now := time.Now(); now.After(c.Leaf.NotAfter) || now.Before(c.Leaf.NotBefore) {
		return tls.Certificate{}, &FileError{certFile, fmt.Errorf("%w: valid %s to %s",
			ErrExpired, c.Leaf.NotBefore.Format(time.DateOnly), c.Leaf.NotAfter.Format(time.DateOnly))}
	}
	return c, nil
}

// LoadOrCreateCert returns the self-signed certificate kept in dir as
// cert.pem and key.pem, made at the first call and reused after, for hosts
// (names or IP addresses) plus localhost, 127.0.0.1 and ::1. It makes a new
// one, and says so with created, when there is none, when it ends within 7
// days, or when a host is missing from it. Only files this package made
// (recorded by their SHA-256 in dir/.made-by-ligretto) are ever replaced:
// anything else that would need replacing is an ErrNotOurs. A corrupt file
// (ErrCorrupt) or a key of another certificate (ErrMismatch) is always an
// error, never overwritten.
func LoadOrCreateCert(dir string, hosts []string) (cert tls.Certificate, created bool, err error) {
	return loadOrCreate(dir, hosts, time.Now())
}

func loadOrCreate(dir string, hosts []string, now time.Time) (tls.Certificate, bool, error) {
	want, err := normHosts(hosts)
	if err != nil {
		return tls.Certificate{}, false, err
	}
	certPath, keyPath := filepath.Join(dir, CertFile), filepath.Join(dir, KeyFile)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return tls.Certificate{}, false, fmt.Errorf("certificate directory: %w", err)
	}
	marker := readMarker(filepath.Join(dir, MarkerFile))
	certState, err := fileState(certPath, marker)
	if err != nil {
		return tls.Certificate{}, false, err
	}
	keyState, err := fileState(keyPath, marker)
	if err != nil {
		return tls.Certificate{}, false, err
	}

	var reason string
	var keep []string // SANs of the old certificate, kept when remaking
	switch {
	case certState == absent && keyState == absent:
		reason = "none yet"
	case certState == absent || keyState == absent:
		reason = "one of the pair is missing"
	default:
		c, err := loadPair(certPath, keyPath)
		if err != nil {
			return tls.Certificate{}, false, err
		}
		leaf := c.Leaf
		missing := slices.DeleteFunc(slices.Clone(want), func(h string) bool { return leaf.VerifyHostname(h) == nil })
		valid := !now.Before(leaf.NotBefore) && now.Before(leaf.NotAfter)
		switch {
		case !valid || now.Add(renewBefore).After(leaf.NotAfter):
			reason = "expired or expiring on " + leaf.NotAfter.Format(time.DateOnly)
		case len(missing) > 0:
			reason = "no SAN for " + strings.Join(missing, ", ")
		default:
			return c, false, nil
		}
		// The user's own pair, still valid for a few days, serves until
		// then rather than stopping the start.
		if valid && len(missing) == 0 && (certState == foreign || keyState == foreign) {
			return c, false, nil
		}
		// Keep the old names too: a laptop that moves between two networks
		// then stops needing a new certificate (and a new warning on the
		// phone) each time.
		keep = append(slices.Clone(leaf.DNSNames), ipStrings(leaf.IPAddresses)...)
	}
	for _, f := range []struct {
		path  string
		state state
	}{{certPath, certState}, {keyPath, keyState}} {
		if f.state == foreign {
			return tls.Certificate{}, false, &FileError{f.path, fmt.Errorf("%w: it needs replacing (%s); delete it, or pass it with --tls-cert/--tls-key", ErrNotOurs, reason)}
		}
	}
	all, _ := normHosts(append(keep, want...))
	c, err := create(dir, all, now, marker)
	if err != nil {
		return tls.Certificate{}, false, err
	}
	return c, true, nil
}

type state int

const (
	absent  state = iota
	ours          // made here: its hash is in the marker
	foreign       // anything else
)

func fileState(path string, marker map[string]bool) (state, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return absent, nil
	}
	if err != nil {
		return absent, fmt.Errorf("read %s: %w", path, err)
	}
	if marker[markerLine(b, filepath.Base(path))] {
		return ours, nil
	}
	return foreign, nil
}

func sha(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// markerLine is how the marker records one file: "SHA-256 NAME".
func markerLine(data []byte, name string) string { return sha(data) + " " + name }

// readMarker reads the marker's lines. A missing or unreadable marker makes
// every file foreign, which is the safe side.
func readMarker(path string) map[string]bool {
	m := map[string]bool{}
	b, err := os.ReadFile(path)
	if err != nil {
		return m
	}
	for _, l := range strings.Split(string(b), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			m[l] = true
		}
	}
	return m
}

// loadPair parses each file on its own first, so the error names the bad one.
func loadPair(certPath, keyPath string) (tls.Certificate, error) {
	certPEM, err := os.ReadFile(certPath)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("read certificate: %w", err)
	}
	keyPEM, err := os.ReadFile(keyPath)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("read private key: %w", err)
	}
	if err := checkPEM(certPEM, "CERTIFICATE", func(der []byte) error { _, err := x509.ParseCertificate(der); return err }); err != nil {
		return tls.Certificate{}, &FileError{certPath, err}
	}
	if err := checkPEM(keyPEM, "PRIVATE KEY", parseKey); err != nil {
		return tls.Certificate{}, &FileError{keyPath, err}
	}
	c, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return tls.Certificate{}, &FileError{certPath + " and " + keyPath, fmt.Errorf("%w (%v)", ErrMismatch, err)}
	}
	return c, nil
}

// checkPEM finds the first block whose type ends with suffix ("PRIVATE
// KEY" matches EC and RSA keys too) and parses it.
func checkPEM(b []byte, suffix string, parse func([]byte) error) error {
	for {
		var blk *pem.Block
		blk, b = pem.Decode(b)
		if blk == nil {
			return fmt.Errorf("%w: no %s block", ErrCorrupt, suffix)
		}
		if strings.HasSuffix(blk.Type, suffix) {
			if err := parse(blk.Bytes); err != nil {
				return fmt.Errorf("%w: %v", ErrCorrupt, err)
			}
			return nil
		}
	}
}

func parseKey(der []byte) error {
	if _, err := x509.ParsePKCS8PrivateKey(der); err == nil {
		return nil
	}
	if _, err := x509.ParseECPrivateKey(der); err == nil {
		return nil
	}
	_, err := x509.ParsePKCS1PrivateKey(der)
	return err
}

// normHosts adds the defaults, checks, and removes duplicates (IPs compared
// as addresses, names without case).
func normHosts(hosts []string) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	for _, h := range append(slices.Clone(defaultHosts), hosts...) {
		h = strings.TrimSpace(h)
		if h == "" {
			continue
		}
		key := strings.ToLower(h)
		if ip := net.ParseIP(h); ip != nil {
			key = ip.String()
		} else if !validDNSName(h) {
			return nil, fmt.Errorf("host %q: %w", h, ErrBadHost)
		}
		if !seen[key] {
			seen[key] = true
			out = append(out, key)
		}
	}
	return out, nil
}

func validDNSName(h string) bool {
	if len(h) > 253 {
		return false
	}
	for _, label := range strings.Split(strings.TrimSuffix(h, "."), ".") {
		if label == "" || len(label) > 63 {
			return false
		}
		for _, r := range label {
			if !(r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
				return false
			}
		}
	}
	return true
}

func ipStrings(ips []net.IP) []string {
	out := make([]string, len(ips))
	for i, ip := range ips {
		out[i] = ip.String()
	}
	return out
}

// create makes the pair and writes it with the marker. Each file is written
// to a temporary name and renamed, so a crash leaves no half-written file
// (which would then be refused as corrupt).
func create(dir string, hosts []string, now time.Time, oldMarker map[string]bool) (tls.Certificate, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("make a key: %w", err)
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("make a serial number: %w", err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{Organization: []string{"Ligretto referee"}, CommonName: "Ligretto referee (self-signed)"},
		NotBefore:             now.Add(-time.Hour), // a phone whose clock is a little behind
		NotAfter:              now.Add(certLifetime),
		KeyUsage:              x509.KeyUsageDigitalSignature,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
	}
	for _, h := range hosts {
		if ip := net.ParseIP(h); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, h)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("make the certificate: %w", err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("encode the key: %w", err)
	}
	header := "# Made by ligretto on " + now.Format(time.DateOnly) + "; it replaces this file when needed.\n"
	certPEM := append([]byte(header), pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})...)
	keyPEM := append([]byte(header), pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER})...)
	newLines := []string{markerLine(certPEM, CertFile), markerLine(keyPEM, KeyFile)}
	marker := func(lines []string) []byte {
		var b bytes.Buffer
		b.WriteString("# Files that ligretto made here and may replace (SHA-256, name).\n")
		for _, l := range lines {
			b.WriteString(l + "\n")
		}
		return b.Bytes()
	}
	// The marker lists the old files and the new ones until both new ones
	// are in place, so that whenever the process dies, every file that was
	// made here is still known as such.
	both := slices.Sorted(maps.Keys(oldMarker))
	both = append(both, newLines...)
	for _, f := range []struct {
		name string
		data []byte
		perm os.FileMode
	}{{MarkerFile, marker(both), 0o600}, {KeyFile, keyPEM, 0o600}, {CertFile, certPEM, 0o644}, {MarkerFile, marker(newLines), 0o600}} {
		if err := writeAtomic(filepath.Join(dir, f.name), f.data, f.perm); err != nil {
			return tls.Certificate{}, err
		}
	}
	c, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("load the new certificate: %w", err)
	}
	return c, nil
}

func writeAtomic(path string, data []byte, perm os.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer os.Remove(tmp.Name()) // after a successful rename, there is nothing to remove
	if err := tmp.Chmod(perm); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
