package gnmi

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"log/slog"
	"math/big"
	"net"
	"strconv"
	"sync"
	"testing"
	"time"

	gpb "github.com/openconfig/gnmi/proto/gnmi"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/metadata"

	"transportlab/emulator/internal/api"
	"transportlab/emulator/internal/configdb"
	"transportlab/emulator/internal/fleet"
)

// The test fleet: device k on 127.0.0.32+k, all on one wildcard socket.
const fleetBlock = "127.0.0.32/28"

var account = api.Credentials{Username: "labops", Password: "s3cret"}

// recorder keeps what the server reports.
type recorder struct {
	mu            sync.Mutex
	rpcs          map[[2]string]int // {rpc, code}
	subscriptions map[string]int
	updates       map[string]int
	dropped       int
	authFailures  int
}

func (r *recorder) GNMIRPC(rpc, code string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.rpcs[[2]string{rpc, code}]++
}

func (r *recorder) GNMISubscriptionOpened(mode string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.subscriptions[mode]++
}

func (r *recorder) GNMISubscriptionClosed(mode string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.subscriptions[mode]--
}

func (r *recorder) GNMIUpdates(mode string, n int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.updates[mode] += n
}

func (r *recorder) GNMISubscriptionDropped() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.dropped++
}

func (r *recorder) AuthFailed(string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.authFailures++
}

func (r *recorder) read(f func() int) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return f()
}

// testFleet is a running server for a fleet of devices seeded as platform.
type testFleet struct {
	plan   fleet.Plan
	stores configdb.Fleet
	rec    *recorder
	port   int
	roots  *x509.CertPool
	server *Server
}

func startFleet(t *testing.T, platform string, size int) *testFleet {
	t.Helper()
	return startFleetWithGroups(t, platform, make([][]tls.CurveID, size))
}

// startFleetWithGroups gives device k the TLS groups groups[k-1].
func startFleetWithGroups(t *testing.T, platform string, groups [][]tls.CurveID) *testFleet {
	t.Helper()
	size := len(groups)
	plan, err := fleet.New("lab-r1", size, fleetBlock)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, d := range plan.Devices() {
		names = append(names, d.Name)
	}
	stores, err := configdb.SeededFleet(platform, names)
	if err != nil {
		t.Fatal(err)
	}
	f := &testFleet{plan: plan, stores: stores, rec: &recorder{rpcs: map[[2]string]int{},
		subscriptions: map[string]int{}, updates: map[string]int{}}}
	certificate, roots := testCertificate(t)
	f.roots = roots
	server, err := New(Options{Platform: platform, Stores: stores, Plan: plan, Credentials: account,
		Certificate: certificate, Groups: groups, Recorder: f.rec, Log: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp4", "0.0.0.0:0")
	if err != nil {
		t.Fatal(err)
	}
	f.port, f.server = ln.Addr().(*net.TCPAddr).Port, server
	served := make(chan error, 1)
	go func() { served <- server.Serve(ln) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = server.Shutdown(ctx)
		if err := <-served; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	return f
}

// testCertificate is a self-signed P-256 certificate for localhost; and a
// pool trusting it.
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

// client connects to device k.
func (f *testFleet) client(t *testing.T, device int) gpb.GNMIClient {
	t.Helper()
	d, _ := f.plan.Device(device)
	return f.dial(t, d.Address.String())
}

// dial connects to the server on address, trusting its certificate.
func (f *testFleet) dial(t *testing.T, address string, options ...grpc.DialOption) gpb.GNMIClient {
	t.Helper()
	options = append(options,
		grpc.WithTransportCredentials(credentials.NewTLS(&tls.Config{RootCAs: f.roots, ServerName: "localhost"})))
	conn, err := grpc.NewClient(net.JoinHostPort(address, strconv.Itoa(f.port)), options...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return gpb.NewGNMIClient(conn)
}

// ctx is a call context carrying the account, bounded in time.
func ctx(t *testing.T, password string) context.Context {
	t.Helper()
	c, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return metadata.AppendToOutgoingContext(c, "username", account.Username, "password", password)
}

// path builds a gNMI path from "/a/b[k=v]/c" (no "/" or "]" inside keys).
func path(t *testing.T, text string) *gpb.Path {
	t.Helper()
	p := &gpb.Path{}
	if text == "/" {
		return p
	}
	for _, part := range splitPath(text) {
		e, err := parseElem(part)
		if err != nil {
			t.Fatalf("path %q: %v", text, err)
		}
		p.Elem = append(p.Elem, &gpb.PathElem{Name: e.Name, Key: e.Keys})
	}
	return p
}

func splitPath(text string) []string {
	var parts []string
	depth, start := 0, 1
	for k := 1; k < len(text); k++ {
		switch text[k] {
		case '[':
			depth++
		case ']':
			depth--
		case '/':
			if depth == 0 {
				parts = append(parts, text[start:k])
				start = k + 1
			}
		}
	}
	return append(parts, text[start:])
}

// waitFor polls cond for up to a minute: a bound for a loaded machine, not a speed.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
