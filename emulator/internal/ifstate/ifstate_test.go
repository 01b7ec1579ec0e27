package ifstate

import (
	"strings"
	"testing"
	"time"
)

var running = []string{
	"hostname r1", "interface GigabitEthernet10", " description far", " ip address 10.0.10.1 255.255.255.0", "!",
	"interface GigabitEthernet2", " shutdown", " negotiation auto", "!",
	"interface Loopback0", " ip address 10.255.0.1/32", "!", "interface Ethernet1", " ip address 10.0.0.1 255.0.255.0",
	"router ospf 1", " description not an interface",
}

func TestFromRunningConfig(t *testing.T) {
	ifs := FromRunningConfig(running)
	var names []string
	for _, i := range ifs {
		names = append(names, i.Name)
	}
	if got := strings.Join(names, " "); got != "Ethernet1 GigabitEthernet2 GigabitEthernet10 Loopback0" {
		t.Fatalf("order %q", got)
	}
	if e := ifs[0]; e.Address != "" {
		t.Errorf("a non-contiguous mask is no address: %+v", e)
	}
	if g := ifs[1]; !g.Shutdown || g.Description != "" {
		t.Errorf("Gi2 %+v", g)
	}
	if g := ifs[2]; g.Description != "far" || g.CIDR() != "10.0.10.1/24" || g.Mask() != "255.255.255.0" || g.Kind != "GigabitEthernet" || g.Number != "10" {
		t.Errorf("Gi10 %+v", g)
	}
	if l := ifs[3]; l.CIDR() != "10.255.0.1/32" || l.Mask() != "255.255.255.255" {
		t.Errorf("EOS-style address %+v", l)
	}
}

func TestSnapshotCountersGrowWithUptime(t *testing.T) {
	ifs := FromRunningConfig(running)
	a, b := Snapshot(ifs, time.Hour), Snapshot(ifs, time.Hour+time.Second)
	gi10 := a[2]
	if !gi10.OperUp || gi10.IfIndex != 3 || gi10.MAC == "" || gi10.InOctets == 0 || gi10.InRate.Packets == 0 {
		t.Fatalf("Gi10 %+v", gi10)
	}
	if b[2].InOctets <= gi10.InOctets || b[2].OutPackets() <= gi10.OutPackets() {
		t.Error("counters do not grow")
	}
	if again := Snapshot(ifs, time.Hour); again[2] != gi10 {
		t.Error("a snapshot must depend on its arguments only")
	}
	if c := gi10.Counters; c.InPackets() != c.InUnicast+c.InMulticast+c.InBroadcast || c.InMulticast == 0 {
		t.Errorf("packet counters %+v", c)
	}
	if down := a[1]; down.AdminUp || down.OperUp || down.InOctets != 0 || down.InRate.Bits != 0 {
		t.Errorf("shut down interface %+v", down)
	}
	if lo := a[3]; lo.MAC != "" || lo.InOctets != 0 || lo.MTU != 1514 {
		t.Errorf("loopback %+v", lo)
	}
}

func TestTexts(t *testing.T) {
	for bits, want := range map[uint64]string{864: "864 bps", 12400: "12.4 kbps", 1020: "1.02 kbps", 1_020_000: "1.02 Mbps", 999_000: "999 kbps"} {
		if got := (Rate{Bits: bits}).BitsText(); got != want {
			t.Errorf("%d: %q, want %q", bits, got, want)
		}
	}
	s := State{Since: 2*24*time.Hour + 3*time.Hour + time.Minute + 12*time.Second}
	if got := s.SinceText(); got != "2 days, 3 hours, 1 minute, 12 seconds" {
		t.Errorf("since %q", got)
	}
	if got := (State{Since: 5 * time.Second}).SinceText(); got != "5 seconds" {
		t.Errorf("since %q", got)
	}
	if bits, ok := PrefixLen("255.255.255.252"); !ok || bits != 30 {
		t.Errorf("PrefixLen %d %v", bits, ok)
	}
}

func TestInterfacesState(t *testing.T) {
	booted := time.Date(2026, 11, 20, 8, 0, 0, 0, time.UTC)
	doc := InterfacesState(Snapshot(FromRunningConfig(running), 10*time.Second), booted).String()
	for _, want := range []string{
		`<interfaces-state xmlns="urn:ietf:params:xml:ns:yang:ietf-interfaces"><interface><name>Ethernet1</name>` +
			`<type xmlns:ianaift="urn:ietf:params:xml:ns:yang:iana-if-type">ianaift:ethernetCsmacd</type>` +
			`<admin-status>up</admin-status><oper-status>up</oper-status><if-index>1</if-index><phys-address>52:54:00:`,
		`<name>GigabitEthernet2</name>`, `<admin-status>down</admin-status><oper-status>down</oper-status>`,
		`<statistics><discontinuity-time>2026-11-20T08:00:00Z</discontinuity-time><in-octets>`,
		`<ipv4 xmlns="urn:ietf:params:xml:ns:yang:ietf-ip"><forwarding>true</forwarding><mtu>1500</mtu>` +
			`<address><ip>10.0.10.1</ip><prefix-length>24</prefix-length><origin>static</origin></address></ipv4>`,
		`ianaift:softwareLoopback`,
	} {
		if !strings.Contains(doc, want) {
			t.Errorf("missing %s in\n%s", want, doc)
		}
	}
}
