// Package grpcgo is the lab's gNMI modes with grpc-go and the gNMI proto of openconfig/gnmi
// against the device's gNMI server: Get of an interface's configuration on a channel per
// command or on one kept channel, one Get of every path, one Set of many descriptions, and
// Subscribe ONCE, POLL and STREAM. The interfaces are the device's own, discovered once per
// mode with a Get of /interfaces before the first iteration (not measured): command i of an
// iteration reads or writes interface ((i-1) mod k)+1 of the k it has, in the order the
// device lists them.
package grpcgo

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"os"
	"strconv"
	"sync"
	"time"

	gpb "github.com/openconfig/gnmi/proto/gnmi"
	"google.golang.org/grpc"
	"google.golang.org/grpc/connectivity"
	"google.golang.org/grpc/credentials"

	"transportlab/goclient/internal/job"
	"transportlab/goclient/internal/report"
)

// TLSVerifyEnv, set to 1, makes the channels verify the device's certificate against the
// system's roots (an inventory's gnmi_tls_verify); the lab's self-signed certificate is
// not verified, as the runner's HTTPS clients do not verify it.
const TLSVerifyEnv = "GOCLIENT_GNMI_TLS_VERIFY"

// client is what every channel of a job shares.
type client struct {
	host    string
	addr    string
	creds   job.Credentials
	verify  bool
	timeout time.Duration
}

func newClient(j job.Job, creds job.Credentials) *client {
	return &client{
		host:    j.Host,
		addr:    net.JoinHostPort(j.Host, strconv.Itoa(j.Port)),
		creds:   creds,
		verify:  os.Getenv(TLSVerifyEnv) == "1",
		timeout: j.Timeout(),
	}
}

// password is gNMI's username/password authentication: both in every call's metadata.
type password job.Credentials

func (p password) GetRequestMetadata(context.Context, ...string) (map[string]string, error) {
	return map[string]string{"username": p.Username, "password": p.Password}, nil
}

func (password) RequireTransportSecurity() bool { return true }

// channel is one gRPC channel: a TCP connection, TLS on it, HTTP/2 in it.
type channel struct {
	conn *grpc.ClientConn
	gnmi gpb.GNMIClient

	mu sync.Mutex
	// negotiated is what the TLS handshake of the channel's connection settled.
	negotiated *report.Connection
}

// handshakes wraps the channel's TLS credentials to keep what each handshake negotiated,
// whichever call (unary or a stream) the channel then carries.
type handshakes struct {
	credentials.TransportCredentials
	ch *channel
}

func (h handshakes) ClientHandshake(ctx context.Context, authority string, raw net.Conn) (net.Conn, credentials.AuthInfo, error) {
	conn, info, err := h.TransportCredentials.ClientHandshake(ctx, authority, raw)
	if tlsInfo, ok := info.(credentials.TLSInfo); ok && err == nil {
		h.ch.note(tlsInfo.State)
	}
	return conn, info, err
}

func (h handshakes) Clone() credentials.TransportCredentials {
	return handshakes{TransportCredentials: h.TransportCredentials.Clone(), ch: h.ch}
}

// dial opens a channel and waits until it is ready: grpc-go reports a channel ready once
// its TCP connection, the TLS handshake and the server's HTTP/2 SETTINGS frame are done.
func (c *client) dial() (*channel, error) {
	config := &tls.Config{ServerName: c.host, InsecureSkipVerify: !c.verify, NextProtos: []string{"h2"}}
	// passthrough: the address goes to the dialer as it is, without grpc-go's DNS resolver
	// (its lookups of service configuration would be traffic of their own).
	ch := &channel{}
	conn, err := grpc.NewClient("passthrough:///"+c.addr,
		grpc.WithTransportCredentials(handshakes{TransportCredentials: credentials.NewTLS(config), ch: ch}),
		grpc.WithPerRPCCredentials(password(c.creds)),
	)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), c.timeout)
	defer cancel()
	conn.Connect()
	for state := conn.GetState(); state != connectivity.Ready; state = conn.GetState() {
		if state == connectivity.TransientFailure || state == connectivity.Shutdown {
			_ = conn.Close()
			return nil, fmt.Errorf("channel to %s: %s", c.addr, state)
		}
		if !conn.WaitForStateChange(ctx, state) {
			_ = conn.Close()
			return nil, fmt.Errorf("channel to %s: %w", c.addr, ctx.Err())
		}
	}
	ch.conn, ch.gnmi = conn, gpb.NewGNMIClient(conn)
	return ch, nil
}

func (ch *channel) close() error { return ch.conn.Close() }

// call is a context for one call of the job's timeout.
func (c *client) call() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), c.timeout)
}

// note keeps what the channel's first TLS handshake negotiated.
func (ch *channel) note(state tls.ConnectionState) {
	ch.mu.Lock()
	defer ch.mu.Unlock()
	if ch.negotiated != nil {
		return
	}
	ch.negotiated = &report.Connection{
		TLSVersion:  state.Version,
		CipherSuite: state.CipherSuite,
		Group:       uint16(state.CurveID),
		ALPN:        state.NegotiatedProtocol,
		Resumed:     state.DidResume,
	}
}

// opened is the channel's negotiated TLS as a list of what a line reports (empty before
// its handshake).
func (ch *channel) opened() []report.Connection {
	ch.mu.Lock()
	defer ch.mu.Unlock()
	if ch.negotiated == nil {
		return nil
	}
	return []report.Connection{*ch.negotiated}
}
