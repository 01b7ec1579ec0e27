package gnmi

import (
	"crypto/tls"
	"testing"

	gpb "github.com/openconfig/gnmi/proto/gnmi"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/status"
)

func TestEachDeviceOffersItsProfilesGroups(t *testing.T) {
	// Device 1: Go's defaults; 2: P-384 alone; 3: no group Go implements.
	f := startFleetWithGroups(t, "cisco_iosxe", [][]tls.CurveID{nil, {tls.CurveP384}, {}})
	for device, want := range map[int]tls.CurveID{1: tls.X25519MLKEM768, 2: tls.CurveP384} {
		var p peer.Peer
		if _, err := f.client(t, device).Capabilities(ctx(t, account.Password), &gpb.CapabilityRequest{}, grpc.Peer(&p)); err != nil {
			t.Fatalf("device %d: %v", device, err)
		}
		info, ok := p.AuthInfo.(credentials.TLSInfo)
		if !ok || info.State.CurveID != want || info.State.NegotiatedProtocol != "h2" {
			t.Errorf("device %d: group %v, ALPN %q; want %v over h2", device, info.State.CurveID,
				info.State.NegotiatedProtocol, want)
		}
	}
	if _, err := f.client(t, 3).Capabilities(ctx(t, account.Password), &gpb.CapabilityRequest{}); status.Code(err) != codes.Unavailable {
		t.Errorf("device 3 (no group): %v", err)
	}
}
