package metrics

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// nginxStatus is what nginx's stub_status page reports about client
// connections: every HTTPS session of the device is one nginx connection.
type nginxStatus struct {
	active   float64 // open connections
	accepted float64 // connections accepted since nginx started
}

// nginxStatusClient fetches stub_status over a unix socket, so the status
// page is reachable from inside the container only.
type nginxStatusClient struct {
	client *http.Client
	// fetches counts status connections nginx accepted, to subtract them
	// from its accepts counter.
	fetches atomic.Int64
}

func newNginxStatusClient(socket string) *nginxStatusClient {
	transport := &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, "unix", socket)
		},
		// A fresh connection per scrape keeps the arithmetic in fetch exact.
		DisableKeepAlives: true,
	}
	return &nginxStatusClient{client: &http.Client{Transport: transport, Timeout: 2 * time.Second}}
}

// fetch returns the client connection counts, excluding status requests.
func (n *nginxStatusClient) fetch() (nginxStatus, error) {
	resp, err := n.client.Get("http://nginx/status")
	if err != nil {
		return nginxStatus{}, err
	}
	defer resp.Body.Close()
	fetches := n.fetches.Add(1)
	if resp.StatusCode != http.StatusOK {
		return nginxStatus{}, fmt.Errorf("nginx status: HTTP %d", resp.StatusCode)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, 4096))
	if err != nil {
		return nginxStatus{}, err
	}
	status, err := parseStubStatus(string(body))
	status.accepted -= float64(fetches)
	return status, err
}

// parseStubStatus reads the stub_status format:
//
//	Active connections: 2
//	server accepts handled requests
//	 10 10 25
//	Reading: 0 Writing: 1 Waiting: 1
func parseStubStatus(body string) (nginxStatus, error) {
	lines := strings.Split(body, "\n")
	if len(lines) < 3 {
		return nginxStatus{}, fmt.Errorf("nginx status: unexpected body %q", body)
	}
	active, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimPrefix(lines[0], "Active connections:")), 64)
	if err != nil {
		return nginxStatus{}, fmt.Errorf("nginx status: active connections: %w", err)
	}
	counters := strings.Fields(lines[2])
	if len(counters) != 3 {
		return nginxStatus{}, fmt.Errorf("nginx status: unexpected counters %q", lines[2])
	}
	accepted, err := strconv.ParseFloat(counters[0], 64)
	if err != nil {
		return nginxStatus{}, fmt.Errorf("nginx status: accepts: %w", err)
	}
	// The status request itself is one of the active connections.
	return nginxStatus{active: active - 1, accepted: accepted}, nil
}
