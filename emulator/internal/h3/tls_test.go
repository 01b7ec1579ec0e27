package h3

import (
	"context"
	"crypto/tls"
	"testing"

	"github.com/quic-go/quic-go"

	"transportlab/emulator/internal/cryptoprofile"
)

// Each device offers its crypto profile's groups, as nginx does on TCP:
// what a client offering Go's defaults (X25519MLKEM768 and X25519 key
// shares) negotiates with each.
func TestEachDeviceOffersItsProfilesGroups(t *testing.T) {
	classical, _ := cryptoprofile.Lookup("cisco_iosxe")
	_, classicalGroups := cryptoprofile.GoGroups(classical.TLS.Groups)
	_, held := cryptoprofile.GoGroups([]string{"prime256v1"})
	_, none := cryptoprofile.GoGroups([]string{"ffdhe2048", "X448"})
	f := startFleet(t, [][]tls.CurveID{nil, classicalGroups, held, none})
	for device, want := range map[int]tls.CurveID{
		1: tls.X25519MLKEM768, // the modern profile: the build's defaults, a post-quantum hybrid first
		2: tls.X25519,         // classical groups: no hybrid, the client's key share
		3: tls.CurveP256,      // one group held: a HelloRetryRequest for it
	} {
		conn, err := quic.DialAddr(context.Background(), f.addr(device), f.clientTLS(nil), clientQUIC)
		if err != nil {
			t.Errorf("device %d: %v", device, err)
			continue
		}
		if got := conn.ConnectionState().TLS.CurveID; got != want {
			t.Errorf("device %d negotiated %v, want %v", device, got, want)
		}
		if version := conn.ConnectionState().TLS.Version; version != tls.VersionTLS13 {
			t.Errorf("device %d: TLS version %x", device, version)
		}
		_ = conn.CloseWithError(0, "")
	}
	// A profile whose groups Go lacks offers nothing: no handshake.
	if conn, err := quic.DialAddr(context.Background(), f.addr(4), f.clientTLS(nil), clientQUIC); err == nil {
		_ = conn.CloseWithError(0, "")
		t.Error("device 4 completed a handshake without a group to offer")
	}
}
