package api

import (
	"encoding/json"
	"net/http"

	"transportlab/emulator/internal/cryptoprofile"
	"transportlab/emulator/internal/engine"
	"transportlab/emulator/internal/fleet"
)

// DeviceAddressHeader carries the local address the client connected to
// (nginx's $server_addr), which picks the emulated device of the fleet.
// nginx sets it on every request, replacing any copy the client sent, and
// only nginx can reach the API socket, so the API trusts it; the HTTP/3
// server sets it alike, from the QUIC connection's local address. A
// request without it, or with an address outside the fleet, is for
// device 1.
const DeviceAddressHeader = "X-Device-Address"

// Fleet is the emulated devices the API answers for.
type Fleet struct {
	Platform string
	// Plan tells which device owns which address, and names the devices.
	Plan fleet.Plan
	// Devices holds device k's state at k-1, one for each device of Plan.
	Devices []Device
}

// Device is one emulated device's state.
type Device struct {
	// Config is the device's configuration store.
	Config engine.ConfigStore
	// RESTCONF serves the device's /restconf/ and /.well-known/host-meta.
	RESTCONF http.Handler
	// CryptoProfile names what the device offers in SSH and TLS handshakes;
	// Crypto is that profile as sshd and nginx were configured with it.
	CryptoProfile string
	Crypto        cryptoprofile.Effective
}

// deviceFor is the device a request is for: its fleet index and state.
func (s *Server) deviceFor(r *http.Request) (int, Device) {
	k := s.fleet.Plan.ForAddressText(r.Header.Get(DeviceAddressHeader)).Index
	return k, s.fleet.Devices[k-1]
}

func (s *Server) handleRESTCONF(w http.ResponseWriter, r *http.Request) {
	_, state := s.deviceFor(r)
	state.RESTCONF.ServeHTTP(w, r)
}

// fleetDocument is the answer of GET /admin/fleet, from which the runner
// builds an inventory.
type fleetDocument struct {
	Platform string        `json:"platform"`
	Devices  []fleetMember `json:"devices"`
}

type fleetMember struct {
	Index int `json:"index"`
	// Name is the hostname the device started with.
	Name string `json:"name"`
	// Address is empty when the fleet has no address block (one device,
	// answering on every address).
	Address       string                  `json:"address"`
	CryptoProfile string                  `json:"crypto_profile"`
	Crypto        cryptoprofile.Effective `json:"crypto"`
}

func (s *Server) handleFleet(w http.ResponseWriter, _ *http.Request) {
	doc := fleetDocument{Platform: s.fleet.Platform}
	for _, d := range s.fleet.Plan.Devices() {
		state := s.fleet.Devices[d.Index-1]
		member := fleetMember{Index: d.Index, Name: d.Name, CryptoProfile: state.CryptoProfile, Crypto: state.Crypto}
		if d.Address.IsValid() {
			member.Address = d.Address.String()
		}
		doc.Devices = append(doc.Devices, member)
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	_ = json.NewEncoder(w).Encode(doc)
}
