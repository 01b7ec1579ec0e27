package ifstate

import (
	"fmt"
	"hash/fnv"
	"strings"
	"time"
)

// State is an interface as the device reports it at one moment.
type State struct {
	Interface
	// IfIndex numbers the interfaces in listing order, from 1.
	IfIndex         int
	AdminUp, OperUp bool
	// MAC is the hardware address in the dotted form IOS and EOS print
	// ("5254.0012.3401"); "" for interfaces without one (Loopback, Tunnel).
	MAC string
	MTU int
	// Speed is the nominal bandwidth in bits per second.
	Speed uint64
	// Since is how long the interface has been in its current state: the
	// device's uptime, as the model has no state changes after boot.
	Since time.Duration
	Counters
	// InRate and OutRate are the steady rates the counters grow at; zero
	// while the interface is down.
	InRate, OutRate Rate
}

// Counters are the traffic counters since boot (never cleared).
type Counters struct {
	InOctets, InUnicast, InMulticast, InBroadcast     uint64
	OutOctets, OutUnicast, OutMulticast, OutBroadcast uint64
}

// InPackets is every packet received.
func (c Counters) InPackets() uint64 { return c.InUnicast + c.InMulticast + c.InBroadcast }

// OutPackets is every packet sent.
func (c Counters) OutPackets() uint64 { return c.OutUnicast + c.OutMulticast + c.OutBroadcast }

// Rate is a traffic rate per second.
type Rate struct{ Bits, Packets uint64 }

// BitsText is the rate as EOS prints it, three significant digits:
// "864 bps", "12.4 kbps", "1.02 Mbps".
func (r Rate) BitsText() string {
	v, units := float64(r.Bits), []string{"bps", "kbps", "Mbps", "Gbps"}
	if v < 1000 {
		return fmt.Sprintf("%d bps", r.Bits)
	}
	u := 0
	for v >= 1000 && u < len(units)-1 {
		v /= 1000
		u++
	}
	switch {
	case v < 10:
		return fmt.Sprintf("%.2f %s", v, units[u])
	case v < 100:
		return fmt.Sprintf("%.1f %s", v, units[u])
	}
	return fmt.Sprintf("%.0f %s", v, units[u])
}

// BandwidthKbit is Speed in kbit/s, as IOS prints "BW 1000000 Kbit/sec".
func (s State) BandwidthKbit() uint64 { return s.Speed / 1000 }

// SinceText is Since as EOS prints it: "2 days, 3 hours, 1 minute, 12
// seconds", leading zero units left out.
func (s State) SinceText() string {
	secs := int64(s.Since / time.Second)
	var parts []string
	for _, u := range []struct {
		name string
		size int64
	}{{"day", 86400}, {"hour", 3600}, {"minute", 60}, {"second", 1}} {
		n := secs / u.size
		secs -= n * u.size
		if n == 0 && len(parts) == 0 && u.size > 1 {
			continue
		}
		unit := u.name
		if n != 1 {
			unit += "s"
		}
		parts = append(parts, fmt.Sprintf("%d %s", n, unit))
	}
	return strings.Join(parts, ", ")
}

// Snapshot is the state of ifs (in their order) after the device has been
// up for uptime. It is a pure function of its arguments, so every process
// of the device (the daemon for NETCONF and RESTCONF, each SSH shell for
// the CLI) reports the same values for the same moment.
func Snapshot(ifs []Interface, uptime time.Duration) []State {
	out := make([]State, len(ifs))
	for k, i := range ifs {
		s := State{Interface: i, IfIndex: k + 1, AdminUp: !i.Shutdown, OperUp: !i.Shutdown,
			MAC: macOf(i), MTU: mtuOf(i.Kind), Speed: speedOf(i.Kind), Since: uptime}
		if s.OperUp && i.Kind != "Loopback" {
			s.InRate, s.OutRate, s.Counters = traffic(i.Name, uptime)
		}
		out[k] = s
	}
	return out
}

// traffic is an interface's steady load, chosen from its name so that it
// is the same in every process: a few packets per second each way, the
// control-plane chatter of a lab router's link. Counters are the rates
// times the whole seconds of uptime, so they grow between two reads one
// second apart and are exact for a given uptime.
func traffic(name string, uptime time.Duration) (in, out Rate, c Counters) {
	h := hashOf(name)
	inPackets, inSize := 1+h%20, 100+(h>>8)%500
	outPackets, outSize := 1+(h>>20)%20, 100+(h>>28)%500
	in = Rate{Bits: inPackets * inSize * 8, Packets: inPackets}
	out = Rate{Bits: outPackets * outSize * 8, Packets: outPackets}
	secs := uint64(uptime / time.Second)
	c.InOctets, c.OutOctets = secs*inPackets*inSize, secs*outPackets*outSize
	// One packet in 40 is multicast (routing protocols), one in 400
	// broadcast (ARP).
	c.InMulticast, c.InBroadcast = secs*inPackets/40, secs*inPackets/400
	c.InUnicast = secs*inPackets - c.InMulticast - c.InBroadcast
	c.OutMulticast, c.OutBroadcast = secs*outPackets/40, secs*outPackets/400
	c.OutUnicast = secs*outPackets - c.OutMulticast - c.OutBroadcast
	return in, out, c
}

func hashOf(s string) uint64 {
	h := fnv.New64a()
	_, _ = h.Write([]byte(s))
	return h.Sum64()
}

// macOf gives interfaces with hardware an address in the QEMU/KVM range
// (52:54:00), where virtual C8000V and vEOS routers get theirs.
func macOf(i Interface) string {
	if i.Kind == "Loopback" || i.Kind == "Tunnel" {
		return ""
	}
	h := hashOf(i.Name)
	return fmt.Sprintf("5254.00%02x.%04x", byte(h>>16), uint16(h))
}

func mtuOf(kind string) int {
	switch kind {
	case "Loopback":
		return 1514
	case "Tunnel":
		return 1476
	}
	return 1500
}

// speedOf is the nominal bandwidth IOS reports per interface type.
func speedOf(kind string) uint64 {
	switch kind {
	case "TenGigabitEthernet":
		return 10_000_000_000
	case "FastEthernet":
		return 100_000_000
	case "Loopback":
		return 8_000_000_000
	case "Tunnel":
		return 100_000
	}
	return 1_000_000_000
}
