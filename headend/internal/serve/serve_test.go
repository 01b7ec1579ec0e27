package serve

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/quic-go/quic-go/http3"

	"transportlab/headend/internal/api"
	"transportlab/headend/internal/metrics"
	"transportlab/headend/internal/sshpool"
	"transportlab/headend/internal/sshtest"
	"transportlab/headend/internal/targets"
	"transportlab/headend/internal/tlscert"
)

type answer struct {
	Reused  bool     `json:"reused"`
	Outputs []string `json:"outputs"`
}

func post(t *testing.T, client *http.Client, url string) (*http.Response, answer) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, url, strings.NewReader(`{"commands": ["show version"]}`))
	if err != nil {
		t.Fatal(err)
	}
	req.SetBasicAuth("automation", "s3cret")
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	var a answer
	if resp.StatusCode != http.StatusOK || json.Unmarshal(data, &a) != nil || len(a.Outputs) != 1 {
		t.Fatalf("%s: status %d, %s", resp.Proto, resp.StatusCode, data)
	}
	return resp, a
}

func get(t *testing.T, client *http.Client, url string) string {
	t.Helper()
	resp, err := client.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("%s: status %d, %s", url, resp.StatusCode, data)
	}
	return string(data)
}

// TestServe runs the whole head-end on loopback: an exec over HTTPS (HTTP/2)
// dials the device and pools the connection, the same exec over HTTP/3
// reuses it, the metrics count both, and cancelling the context shuts
// everything down.
func TestServe(t *testing.T) {
	device := sshtest.Start(t)
	m := metrics.New()
	pool := sshpool.New(sshpool.Config{
		Port: device.Port, User: sshtest.User, Password: sshtest.Password,
		DialTimeout: 10 * time.Second, MaxIdle: 8, Observer: m,
	})
	defer pool.Close()
	list, err := targets.Parse("127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	handler := api.New(api.Config{
		Username: "automation", Password: "s3cret", Targets: list, CommandTimeout: 30 * time.Second,
		Runner: pool, Observer: m, Logger: log,
	})
	cert, err := tlscert.Generate()
	if err != nil {
		t.Fatal(err)
	}
	l, err := Listen("127.0.0.1:0", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- Run(ctx, l, handler, m.Handler(), cert, log) }()

	port := l.TCP.Addr().(*net.TCPAddr).Port
	if udpPort := l.UDP.LocalAddr().(*net.UDPAddr).Port; udpPort != port {
		t.Fatalf("TCP port %d, UDP port %d: want one port", port, udpPort)
	}
	base := fmt.Sprintf("https://127.0.0.1:%d", port)
	exec := base + "/devices/127.0.0.1/exec?ssh=pooled"
	roots := x509.NewCertPool()
	roots.AddCert(cert.Leaf)

	https := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots}, ForceAttemptHTTP2: true}}
	resp, a := post(t, https, exec)
	if resp.ProtoMajor != 2 || a.Reused {
		t.Fatalf("HTTPS: %s, reused %v: want HTTP/2 and a new SSH connection", resp.Proto, a.Reused)
	}
	if got, want := resp.Header.Get("Alt-Svc"), fmt.Sprintf(`h3=":%d"; ma=86400`, port); got != want {
		t.Fatalf("Alt-Svc %q, want %q", got, want)
	}

	h3 := &http3.Transport{TLSClientConfig: &tls.Config{RootCAs: roots}}
	resp, a = post(t, &http.Client{Transport: h3}, exec)
	if resp.ProtoMajor != 3 || !a.Reused {
		t.Fatalf("HTTP/3: %s, reused %v: want HTTP/3 on the pooled SSH connection", resp.Proto, a.Reused)
	}
	if resp.Header.Get("Alt-Svc") != "" {
		t.Fatal("Alt-Svc over HTTP/3")
	}
	if body := get(t, &http.Client{Transport: h3}, base+"/healthz"); !strings.Contains(body, `"ok":true`) {
		t.Fatalf("healthz over HTTP/3: %s", body)
	}
	// The clients go first: the servers' graceful shutdown would wait for them.
	h3.Close()
	https.CloseIdleConnections()

	// TLS 1.2 is accepted, older versions are not.
	for version, ok := range map[uint16]bool{tls.VersionTLS12: true, tls.VersionTLS11: false} {
		conn, err := tls.Dial("tcp", l.TCP.Addr().String(), &tls.Config{RootCAs: roots, MinVersion: version, MaxVersion: version})
		if (err == nil) != ok {
			t.Fatalf("TLS version %x: err %v", version, err)
		}
		if err == nil {
			conn.Close()
		}
	}

	page := get(t, http.DefaultClient, fmt.Sprintf("http://%s/metrics", l.Metrics.Addr()))
	for _, line := range []string{
		`headend_requests_total{outcome="ok",ssh="pooled"} 2`,
		`headend_ssh_dials_total{outcome="ok"} 1`,
		`headend_ssh_pool_idle_connections 1`,
	} {
		if !strings.Contains(page, line+"\n") {
			t.Errorf("metrics: no %q in\n%s", line, page)
		}
	}

	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Run: %v", err)
	}
	for _, addr := range []string{l.TCP.Addr().String(), l.Metrics.Addr().String()} {
		if conn, err := net.Dial("tcp", addr); err == nil {
			conn.Close()
			t.Fatalf("%s still accepts connections after shutdown", addr)
		}
	}
}

// TestListenPortZero: with port 0, TCP and UDP get one port together.
func TestListenPortZero(t *testing.T) {
	for range 5 {
		l, err := Listen("127.0.0.1:0", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		tcp, udp := l.TCP.Addr().(*net.TCPAddr).Port, l.UDP.LocalAddr().(*net.UDPAddr).Port
		l.TCP.Close()
		l.UDP.Close()
		l.Metrics.Close()
		if tcp != udp || tcp == 0 {
			t.Fatalf("TCP %d, UDP %d", tcp, udp)
		}
	}
}
