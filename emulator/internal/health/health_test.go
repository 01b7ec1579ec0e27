package health

import (
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// fakeSSH answers every connection with banner.
func fakeSSH(t *testing.T, banner string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			conn.Write([]byte(banner))
			conn.Close()
		}
	}()
	return ln.Addr().String()
}

func TestCheck(t *testing.T) {
	ok := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte("ok\n")) })
	httpsSrv := httptest.NewTLSServer(ok)
	defer httpsSrv.Close()
	metricsSrv := httptest.NewServer(ok)
	defer metricsSrv.Close()
	broken := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(502) }))
	defer broken.Close()

	good := Targets{SSHAddr: fakeSSH(t, "SSH-2.0-OpenSSH_9.2p1\r\n"), HTTPSURL: httpsSrv.URL, MetricsURL: metricsSrv.URL}
	if err := Check(good, 2*time.Second); err != nil {
		t.Fatalf("healthy targets: %v", err)
	}
	badBanner := good
	badBanner.SSHAddr = fakeSSH(t, "HTTP/1.1 400 Bad Request\r\n")
	if err := Check(badBanner, 2*time.Second); err == nil || !strings.HasPrefix(err.Error(), "ssh ") {
		t.Fatalf("bad banner: %v", err)
	}
	badMetrics := good
	badMetrics.MetricsURL = broken.URL
	if err := Check(badMetrics, 2*time.Second); err == nil || !strings.Contains(err.Error(), "HTTP 502") {
		t.Fatalf("metrics 502: %v", err)
	}
}
