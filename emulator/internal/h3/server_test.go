package h3

import (
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/quic-go/quic-go"
	"github.com/quic-go/quic-go/http3"
)

// Every route answers over HTTP/3 as the API answers nginx, each device of
// the fleet its own, with commands counted under http3.
func TestHTTP3AnswersAsHTTPSDoes(t *testing.T) {
	f := startFleet(t, [][]tls.CurveID{nil, nil, nil})
	for device := 1; device <= 3; device++ {
		for _, path := range []string{"/admin/exec/show+version", "/admin/exec/show+version/show+running-config",
			"/admin/fleet", "/admin/exec/show+nonsense", "/healthz"} {
			wantCode, want := f.viaNginx(t, http.MethodGet, device, path, "")
			if code, got := f.do(t, http.MethodGet, device, path, "", "s3cret"); code != wantCode || got != want {
				t.Errorf("device %d %s: %d %q, want %d %q", device, path, code, got, wantCode, want)
			}
		}
	}
	if code, got := f.do(t, http.MethodGet, 2, "/admin/exec/show+version", "", "s3cret"); code != 200 ||
		!strings.HasPrefix(got, "lab-r2 uptime is") {
		t.Errorf("device 2 answered %d %q", code, got)
	}
	// A configuration change reaches the device reached, and no other.
	if code, got := f.do(t, http.MethodPost, 3, "/admin/config", "hostname changed-over-h3\n", "s3cret"); code != 200 {
		t.Fatalf("POST: %d %q", code, got)
	}
	if f.stores[2].Hostname() != "changed-over-h3" || f.stores[0].Hostname() != "lab-r1" {
		t.Errorf("hostnames %q %q", f.stores[0].Hostname(), f.stores[2].Hostname())
	}
	// The same GETs each way, then over HTTP/3 one more show version and
	// the upload's two commands (configure terminal, the line).
	commands := f.rec.count(func() int { return f.rec.commands["http3"] })
	viaNginx := f.rec.count(func() int { return f.rec.commands["https"] })
	if viaNginx == 0 || commands != viaNginx+3 {
		t.Errorf("commands over http3 %d, over https %d", commands, viaNginx)
	}
	waitFor(t, "every connection to close", func() bool {
		return f.rec.count(func() int { return f.rec.open[1] + f.rec.open[2] + f.rec.open[3] }) == 0
	})
	if opened := f.rec.count(func() int { return f.rec.opened[2] }); opened != 6 {
		t.Errorf("connections to device 2: %d, want 6", opened)
	}
}

func TestWrongCredentialsGet401(t *testing.T) {
	f := startFleet(t, [][]tls.CurveID{nil})
	for _, password := range []string{"wrong", ""} {
		if code, _ := f.do(t, http.MethodGet, 1, "/admin/exec/show+version", "", password); code != http.StatusUnauthorized {
			t.Errorf("password %q: %d", password, code)
		}
	}
	if n := f.rec.count(func() int { return f.rec.authFailures["http3"] }); n != 2 {
		t.Errorf("authentication failures over http3: %d", n)
	}
}

func TestClientSentIdentityIsReplaced(t *testing.T) {
	f := startFleet(t, [][]tls.CurveID{nil, nil})
	transport := &http3.Transport{TLSClientConfig: f.clientTLS(nil), QUICConfig: clientQUIC}
	defer transport.Close()
	req, _ := http.NewRequest(http.MethodGet, "https://"+f.addr(1)+"/admin/exec/show+version", nil)
	req.SetBasicAuth("labops", "s3cret")
	req.Header.Set("X-Device-Address", f.address(2)) // the device is the one reached, whatever the client says
	resp, err := transport.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	buf := make([]byte, 6)
	if _, err := resp.Body.Read(buf); err != nil || string(buf) != "lab-r1" {
		t.Errorf("answered as %q (%v)", buf, err)
	}
}

func TestOversizeRequestsGetHTTPErrors(t *testing.T) {
	f := startFleet(t, [][]tls.CurveID{nil})
	big := strings.Repeat("x", 1<<20+1)
	if code, _ := f.do(t, http.MethodPost, 1, "/admin/config", big, "s3cret"); code != http.StatusRequestEntityTooLarge {
		t.Errorf("body over 1 MiB: %d", code)
	}
	transport := &http3.Transport{TLSClientConfig: f.clientTLS(nil), QUICConfig: clientQUIC}
	defer transport.Close()
	req, _ := http.NewRequest(http.MethodGet, "https://"+f.addr(1)+"/admin/exec/show+version", nil)
	req.Header.Set("X-Padding", strings.Repeat("p", MaxHeaderBytes))
	resp, err := transport.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestHeaderFieldsTooLarge {
		t.Errorf("header over %d bytes: %d", MaxHeaderBytes, resp.StatusCode)
	}
	if code, _ := f.do(t, http.MethodGet, 1, "/admin/exec/show+version", "", "s3cret"); code != 200 {
		t.Errorf("after the oversize requests: %d", code)
	}
}

// A client that opens streams without end gets MaxStreams at once.
func TestStreamsAreBounded(t *testing.T) {
	f := startFleet(t, [][]tls.CurveID{nil})
	conn, err := quic.DialAddr(context.Background(), f.addr(1), f.clientTLS(nil), clientQUIC)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.CloseWithError(0, "")
	for n := 0; n < MaxStreams; n++ {
		if _, err := conn.OpenStream(); err != nil {
			t.Fatalf("stream %d: %v", n+1, err)
		}
	}
	var limited *quic.StreamLimitReachedError
	if _, err := conn.OpenStream(); !errors.As(err, &limited) {
		t.Errorf("stream %d: %v, want the stream limit", MaxStreams+1, err)
	}
}

// Malformed requests cost the stream, or the connection for a protocol
// violation, never the server.
func TestMalformedRequestsAreContained(t *testing.T) {
	f := startFleet(t, [][]tls.CurveID{nil})
	conn, err := quic.DialAddr(context.Background(), f.addr(1), f.clientTLS(nil), clientQUIC)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.CloseWithError(0, "")
	client := (&http3.Transport{}).NewClientConn(conn)
	// HTTP/1.1 on a request stream: an unknown frame type, then a length
	// past the end of the stream. The request is incomplete: reset.
	stream, err := conn.OpenStream()
	if err != nil {
		t.Fatal(err)
	}
	_, _ = stream.Write([]byte("GET / HTTP/1.1\r\n\r\n"))
	_ = stream.Close()
	var reset *quic.StreamError
	if _, err := io.ReadAll(stream); !errors.As(err, &reset) {
		t.Errorf("the truncated request's stream: %v, want a reset", err)
	}
	if code, _, err := roundTrip(client, http.MethodGet, "https://localhost/healthz", "", ""); err != nil || code != 200 {
		t.Errorf("the same connection after it: %d %v", code, err)
	}
	// A DATA frame before HEADERS breaks the protocol: the connection is closed.
	stream, err = conn.OpenStream()
	if err != nil {
		t.Fatal(err)
	}
	_, _ = stream.Write([]byte{0x00, 0x00})
	select {
	case <-conn.Context().Done():
	case <-time.After(20 * time.Second):
		t.Error("the connection survived a DATA frame before HEADERS")
	}
	if code, _ := f.do(t, http.MethodGet, 1, "/healthz", "", ""); code != 200 {
		t.Errorf("another connection after it: %d", code)
	}
}

func TestShutdownStopsServing(t *testing.T) {
	f := startFleet(t, [][]tls.CurveID{nil})
	if code, _ := f.do(t, http.MethodGet, 1, "/healthz", "", ""); code != 200 {
		t.Fatalf("healthz %d", code)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := f.server.Shutdown(ctx); err != nil {
		t.Errorf("shutdown: %v", err)
	}
	if err := <-f.served; !errors.Is(err, http.ErrServerClosed) {
		t.Errorf("Serve returned %v", err)
	}
}
