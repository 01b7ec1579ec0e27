package h3

import (
	"bytes"
	"crypto/tls"
	"encoding/binary"
	"net"
	"testing"
	"time"
)

// A long-header packet of a version the server does not speak, padded to
// the 1200 bytes a client's first datagram has, gets a Version
// Negotiation packet back (RFC 9000, section 6): one round trip, which the
// runner times to measure the UDP port's RTT.
func TestAnUnknownVersionGetsVersionNegotiation(t *testing.T) {
	f := startFleet(t, [][]tls.CurveID{nil, nil})
	conn, err := net.Dial("udp4", f.addr(2))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	dcid := []byte{1, 2, 3, 4, 5, 6, 7, 8}
	scid := []byte{9, 10, 11, 12}
	probe := []byte{0xc0}                                    // long header, fixed bit
	probe = binary.BigEndian.AppendUint32(probe, 0x1a2a3a4a) // a reserved version (RFC 9000, section 15)
	probe = append(append(append(probe, byte(len(dcid))), dcid...), byte(len(scid)))
	probe = append(probe, scid...)
	probe = append(probe, make([]byte, 1200-len(probe))...)
	if _, err := conn.Write(probe); err != nil {
		t.Fatal(err)
	}
	if err := conn.SetReadDeadline(time.Now().Add(20 * time.Second)); err != nil {
		t.Fatal(err)
	}
	reply := make([]byte, 1500)
	n, err := conn.Read(reply)
	if err != nil {
		t.Fatal(err)
	}
	reply = reply[:n]
	// Long header, version 0, the probe's connection IDs swapped, then the versions.
	header := 1 + 4 + 1 + len(scid) + 1 + len(dcid)
	if n < header+4 || reply[0]&0x80 == 0 || binary.BigEndian.Uint32(reply[1:5]) != 0 {
		t.Fatalf("not a Version Negotiation packet: % x", reply)
	}
	if !bytes.Equal(reply[6:6+len(scid)], scid) || !bytes.Equal(reply[7+len(scid):header], dcid) {
		t.Errorf("connection IDs not echoed: % x", reply[:header])
	}
	var versions []uint32
	for rest := reply[header:]; len(rest) >= 4; rest = rest[4:] {
		versions = append(versions, binary.BigEndian.Uint32(rest))
	}
	hasV1 := false
	for _, v := range versions {
		hasV1 = hasV1 || v == 1
	}
	if !hasV1 {
		t.Errorf("QUIC version 1 not offered: %x", versions)
	}
}
