package h3

import (
	"context"
	"crypto/tls"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/quic-go/quic-go"
	"github.com/quic-go/quic-go/http3"
)

// sessionCache is a client's session cache that says when a ticket arrives.
type sessionCache struct {
	tls.ClientSessionCache
	stored chan struct{}
}

func newSessionCache() *sessionCache {
	return &sessionCache{ClientSessionCache: tls.NewLRUClientSessionCache(4), stored: make(chan struct{}, 16)}
}

func (c *sessionCache) Put(key string, cs *tls.ClientSessionState) {
	c.ClientSessionCache.Put(key, cs)
	if cs != nil {
		c.stored <- struct{}{}
	}
}

// ticketFrom makes one full handshake with device and waits for the
// session ticket the server sends after it.
func ticketFrom(t *testing.T, f *testFleet, device int) *sessionCache {
	t.Helper()
	cache := newSessionCache()
	transport := &http3.Transport{TLSClientConfig: f.clientTLS(cache), QUICConfig: clientQUIC}
	defer transport.Close()
	if code, _, err := roundTrip(transport, http.MethodGet, "https://"+f.addr(device)+"/healthz", "", ""); err != nil || code != 200 {
		t.Fatalf("first connection: %d %v", code, err)
	}
	<-cache.stored
	return cache
}

// dialEarly opens a connection through a closed relay: everything the
// client sends until release is 0-RTT early data.
func dialEarly(t *testing.T, f *testFleet, device int, cache *sessionCache) (*relay, *quic.Conn, *http3.ClientConn) {
	t.Helper()
	r := newRelay(t, f.addr(device))
	conn, err := quic.DialAddrEarly(context.Background(), r.addr(), f.clientTLS(cache), clientQUIC)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.CloseWithError(0, "") })
	return r, conn, (&http3.Transport{}).NewClientConn(conn)
}

func TestASafeRequestInEarlyDataIsServed(t *testing.T) {
	f := startFleet(t, [][]tls.CurveID{nil, nil})
	cache := ticketFrom(t, f, 2)
	_, want := f.viaNginx(t, http.MethodGet, 2, "/admin/exec/show+version", "")
	relay, conn, client := dialEarly(t, f, 2, cache)

	type answer struct {
		code int
		body string
		err  error
	}
	answered := make(chan answer, 1)
	go func() {
		code, body, err := roundTrip(client, http3.MethodGet0RTT, "https://localhost/admin/exec/show+version", "", "s3cret")
		answered <- answer{code, body, err}
	}()
	waitFor(t, "the server to take the GET as early data", func() bool {
		return f.rec.count(func() int { return f.rec.requests[[2]bool{true, false}] }) == 1
	})
	relay.release()
	got := <-answered
	if got.err != nil || got.code != 200 || got.body != want {
		t.Fatalf("GET in 0-RTT: %d %q %v, want 200 %q", got.code, got.body, got.err, want)
	}
	if !conn.ConnectionState().Used0RTT || !conn.ConnectionState().TLS.DidResume {
		t.Errorf("client: 0-RTT used %v, resumed %v", conn.ConnectionState().Used0RTT, conn.ConnectionState().TLS.DidResume)
	}
	waitFor(t, "the resumed 0-RTT handshake to be counted", func() bool {
		return f.rec.count(func() int { return f.rec.handshakes[[2]bool{true, true}] }) == 1
	})
	if n := f.rec.count(func() int { return f.rec.commands["http3"] }); n != 1 {
		t.Errorf("commands over http3: %d", n)
	}
}

func TestAnUnsafeRequestInEarlyDataIsRefusedUnexecuted(t *testing.T) {
	f := startFleet(t, [][]tls.CurveID{nil})
	cache := ticketFrom(t, f, 1)
	relay, _, client := dialEarly(t, f, 1, cache)

	stream, err := client.OpenRequestStream(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	body := "hostname sent-in-0rtt\n"
	// The header first, then the body in DATA frames: the way to send a
	// request whose method quic-go's client would hold back until the
	// handshake completes.
	req, err := http.NewRequest(http.MethodPost, "https://localhost/admin/config", http.NoBody)
	if err != nil {
		t.Fatal(err)
	}
	req.SetBasicAuth("labops", "s3cret")
	req.Header.Set("Content-Type", "text/plain")
	if err := stream.SendRequestHeader(req); err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(stream, body); err != nil {
		t.Fatal(err)
	}
	if err := stream.Close(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the server to refuse the POST in early data", func() bool {
		return f.rec.count(func() int { return f.rec.requests[[2]bool{true, true}] }) == 1
	})
	relay.release()
	resp, err := stream.ReadResponse()
	if err != nil {
		t.Fatal(err)
	}
	answer, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusTooEarly || !strings.Contains(string(answer), "Too Early") {
		t.Errorf("POST in 0-RTT: %d %q, want 425", resp.StatusCode, answer)
	}
	if hostname := f.stores[0].Hostname(); hostname != "lab-r1" {
		t.Errorf("the refused configuration ran: hostname %q", hostname)
	}
	if n := f.rec.count(func() int { return f.rec.commands["http3"] }); n != 0 {
		t.Errorf("commands executed: %d", n)
	}
	// The same request once the handshake is complete runs.
	if code, _, err := roundTrip(client, http.MethodPost, "https://localhost/admin/config", body, "s3cret"); err != nil || code != 200 {
		t.Errorf("POST after the handshake: %d %v", code, err)
	}
	if hostname := f.stores[0].Hostname(); hostname != "sent-in-0rtt" {
		t.Errorf("hostname after the POST: %q", hostname)
	}
}

func TestAResumedConnectionWithoutEarlyData(t *testing.T) {
	f := startFleet(t, [][]tls.CurveID{nil})
	cache := ticketFrom(t, f, 1)
	conn, err := quic.DialAddr(context.Background(), f.addr(1), f.clientTLS(cache), clientQUIC)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.CloseWithError(0, "")
	if state := conn.ConnectionState(); !state.TLS.DidResume || state.Used0RTT {
		t.Errorf("resumed %v, 0-RTT %v", state.TLS.DidResume, state.Used0RTT)
	}
	client := (&http3.Transport{}).NewClientConn(conn)
	if code, _, err := roundTrip(client, http.MethodPost, "https://localhost/admin/config", "hostname resumed\n", "s3cret"); err != nil || code != 200 {
		t.Fatalf("POST on a resumed connection: %d %v", code, err)
	}
	waitFor(t, "the resumed handshake to be counted", func() bool {
		return f.rec.count(func() int { return f.rec.handshakes[[2]bool{true, false}] }) == 1
	})
	if n := f.rec.count(func() int { return f.rec.requests[[2]bool{false, false}] }); n != 2 { // /healthz, then the POST
		t.Errorf("requests not in early data, accepted: %d", n)
	}
	if n := f.rec.count(func() int { return f.rec.requests[[2]bool{true, false}] + f.rec.requests[[2]bool{true, true}] }); n != 0 {
		t.Errorf("requests in early data: %d", n)
	}
}
