// Package fleet is the address plan of one device container presenting N
// emulated devices: device k (1..N) owns the address "network address of
// the fleet's IPv4 block + k", and device 1 also answers on every address
// that is not a fleet address (the container's own address, 127.0.0.1), so
// a fleet of one behaves like the single device it replaces. The plan only
// maps addresses; putting them on the interface is the netem sidecar's job
// (the device has no NET_ADMIN).
package fleet

import (
	"encoding/binary"
	"fmt"
	"net/netip"
)

// MaxSize bounds a fleet: enough for a sweep of ~100 devices, and a limit
// on the per-device metric series.
const MaxSize = 250

// Device is one emulated device of the fleet.
type Device struct {
	// Index is k, 1..N.
	Index int
	// Name is the device's hostname at start (configuration may change
	// the hostname later; the name stays, it identifies the device).
	Name string
	// Address is the device's fleet address; invalid (the zero Addr) when
	// the fleet has no address block.
	Address netip.Addr
}

// Plan says which device answers on which address.
type Plan struct {
	block   netip.Prefix // invalid without a block
	devices []Device
}

// New plans a fleet of size devices named from hostname (see Hostnames)
// on block, an IPv4 CIDR block given by its network address
// ("198.18.100.128/25"). block may be empty only for a fleet of one.
func New(hostname string, size int, block string) (Plan, error) {
	if size < 1 || size > MaxSize {
		return Plan{}, fmt.Errorf("fleet size must be 1..%d, got %d", MaxSize, size)
	}
	names, err := Hostnames(hostname, size)
	if err != nil {
		return Plan{}, err
	}
	p := Plan{devices: make([]Device, size)}
	for k := range p.devices {
		p.devices[k] = Device{Index: k + 1, Name: names[k]}
	}
	if block == "" {
		if size > 1 {
			return Plan{}, fmt.Errorf("a fleet of %d devices needs an address block (DEVICE_FLEET_ADDRESSES)", size)
		}
		return p, nil
	}
	prefix, err := netip.ParsePrefix(block)
	if err != nil || !prefix.Addr().Is4() {
		return Plan{}, fmt.Errorf("fleet addresses must be an IPv4 CIDR block such as 198.18.100.128/25, got %q", block)
	}
	if prefix.Masked() != prefix {
		return Plan{}, fmt.Errorf("fleet addresses %s: not the block's network address (%s)", block, prefix.Masked())
	}
	// The block's network and broadcast addresses are not hosts.
	if hosts := 1<<(32-prefix.Bits()) - 2; size > hosts {
		return Plan{}, fmt.Errorf("fleet addresses %s hold %d devices, fleet size is %d", block, max(hosts, 0), size)
	}
	p.block = prefix
	network := toUint32(prefix.Addr())
	for k := range p.devices {
		p.devices[k].Address = fromUint32(network + uint32(k+1))
	}
	return p, nil
}

// Size is the number of devices, N.
func (p Plan) Size() int { return len(p.devices) }

// Devices lists every device, device k at k-1. The slice is shared: do
// not modify it.
func (p Plan) Devices() []Device { return p.devices }

// Device is device k, if the fleet has one.
func (p Plan) Device(k int) (Device, bool) {
	if k < 1 || k > len(p.devices) {
		return Device{}, false
	}
	return p.devices[k-1], true
}

// ForAddress is the device a client reaches on the local address addr:
// the device owning it, device 1 for any other address.
func (p Plan) ForAddress(addr netip.Addr) Device {
	addr = addr.Unmap() // an IPv4 client on a dual-stack socket
	if p.block.IsValid() && p.block.Contains(addr) {
		k := toUint32(addr) - toUint32(p.block.Addr())
		if k >= 1 && k <= uint32(len(p.devices)) {
			return p.devices[k-1]
		}
	}
	return p.devices[0]
}

// ForAddressText is ForAddress for an address in text form; text that is
// not an address means device 1.
func (p Plan) ForAddressText(text string) Device {
	addr, err := netip.ParseAddr(text)
	if err != nil {
		return p.devices[0]
	}
	return p.ForAddress(addr)
}

func toUint32(a netip.Addr) uint32 {
	b := a.As4()
	return binary.BigEndian.Uint32(b[:])
}

func fromUint32(v uint32) netip.Addr {
	var b [4]byte
	binary.BigEndian.PutUint32(b[:], v)
	return netip.AddrFrom4(b)
}
