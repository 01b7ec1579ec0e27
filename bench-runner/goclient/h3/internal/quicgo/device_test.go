package quicgo

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"math/big"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/quic-go/quic-go"
	"github.com/quic-go/quic-go/http3"

	"transportlab/goclient/internal/job"
)

// device is an in-process HTTP/3 server answering the device's exec API on loopback, with
// a self-signed certificate like the lab device's. It counts connections, requests and the
// requests that arrived in early data (before the handshake completed).
type device struct {
	addr        *net.UDPAddr
	tlsConf     *tls.Config
	flights     *heldFlights
	connections atomic.Int64
	requests    atomic.Int64
	early       atomic.Int64
	// inFlight, when set, holds every request until that many are in flight at once.
	inFlight int
	mu       sync.Mutex
	arrived  int
	all      chan struct{}
	paths    []string
}

var creds = job.Credentials{Username: "labops", Password: "s3cret"}

const answerTimeout = 10 * time.Second

// startDevice serves until the test ends; allow0RTT is the server's choice to accept
// early data (and to say so in its tickets).
func startDevice(t *testing.T, allow0RTT bool) *device {
	t.Helper()
	d := &device{tlsConf: &tls.Config{Certificates: []tls.Certificate{selfSigned(t)}}, all: make(chan struct{})}
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	d.addr = pc.LocalAddr().(*net.UDPAddr)
	d.flights = &heldFlights{PacketConn: pc, held: map[string][][]byte{}, released: map[string]bool{}}
	// Keys of its own, or each handshake's copy of the configuration would make new ones.
	d.rotateTickets(t)
	server := &http3.Server{
		Handler: http.HandlerFunc(d.serve),
		// Per handshake, so that rotateTickets applies to the handshakes after it.
		TLSConfig: &tls.Config{GetConfigForClient: func(*tls.ClientHelloInfo) (*tls.Config, error) {
			d.mu.Lock()
			defer d.mu.Unlock()
			return d.tlsConf.Clone(), nil
		}},
		QUICConfig: &quic.Config{Allow0RTT: allow0RTT},
		ConnContext: func(ctx context.Context, _ *quic.Conn) context.Context {
			d.connections.Add(1)
			return ctx
		},
	}
	go func() { _ = server.Serve(d.flights) }()
	t.Cleanup(func() {
		_ = server.Close()
		_ = pc.Close()
	})
	return d
}

func selfSigned(t *testing.T) tls.Certificate {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	template := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: "device"},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, template, template, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}

// job is a paced job against the device with the test's credentials.
func (d *device) job() job.Job {
	return job.Job{
		Host: "127.0.0.1", Port: d.addr.Port, UsernameEnv: "U", PasswordEnv: "P",
		Paced: true, TimeoutS: answerTimeout.Seconds(),
	}
}

// serve answers "output of <command>" per command of the path; a command "too early"
// is answered 425 (as the device answers a POST in early data); wrong credentials 401.
func (d *device) serve(w http.ResponseWriter, r *http.Request) {
	if remote, err := net.ResolveUDPAddr("udp", r.RemoteAddr); err == nil {
		d.flights.release(remote)
	}
	d.requests.Add(1)
	if !r.TLS.HandshakeComplete {
		d.early.Add(1)
	}
	if user, password, ok := r.BasicAuth(); !ok || user != creds.Username || password != creds.Password {
		w.WriteHeader(http.StatusUnauthorized)
		return
	}
	d.mu.Lock()
	d.paths = append(d.paths, r.URL.EscapedPath())
	d.mu.Unlock()
	if !d.await() {
		http.Error(w, "requests were not in flight together", http.StatusInternalServerError)
		return
	}
	var out strings.Builder
	for _, segment := range strings.Split(strings.TrimPrefix(r.URL.EscapedPath(), "/admin/exec/"), "/") {
		command, err := url.QueryUnescape(segment)
		if err != nil || command == "too early" {
			w.WriteHeader(http.StatusTooEarly)
			return
		}
		out.WriteString("output of " + command + "\n")
	}
	_, _ = w.Write([]byte(out.String()))
}

// holdUntil makes every request wait until n are in flight at once.
func (d *device) holdUntil(n int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.inFlight = n
}

// seen is the path of every authenticated request so far.
func (d *device) seen() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]string(nil), d.paths...)
}

// await holds the request until inFlight requests have arrived; false if they never do.
func (d *device) await() bool {
	d.mu.Lock()
	if d.inFlight == 0 {
		d.mu.Unlock()
		return true
	}
	d.arrived++
	if d.arrived == d.inFlight {
		close(d.all)
	}
	d.mu.Unlock()
	select {
	case <-d.all:
		return true
	case <-time.After(answerTimeout / 2):
		return false
	}
}

// rotateTickets makes every ticket the server issued so far undecryptable by it.
func (d *device) rotateTickets(t *testing.T) {
	t.Helper()
	var key [32]byte
	if _, err := rand.Read(key[:]); err != nil {
		t.Fatal(err)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.tlsConf.SetSessionTicketKeys([][32]byte{key})
}

// heldFlights holds, once enabled, every datagram the server sends to a client (accepted,
// sent later) until a request of that client reached the handler. The client cannot
// complete its handshake without the server's flight, so a request the handler sees while
// its handshake is incomplete was sent as 0-RTT early data; a client that waited for the
// handshake sends nothing until the hold ends (after answerTimeout/2), and its request then
// arrives after the handshake.
type heldFlights struct {
	net.PacketConn
	// dropOut and dropIn lose that many of the next datagrams the size of a request or a
	// response (lossy) sent to the client or arriving from it.
	dropOut, dropIn atomic.Int64
	enabled         atomic.Bool
	mu              sync.Mutex
	// Per client address: nil once released, else its datagrams not yet sent.
	held     map[string][][]byte
	released map[string]bool
}

// lossy tells whether a datagram of n bytes carries a request or a response: larger than
// an ACK alone (a short header and an ACK frame), smaller than the padded datagrams of the
// handshake and of path MTU probes (1,200 bytes and more; a lost probe is no loss to repair).
func lossy(n int) bool { return n > 60 && n < 1200 }

// lose tells whether to drop a datagram of n bytes, taking one from budget if so.
func lose(budget *atomic.Int64, n int) bool {
	return lossy(n) && budget.Add(-1) >= 0
}

func (h *heldFlights) ReadFrom(p []byte) (int, net.Addr, error) {
	for {
		n, addr, err := h.PacketConn.ReadFrom(p)
		if err != nil || !lose(&h.dropIn, n) {
			return n, addr, err
		}
	}
}

func (h *heldFlights) WriteTo(p []byte, addr net.Addr) (int, error) {
	if lose(&h.dropOut, len(p)) {
		return len(p), nil
	}
	key := addr.String()
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.enabled.Load() || h.released[key] {
		return h.PacketConn.WriteTo(p, addr)
	}
	if _, holding := h.held[key]; !holding {
		time.AfterFunc(answerTimeout/2, func() { h.release(addr) })
	}
	h.held[key] = append(h.held[key], append([]byte(nil), p...))
	return len(p), nil
}

// release sends what was held for addr, in order, and lets later datagrams through.
func (h *heldFlights) release(addr net.Addr) {
	key := addr.String()
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.released[key] {
		return
	}
	h.released[key] = true
	for _, datagram := range h.held[key] {
		_, _ = h.PacketConn.WriteTo(datagram, addr)
	}
	delete(h.held, key)
}
