// Package gnmi is the device's gNMI server (openconfig/gnmi's proto on
// grpc-go), on TCP 9339 for every device of a fleet: Capabilities, Get,
// Set and Subscribe over the OpenConfig view (internal/openconfig) of the
// device's one configuration store, which NETCONF, RESTCONF and the CLI
// share, so a Set is theirs at once and their commits reach gNMI
// subscribers. TLS uses the device's certificate and crypto profile's
// groups; every call carries the device account in its metadata.
package gnmi

import (
	"context"
	"crypto/tls"
	"errors"
	"log/slog"
	"net"
	"net/netip"
	"sync"
	"time"

	gpb "github.com/openconfig/gnmi/proto/gnmi"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/keepalive"
	"google.golang.org/grpc/peer"

	"transportlab/emulator/internal/api"
	"transportlab/emulator/internal/configdb"
	"transportlab/emulator/internal/cryptoprofile"
	"transportlab/emulator/internal/fleet"
)

const (
	// MaxMessageBytes bounds a request message (a Set's updates);
	// grpc-go refuses a larger one with ResourceExhausted.
	MaxMessageBytes = 4 << 20
	// MaxSetOperations bounds a Set's deletes, replaces and updates.
	MaxSetOperations = 1000
	// MaxStreams bounds the calls one connection has open at once.
	MaxStreams = 100
	// keepaliveMinTime is the shortest keepalive ping interval a client
	// may use; one pinging more often is told GOAWAY (grpc-go's policy).
	keepaliveMinTime = 10 * time.Second
	// transport is the metrics label of gNMI.
	transport = "gnmi"
)

// Recorder receives what the server serves; *metrics.Metrics implements it.
type Recorder interface {
	GNMIRPC(rpc, code string)
	GNMISubscriptionOpened(mode string)
	GNMISubscriptionClosed(mode string)
	GNMIUpdates(mode string, notifications int)
	GNMISubscriptionDropped()
	AuthFailed(transport string)
}

// Options are what the server serves and with what.
type Options struct {
	Platform string
	// Stores are the devices' configuration stores, device k's at k-1.
	Stores configdb.Fleet
	// Plan tells which device of the fleet owns the address a client reached.
	Plan        fleet.Plan
	Credentials api.Credentials
	// Certificate is the device's (nginx's and HTTP/3's).
	Certificate tls.Certificate
	// Groups are device k's TLS groups at k-1 (cryptoprofile.GoGroups).
	Groups   [][]tls.CurveID
	Recorder Recorder
	Log      *slog.Logger
}

// Server is the gNMI server of the device.
type Server struct {
	gpb.UnimplementedGNMIServer
	o       Options
	grpc    *grpc.Server
	devices []*device
	// stop ends the followers of the devices and the subscriptions.
	stop     chan struct{}
	stopOnce sync.Once
}

// New prepares the server and starts following every device's commits;
// Serve runs it on a listener.
func New(o Options) (*Server, error) {
	if len(o.Stores) != o.Plan.Size() || len(o.Groups) != o.Plan.Size() {
		return nil, errors.New("gnmi: one store and one group list per device of the fleet are needed")
	}
	s := &Server{o: o, stop: make(chan struct{})}
	for _, store := range o.Stores {
		d := newDevice(o.Platform, store)
		s.devices = append(s.devices, d)
		go d.follow(s.stop)
	}
	base := &tls.Config{Certificates: []tls.Certificate{o.Certificate}, MinVersion: tls.VersionTLS12}
	tlsConfig := cryptoprofile.PerDeviceGroups(base, func(local net.Addr) int { return s.deviceIndex(local) }, o.Groups)
	s.grpc = grpc.NewServer(
		grpc.Creds(credentials.NewTLS(tlsConfig)),
		grpc.MaxRecvMsgSize(MaxMessageBytes),
		grpc.MaxConcurrentStreams(MaxStreams),
		grpc.KeepaliveEnforcementPolicy(keepalive.EnforcementPolicy{MinTime: keepaliveMinTime, PermitWithoutStream: true}),
		// A client gone without a word (a dropped subscriber's host) is
		// found by the server's own pings.
		grpc.KeepaliveParams(keepalive.ServerParameters{Time: time.Minute, Timeout: 20 * time.Second}),
		grpc.UnaryInterceptor(s.unary),
		grpc.StreamInterceptor(s.stream),
	)
	gpb.RegisterGNMIServer(s.grpc, s)
	return s, nil
}

// Serve answers on ln, bound to the wildcard address so that the local
// address of a connection names the device reached, until Shutdown.
func (s *Server) Serve(ln net.Listener) error {
	err := s.grpc.Serve(ln)
	if errors.Is(err, grpc.ErrServerStopped) {
		return nil
	}
	return err
}

// Shutdown stops accepting, ends STREAM subscriptions (which never finish
// on their own) with Unavailable and lets other calls in progress finish
// until ctx ends, then closes what is left.
func (s *Server) Shutdown(ctx context.Context) error {
	s.stopOnce.Do(func() { close(s.stop) })
	done := make(chan struct{})
	go func() {
		s.grpc.GracefulStop()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		s.grpc.Stop()
		<-done
		return ctx.Err()
	}
}

// deviceIndex is the fleet index of the device owning a local address.
func (s *Server) deviceIndex(local net.Addr) int {
	var addr netip.Addr
	if tcp, ok := local.(*net.TCPAddr); ok {
		addr, _ = netip.AddrFromSlice(tcp.IP)
	}
	return s.o.Plan.ForAddress(addr.Unmap()).Index
}

// deviceOf is the device a call is for: the one owning the address its
// connection reached.
func (s *Server) deviceOf(ctx context.Context) *device {
	var local net.Addr
	if p, ok := peer.FromContext(ctx); ok {
		local = p.LocalAddr
	}
	return s.devices[s.deviceIndex(local)-1]
}
