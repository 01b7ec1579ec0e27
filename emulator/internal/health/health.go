// Package health checks, from inside the container, that every service a
// client reaches answers: sshd, nginx (through to the device API), the
// HTTP/3 server (through to the device API), the gNMI server and the
// metrics endpoint.
package health

import (
	"bufio"
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"

	gpb "github.com/openconfig/gnmi/proto/gnmi"
	"github.com/quic-go/quic-go/http3"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/metadata"
)

// Targets are the addresses to probe.
type Targets struct {
	SSHAddr    string // e.g. 127.0.0.1:22
	HTTPSURL   string // e.g. https://127.0.0.1/healthz (via nginx to the API)
	HTTP3URL   string // e.g. https://127.0.0.1/healthz (HTTP/3 on UDP 443, to the API)
	MetricsURL string // e.g. http://127.0.0.1:9100/healthz
	GNMIAddr   string // e.g. 127.0.0.1:9339
	// GNMIUsername and GNMIPassword are the device account, which every
	// gNMI call carries.
	GNMIUsername, GNMIPassword string
}

// Check probes every target in turn and returns the first failure, naming
// the service.
func Check(t Targets, timeout time.Duration) error {
	if err := checkSSH(t.SSHAddr, timeout); err != nil {
		return fmt.Errorf("ssh %s: %w", t.SSHAddr, err)
	}
	// The certificate is self-signed and generated per container; what is
	// checked here is that nginx answers and reaches the API.
	httpsClient := &http.Client{Timeout: timeout, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true, MinVersion: tls.VersionTLS13},
	}}
	if err := checkHTTP(httpsClient, t.HTTPSURL); err != nil {
		return fmt.Errorf("https %s: %w", t.HTTPSURL, err)
	}
	http3Transport := &http3.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}
	defer http3Transport.Close()
	if err := checkHTTP(&http.Client{Timeout: timeout, Transport: http3Transport}, t.HTTP3URL); err != nil {
		return fmt.Errorf("http3 %s: %w", t.HTTP3URL, err)
	}
	if err := checkGNMI(t, timeout); err != nil {
		return fmt.Errorf("gnmi %s: %w", t.GNMIAddr, err)
	}
	if err := checkHTTP(&http.Client{Timeout: timeout}, t.MetricsURL); err != nil {
		return fmt.Errorf("metrics %s: %w", t.MetricsURL, err)
	}
	return nil
}

// checkGNMI asks the gNMI server for its capabilities.
func checkGNMI(t Targets, timeout time.Duration) error {
	conn, err := grpc.NewClient(t.GNMIAddr,
		grpc.WithTransportCredentials(credentials.NewTLS(&tls.Config{InsecureSkipVerify: true})))
	if err != nil {
		return err
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	ctx = metadata.AppendToOutgoingContext(ctx, "username", t.GNMIUsername, "password", t.GNMIPassword)
	caps, err := gpb.NewGNMIClient(conn).Capabilities(ctx, &gpb.CapabilityRequest{})
	if err != nil {
		return err
	}
	if len(caps.GetSupportedModels()) == 0 {
		return fmt.Errorf("capabilities name no model")
	}
	return nil
}

// checkSSH reads the server's identification line, which sshd sends first.
func checkSSH(addr string, timeout time.Duration) error {
	conn, err := net.DialTimeout("tcp", addr, timeout)
	if err != nil {
		return err
	}
	defer conn.Close()
	if err := conn.SetDeadline(time.Now().Add(timeout)); err != nil {
		return err
	}
	banner, err := bufio.NewReader(conn).ReadString('\n')
	if err != nil {
		return fmt.Errorf("no banner: %w", err)
	}
	if !strings.HasPrefix(banner, "SSH-2.0-") {
		return fmt.Errorf("unexpected banner %q", strings.TrimSpace(banner))
	}
	return nil
}

func checkHTTP(client *http.Client, url string) error {
	resp, err := client.Get(url)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("HTTP %d", resp.StatusCode)
	}
	return nil
}
