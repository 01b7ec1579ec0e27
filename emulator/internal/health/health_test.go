package health

import (
	"context"
	"crypto/tls"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	gpb "github.com/openconfig/gnmi/proto/gnmi"
	"github.com/quic-go/quic-go/http3"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
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

// fakeHTTP3 serves handler over HTTP/3 on loopback with certificate and
// returns its URL.
func fakeHTTP3(t *testing.T, certificate tls.Certificate, handler http.Handler) string {
	t.Helper()
	conn, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	srv := &http3.Server{Handler: handler, TLSConfig: &tls.Config{Certificates: []tls.Certificate{certificate}}}
	go func() { _ = srv.Serve(conn) }()
	t.Cleanup(func() {
		_ = srv.Close()
		conn.Close()
	})
	return "https://" + conn.LocalAddr().String() + "/healthz"
}

// fakeGNMI answers Capabilities over TLS with certificate, to the account
// username/password only, and returns its address.
func fakeGNMI(t *testing.T, certificate tls.Certificate, username, password string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer(grpc.Creds(credentials.NewTLS(&tls.Config{Certificates: []tls.Certificate{certificate}})))
	gpb.RegisterGNMIServer(srv, capabilitiesOnly{username: username, password: password})
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(srv.Stop)
	return ln.Addr().String()
}

type capabilitiesOnly struct {
	gpb.UnimplementedGNMIServer
	username, password string
}

func (c capabilitiesOnly) Capabilities(ctx context.Context, _ *gpb.CapabilityRequest) (*gpb.CapabilityResponse, error) {
	md, _ := metadata.FromIncomingContext(ctx)
	if u, p := md.Get("username"), md.Get("password"); len(u) != 1 || u[0] != c.username || len(p) != 1 || p[0] != c.password {
		return nil, status.Error(codes.Unauthenticated, "bad credentials")
	}
	return &gpb.CapabilityResponse{SupportedModels: []*gpb.ModelData{{Name: "openconfig-system"}}}, nil
}

func TestCheck(t *testing.T) {
	ok := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte("ok\n")) })
	httpsSrv := httptest.NewTLSServer(ok)
	defer httpsSrv.Close()
	metricsSrv := httptest.NewServer(ok)
	defer metricsSrv.Close()
	broken := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(502) }))
	defer broken.Close()

	good := Targets{SSHAddr: fakeSSH(t, "SSH-2.0-OpenSSH_9.2p1\r\n"), HTTPSURL: httpsSrv.URL,
		HTTP3URL: fakeHTTP3(t, httpsSrv.TLS.Certificates[0], ok), MetricsURL: metricsSrv.URL,
		GNMIAddr: fakeGNMI(t, httpsSrv.TLS.Certificates[0], "lab", "secret"), GNMIUsername: "lab", GNMIPassword: "secret"}
	if err := Check(good, 2*time.Second); err != nil {
		t.Fatalf("healthy targets: %v", err)
	}
	badBanner := good
	badBanner.SSHAddr = fakeSSH(t, "HTTP/1.1 400 Bad Request\r\n")
	if err := Check(badBanner, 2*time.Second); err == nil || !strings.HasPrefix(err.Error(), "ssh ") {
		t.Fatalf("bad banner: %v", err)
	}
	badHTTP3 := good
	badHTTP3.HTTP3URL = fakeHTTP3(t, httpsSrv.TLS.Certificates[0], broken.Config.Handler)
	if err := Check(badHTTP3, 2*time.Second); err == nil || !strings.HasPrefix(err.Error(), "http3 ") ||
		!strings.Contains(err.Error(), "HTTP 502") {
		t.Fatalf("HTTP/3 502: %v", err)
	}
	badGNMI := good
	badGNMI.GNMIPassword = "wrong"
	if err := Check(badGNMI, 2*time.Second); err == nil || !strings.HasPrefix(err.Error(), "gnmi ") ||
		!strings.Contains(err.Error(), "Unauthenticated") {
		t.Fatalf("gNMI refusing the account: %v", err)
	}
	badMetrics := good
	badMetrics.MetricsURL = broken.URL
	if err := Check(badMetrics, 2*time.Second); err == nil || !strings.Contains(err.Error(), "HTTP 502") {
		t.Fatalf("metrics 502: %v", err)
	}
}
