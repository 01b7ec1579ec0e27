// Package ifstate is what a device knows about its interfaces: their
// configuration, read from running-config lines (the configuration store's
// CLI view, so every transport sees the same interfaces), and the state a
// real device reports for them: status, addresses and traffic counters that
// grow with uptime. CLI transcripts ("show interfaces") and NETCONF/RESTCONF
// state data render the same values.
package ifstate

import (
	"net/netip"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Interface is the configuration of one interface.
type Interface struct {
	// Name is the full name, Kind and Number its parts:
	// "GigabitEthernet1" = "GigabitEthernet" + "1".
	Name, Kind, Number string
	Description        string
	// Address is the primary IPv4 address, "" when unassigned.
	Address   string
	PrefixLen int
	Shutdown  bool
}

// Mask is the dotted netmask of the address ("255.255.255.252"), "" when
// unassigned.
func (i Interface) Mask() string {
	if i.Address == "" || i.PrefixLen < 0 || i.PrefixLen > 32 {
		return ""
	}
	return maskOf(i.PrefixLen)
}

// CIDR is "198.18.0.2/30", "" when unassigned.
func (i Interface) CIDR() string {
	if i.Address == "" {
		return ""
	}
	return i.Address + "/" + strconv.Itoa(i.PrefixLen)
}

func maskOf(bits int) string {
	var m [4]byte
	for k := 0; k < bits; k++ {
		m[k/8] |= 0x80 >> (k % 8)
	}
	return netip.AddrFrom4(m).String()
}

// PrefixLen converts a dotted netmask to a prefix length; ok is false for
// anything but a contiguous IPv4 mask.
func PrefixLen(mask string) (int, bool) {
	a, err := netip.ParseAddr(mask)
	if err != nil || !a.Is4() {
		return 0, false
	}
	b := a.As4()
	bits := 0
	for bits < 32 && b[bits/8]&(0x80>>(bits%8)) != 0 {
		bits++
	}
	return bits, maskOf(bits) == mask
}

var namePattern = regexp.MustCompile(`^([A-Za-z][A-Za-z-]*?)([0-9][0-9/.:]*)$`)

// FromRunningConfig reads the interface blocks of running-config lines: an
// "interface NAME" line at the left margin, then indented lines, of which
// "description TEXT", "ip address ADDR MASK" (IOS), "ip address ADDR/LEN"
// (EOS) and "shutdown" matter here. The result is sorted as devices list
// interfaces: by type, then by number.
func FromRunningConfig(lines []string) []Interface {
	var out []Interface
	var cur *Interface
	for _, line := range lines {
		text := strings.TrimSpace(line)
		if text != line && cur != nil {
			cur.apply(text)
			continue
		}
		cur = nil
		name, ok := strings.CutPrefix(text, "interface ")
		if !ok {
			continue
		}
		m := namePattern.FindStringSubmatch(strings.TrimSpace(name))
		if m == nil {
			continue
		}
		out = append(out, Interface{Name: m[1] + m[2], Kind: m[1], Number: m[2]})
		cur = &out[len(out)-1]
	}
	sort.SliceStable(out, func(a, b int) bool { return less(out[a], out[b]) })
	return out
}

func (i *Interface) apply(line string) {
	fields := strings.Fields(line)
	switch {
	case len(fields) > 1 && fields[0] == "description":
		i.Description = strings.TrimSpace(strings.TrimPrefix(line, "description"))
	case line == "shutdown":
		i.Shutdown = true
	case len(fields) >= 3 && fields[0] == "ip" && fields[1] == "address":
		if p, err := netip.ParsePrefix(fields[2]); err == nil && p.Addr().Is4() {
			i.Address, i.PrefixLen = p.Addr().String(), p.Bits()
			return
		}
		a, err := netip.ParseAddr(fields[2])
		if err != nil || !a.Is4() || len(fields) < 4 {
			return
		}
		if bits, ok := PrefixLen(fields[3]); ok {
			i.Address, i.PrefixLen = a.String(), bits
		}
	}
}

// less orders by type name, then numerically by each part of the number
// ("GigabitEthernet2" before "GigabitEthernet10", "0/1" before "0/2").
func less(a, b Interface) bool {
	if a.Kind != b.Kind {
		return a.Kind < b.Kind
	}
	pa, pb := numberParts(a.Number), numberParts(b.Number)
	for k := 0; k < len(pa) && k < len(pb); k++ {
		if pa[k] != pb[k] {
			return pa[k] < pb[k]
		}
	}
	return len(pa) < len(pb)
}

func numberParts(n string) []int {
	var parts []int
	for _, f := range strings.FieldsFunc(n, func(r rune) bool { return r < '0' || r > '9' }) {
		v, _ := strconv.Atoi(f)
		parts = append(parts, v)
	}
	return parts
}
