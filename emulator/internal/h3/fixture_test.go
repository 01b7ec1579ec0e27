package h3

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/quic-go/quic-go"
	"github.com/quic-go/quic-go/http3"

	"transportlab/emulator/internal/api"
	"transportlab/emulator/internal/engine"
	"transportlab/emulator/internal/fleet"
)

// The test fleet: device k on 127.0.0.16+k, all on one wildcard socket.
const fleetBlock = "127.0.0.16/28"

// recorder keeps what the API and the HTTP/3 server report.
type recorder struct {
	mu           sync.Mutex
	commands     map[string]int  // per transport
	authFailures map[string]int  // per transport
	requests     map[[2]bool]int // {early data, refused}
	handshakes   map[[2]bool]int // {resumed, early data}
	open, opened map[int]int     // connections per device
}

func newRecorder() *recorder {
	return &recorder{commands: map[string]int{}, authFailures: map[string]int{}, requests: map[[2]bool]int{},
		handshakes: map[[2]bool]int{}, open: map[int]int{}, opened: map[int]int{}}
}

func (r *recorder) locked(f func()) {
	r.mu.Lock()
	defer r.mu.Unlock()
	f()
}

func (r *recorder) CommandServed(transport string, _ int, _ string) {
	r.locked(func() { r.commands[transport]++ })
}
func (r *recorder) APIRequest(string, int) {}
func (r *recorder) AuthFailed(transport string) {
	r.locked(func() { r.authFailures[transport]++ })
}
func (r *recorder) HTTP3Request(earlyData, refused bool) {
	r.locked(func() { r.requests[[2]bool{earlyData, refused}]++ })
}
func (r *recorder) HTTP3Handshake(resumed, earlyData bool) {
	r.locked(func() { r.handshakes[[2]bool{resumed, earlyData}]++ })
}
func (r *recorder) HTTP3SessionOpened(device int) {
	r.locked(func() { r.open[device]++; r.opened[device]++ })
}
func (r *recorder) HTTP3SessionClosed(device int) {
	r.locked(func() { r.open[device]-- })
}

// count reads one of the recorder's counts under its lock.
func (r *recorder) count(read func() int) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return read()
}

// waitFor polls until cond holds. The deadline only bounds a failing test:
// a passing one returns as soon as the server has done what cond reads.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// testFleet is an HTTP/3 server for a fleet of len(groups) devices, each
// with its own configuration store, and the same API over plain HTTP as
// nginx reaches it.
type testFleet struct {
	plan   fleet.Plan
	port   int
	rec    *recorder
	stores []engine.ConfigStore
	api    *httptest.Server
	roots  *x509.CertPool
	server *Server
	served chan error
}

func startFleet(t *testing.T, groups [][]tls.CurveID) *testFleet {
	t.Helper()
	plan, err := fleet.New("lab-r1", len(groups), fleetBlock)
	if err != nil {
		t.Fatal(err)
	}
	f := &testFleet{plan: plan, rec: newRecorder(), served: make(chan error, 1)}
	devices := api.Fleet{Platform: "cisco_iosxe", Plan: plan}
	for _, d := range plan.Devices() {
		store := engine.NewMemoryStore(d.Name)
		f.stores = append(f.stores, store)
		devices.Devices = append(devices.Devices, api.Device{Config: store, RESTCONF: http.NotFoundHandler(),
			CryptoProfile: "modern"})
	}
	handler, err := api.NewHandler(testEngine(t), api.Credentials{Username: "labops", Password: "s3cret"}, f.rec, devices)
	if err != nil {
		t.Fatal(err)
	}
	f.api = httptest.NewServer(handler)
	t.Cleanup(f.api.Close)
	certificate, roots := testCertificate(t)
	f.roots = roots
	f.server, err = New(Options{Handler: handler, Certificate: certificate, Plan: plan, Groups: groups, Recorder: f.rec})
	if err != nil {
		t.Fatal(err)
	}
	conn, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4zero})
	if err != nil {
		t.Fatal(err)
	}
	f.port = conn.LocalAddr().(*net.UDPAddr).Port
	go func() { f.served <- f.server.Serve(conn) }()
	t.Cleanup(func() {
		_ = f.server.http.Close()
		conn.Close()
	})
	return f
}

// testEngine answers a few commands, with a pinned clock so that two
// answers to the same command are equal.
func testEngine(t *testing.T) *engine.Engine {
	t.Helper()
	var transcripts []engine.Transcript
	for cmd, body := range map[string]string{
		"show version":        "{{.Hostname}} uptime is {{.Uptime}}\n",
		"show running-config": "hostname {{.Hostname}}\n{{range .ConfigLines}}{{.}}\n{{end}}end\n",
	} {
		tr, err := engine.ParseTranscript(cmd, body)
		if err != nil {
			t.Fatal(err)
		}
		transcripts = append(transcripts, tr)
	}
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	e, err := engine.New(engine.Options{Hostname: "lab-r1", StartedAt: start,
		Now: func() time.Time { return start.Add(time.Hour) }}, transcripts)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// testCertificate is a self-signed P-256 certificate, as the device's, for
// localhost, 127.0.0.1 and the fleet's addresses; and a pool trusting it.
func testCertificate(t *testing.T) (tls.Certificate, *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	template := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "lab-r1"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		DNSNames: []string{"localhost"}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	for host := 1; host <= 19; host++ {
		template.IPAddresses = append(template.IPAddresses, net.IPv4(127, 0, 0, byte(host)))
	}
	der, err := x509.CreateCertificate(rand.Reader, template, template, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	roots.AddCert(leaf)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, roots
}

// addr is device k's HTTP/3 address.
func (f *testFleet) addr(device int) string {
	return net.JoinHostPort(f.address(device), strconv.Itoa(f.port))
}

func (f *testFleet) address(device int) string {
	d, _ := f.plan.Device(device)
	return d.Address.String()
}

// clientTLS trusts the fleet's certificate under the name localhost, so
// connections through a relay resume the sessions of direct ones.
func (f *testFleet) clientTLS(cache tls.ClientSessionCache) *tls.Config {
	return &tls.Config{RootCAs: f.roots, ServerName: "localhost", ClientSessionCache: cache,
		NextProtos: []string{http3.NextProtoH3}}
}

// clientQUIC waits as long as a test may hold the server's answers back.
var clientQUIC = &quic.Config{HandshakeIdleTimeout: 30 * time.Second, MaxIdleTimeout: 30 * time.Second}

// do sends one request over a new HTTP/3 client and returns status and body.
func (f *testFleet) do(t *testing.T, method string, device int, path, body, password string) (int, string) {
	t.Helper()
	transport := &http3.Transport{TLSClientConfig: f.clientTLS(nil), QUICConfig: clientQUIC}
	defer transport.Close()
	code, answer, err := roundTrip(transport, method, "https://"+f.addr(device)+path, body, password)
	if err != nil {
		t.Fatal(err)
	}
	return code, answer
}

// viaNginx sends the request to the API as nginx forwards a client's that
// reached device.
func (f *testFleet) viaNginx(t *testing.T, method string, device int, path, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, f.api.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.SetBasicAuth("labops", "s3cret")
	req.Header.Set(api.DeviceAddressHeader, f.address(device))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(answer)
}

func roundTrip(rt http.RoundTripper, method, url, body, password string) (int, string, error) {
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		return 0, "", err
	}
	if body != "" {
		req.Header.Set("Content-Type", "text/plain")
	}
	if password != "" {
		req.SetBasicAuth("labops", password)
	}
	resp, err := rt.RoundTrip(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(resp.Body)
	if err != nil && !errors.Is(err, io.EOF) {
		return 0, "", err
	}
	return resp.StatusCode, string(answer), nil
}
