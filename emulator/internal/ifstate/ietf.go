package ifstate

import (
	"encoding/xml"
	"strconv"
	"strings"
	"time"

	"transportlab/emulator/internal/netconf/xmltree"
)

// Namespaces of the operational model NETCONF and RESTCONF report:
// ietf-interfaces (RFC 8343, the interfaces-state branch that IOS-XE
// serves and ncclient scripts filter for) with the ietf-ip augmentation.
const (
	InterfacesModule = "ietf-interfaces"
	InterfacesNS     = "urn:ietf:params:xml:ns:yang:ietf-interfaces"
	IPNS             = "urn:ietf:params:xml:ns:yang:ietf-ip"
	ianaTypesNS      = "urn:ietf:params:xml:ns:yang:iana-if-type"
)

// InterfacesState renders states as ietf-interfaces "interfaces-state";
// booted is the time counters started from (discontinuity-time).
func InterfacesState(states []State, booted time.Time) *xmltree.Node {
	root := xmltree.Elem(InterfacesNS, "interfaces-state")
	for _, s := range states {
		leaf := func(name, value string) *xmltree.Node { return xmltree.Leaf(InterfacesNS, name, value) }
		count := func(name string, v uint64) *xmltree.Node { return leaf(name, strconv.FormatUint(v, 10)) }
		// The identity's prefix is declared where it is used, as the
		// reply of a real device does.
		ifType := leaf("type", "ianaift:"+IANAType(s.Kind))
		ifType.Attr = []xml.Attr{{Name: xml.Name{Local: "xmlns:ianaift"}, Value: ianaTypesNS}}
		e := xmltree.Elem(InterfacesNS, "interface", leaf("name", s.Name), ifType,
			leaf("admin-status", upDown(s.AdminUp)), leaf("oper-status", upDown(s.OperUp)),
			leaf("if-index", strconv.Itoa(s.IfIndex)))
		if s.MAC != "" {
			e.Children = append(e.Children, leaf("phys-address", colonMAC(s.MAC)))
		}
		e.Children = append(e.Children, count("speed", s.Speed), xmltree.Elem(InterfacesNS, "statistics",
			leaf("discontinuity-time", booted.UTC().Format(time.RFC3339)),
			count("in-octets", s.InOctets), count("in-unicast-pkts", s.InUnicast),
			count("in-broadcast-pkts", s.InBroadcast), count("in-multicast-pkts", s.InMulticast),
			count("in-discards", 0), count("in-errors", 0), count("in-unknown-protos", 0),
			count("out-octets", s.OutOctets), count("out-unicast-pkts", s.OutUnicast),
			count("out-broadcast-pkts", s.OutBroadcast), count("out-multicast-pkts", s.OutMulticast),
			count("out-discards", 0), count("out-errors", 0)))
		ipv4 := xmltree.Elem(IPNS, "ipv4", xmltree.Leaf(IPNS, "forwarding", "true"),
			xmltree.Leaf(IPNS, "mtu", strconv.Itoa(s.MTU)))
		if s.Address != "" {
			ipv4.Children = append(ipv4.Children, xmltree.Elem(IPNS, "address", xmltree.Leaf(IPNS, "ip", s.Address),
				xmltree.Leaf(IPNS, "prefix-length", strconv.Itoa(s.PrefixLen)), xmltree.Leaf(IPNS, "origin", "static")))
		}
		e.Children = append(e.Children, ipv4)
		root.Children = append(root.Children, e)
	}
	return root
}

func upDown(up bool) string {
	if up {
		return "up"
	}
	return "down"
}

// IANAType is the iana-if-type identity of an interface type.
func IANAType(kind string) string {
	switch kind {
	case "Loopback":
		return "softwareLoopback"
	case "Tunnel":
		return "tunnel"
	case "VirtualPortGroup", "Vlan", "BDI":
		return "propVirtual"
	case "Port-channel":
		return "ieee8023adLag"
	}
	return "ethernetCsmacd"
}

// colonMAC turns "5254.0012.3401" into YANG's "52:54:00:12:34:01".
func colonMAC(dotted string) string {
	hex := strings.ReplaceAll(dotted, ".", "")
	var parts []string
	for k := 0; k+2 <= len(hex); k += 2 {
		parts = append(parts, hex[k:k+2])
	}
	return strings.Join(parts, ":")
}
