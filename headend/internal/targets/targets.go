// Package targets is the head-end's allow-list of devices: IPv4 blocks and
// exact host names. Anything else is refused, so the head-end never relays
// SSH to an address an API user picks (an open relay into the LAN).
package targets

import (
	"fmt"
	"net/netip"
	"strings"
)

// List is a parsed allow-list.
type List struct {
	blocks []netip.Prefix
	names  map[string]bool
}

// Parse reads a comma-separated list of IPv4 CIDR blocks, IPv4 addresses
// (one address each) and host names. Blanks around entries are ignored; an
// empty list is an error (a head-end that may reach nothing is a mistake).
func Parse(s string) (List, error) {
	l := List{names: map[string]bool{}}
	for entry := range strings.SplitSeq(s, ",") {
		entry = strings.TrimSpace(entry)
		if entry == "" {
			continue
		}
		if strings.Contains(entry, "/") {
			block, err := netip.ParsePrefix(entry)
			if err != nil || !block.Addr().Is4() {
				return List{}, fmt.Errorf("%q is not an IPv4 CIDR block", entry)
			}
			l.blocks = append(l.blocks, block.Masked())
			continue
		}
		if addr, err := netip.ParseAddr(entry); err == nil {
			if !addr.Is4() {
				return List{}, fmt.Errorf("%q: only IPv4 addresses are supported", entry)
			}
			l.blocks = append(l.blocks, netip.PrefixFrom(addr, 32))
			continue
		}
		if !IsHostName(entry) {
			return List{}, fmt.Errorf("%q is neither an IPv4 CIDR block, an IPv4 address nor a host name", entry)
		}
		l.names[strings.ToLower(entry)] = true
	}
	if len(l.blocks) == 0 && len(l.names) == 0 {
		return List{}, fmt.Errorf("no targets")
	}
	return l, nil
}

// Allows reports whether device, an IPv4 address or a host name, may be
// reached. A name is allowed only when listed itself: it is never resolved
// here, since what it resolves to could change between this check and the
// dial.
func (l List) Allows(device string) bool {
	if addr, err := netip.ParseAddr(device); err == nil {
		for _, block := range l.blocks {
			if block.Contains(addr) {
				return true
			}
		}
		return false
	}
	return l.names[strings.ToLower(device)]
}

// IsHostName reports whether s is a syntactically valid DNS host name
// (RFC 1123 labels: letters, digits and inner hyphens, 1..63 each, 253 in
// all).
func IsHostName(s string) bool {
	if s == "" || len(s) > 253 {
		return false
	}
	for label := range strings.SplitSeq(s, ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for _, r := range label {
			if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-') {
				return false
			}
		}
	}
	return true
}
