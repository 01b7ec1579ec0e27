package h3

import (
	"crypto/rand"
	"crypto/tls"

	"transportlab/emulator/internal/cryptoprofile"
)

// tlsConfig is TLS 1.3 with the device's certificate, session tickets
// (resumption and 0-RTT) and, per device of the fleet, its crypto
// profile's groups: crypto/tls asks GetConfigForClient with the address
// the client reached (quic-go passes it as the ClientHelloInfo's local
// address).
func (s *Server) tlsConfig() (*tls.Config, error) {
	base := &tls.Config{Certificates: []tls.Certificate{s.o.Certificate}, MinVersion: tls.VersionTLS13}
	// One ticket key for the life of the process, as nginx's. Left to
	// crypto/tls, the keys rotate after a day inside the per-connection
	// copies of this configuration quic-go makes, each copy its own: a
	// device up for longer would resume no session.
	var key [32]byte
	if _, err := rand.Read(key[:]); err != nil {
		return nil, err
	}
	base.SetSessionTicketKeys([][32]byte{key})
	return cryptoprofile.PerDeviceGroups(base, s.deviceOf, s.o.Groups), nil
}
