package openconfig

import (
	"encoding/json"
	"net/netip"
	"strconv"
	"strings"
	"unicode"

	"transportlab/emulator/internal/configdb"
	"transportlab/emulator/internal/ifstate"
)

// Replacement replaces the node at Path with the leaves of its new value
// (DecodeJSON of it, or the one leaf a scalar gives).
type Replacement struct {
	Path   Path
	Leaves []Write
}

// Change is one gNMI Set: deletes, then replaces, then updates.
type Change struct {
	Delete  []Path
	Replace []Replacement
	Update  [][]Write
}

// Lines turns change, on device d as it is, into the configuration lines
// that make it, in gNMI's order, or refuses it whole. What can be written:
// the hostname, an interface's description and enabled (false is
// shutdown), its subinterface 0's IPv4 address; a description, or any
// write, under an interface that does not exist creates it, as
// `interface NAME` does. Deleting an interface, a description, enabled
// (back to true) or the address is allowed; deleting what does not exist
// does nothing (gNMI).
func Lines(d Device, change Change) ([]configdb.Line, error) {
	p := planner{d: d, exists: map[string]bool{}, addresses: map[string]address{}}
	for _, name := range Interfaces(d) {
		p.exists[name] = true
		if a, ok := addressOf(d, name); ok {
			p.addresses[name] = a
		}
	}
	for _, path := range change.Delete {
		if err := p.delete(path); err != nil {
			return nil, err
		}
	}
	for _, r := range change.Replace {
		if err := p.replace(r); err != nil {
			return nil, err
		}
	}
	for _, writes := range change.Update {
		if err := p.writeAll(writes); err != nil {
			return nil, err
		}
	}
	return p.lines, nil
}

// planner tracks the interfaces and addresses the lines so far leave.
type planner struct {
	d         Device
	exists    map[string]bool
	addresses map[string]address
	lines     []configdb.Line
}

func (p *planner) global(text string) { p.lines = append(p.lines, configdb.Line{Text: text}) }

func (p *planner) sub(name, text string) {
	p.ensure(name)
	p.lines = append(p.lines, configdb.Line{Block: "interface " + name, Text: text})
}

// ensure creates interface name unless it exists.
func (p *planner) ensure(name string) {
	if !p.exists[name] {
		p.exists[name] = true
		p.global("interface " + name)
	}
}

// target checks a Set path: not wildcarded, in the view's schema, and for
// an interface path with a canonical interface name, which it returns.
func target(path Path) (string, error) {
	if path.Wildcarded() {
		return "", invalid("%s: a Set path names one node (no wildcards)", path)
	}
	if !InSchema(path) {
		return "", notFound("%s: no such node in openconfig-interfaces or openconfig-system", path)
	}
	if len(path) < 2 || path[1].Name != "interface" {
		return "", nil
	}
	name, ok := path[1].Keys["name"]
	if !ok {
		return "", invalid("%s: the interface needs its name key", path)
	}
	if canonical, ok := configdb.CanonicalInterface(name); !ok || canonical != name || !simpleText(name) {
		return "", invalid("%s: %q is not an interface name as running-config shows it", path, name)
	}
	if len(path) > 3 && path[3].Name == "subinterface" && path[3].Keys["index"] != "0" {
		return "", invalid("%s: only subinterface 0 is served", path)
	}
	if len(path) > 6 && path[6].Name == "address" {
		a, err := netip.ParseAddr(path[6].Keys["ip"])
		if err != nil || !a.Is4() || a.String() != path[6].Keys["ip"] {
			return "", invalid("%s: not an IPv4 address", path)
		}
	}
	return name, nil
}

func (p *planner) delete(path Path) error {
	name, err := target(path)
	if err != nil {
		return err
	}
	shape := path.Shape()
	if name == "" || len(path) < 2 {
		return invalid("%s cannot be deleted", path)
	}
	if !p.exists[name] {
		return nil
	}
	rel := strings.TrimPrefix(shape, interfaceShape)
	switch {
	case rel == "":
		p.global("no interface " + name)
		delete(p.exists, name)
		delete(p.addresses, name)
	case rel == "/config":
		p.sub(name, "no description")
		p.sub(name, "no shutdown")
	case rel == "/config/description":
		p.sub(name, "no description")
	case rel == "/config/enabled":
		p.sub(name, "no shutdown")
	case rel == "/subinterfaces" || rel == "/subinterfaces/subinterface" ||
		rel == "/subinterfaces/subinterface/ipv4" || rel == "/subinterfaces/subinterface/ipv4/addresses":
		p.removeAddress(name, "")
	case strings.HasPrefix(shape, addressShape) && shape != addressShape+"/config/prefix-length" &&
		!strings.HasPrefix(shape, addressShape+"/state"):
		p.removeAddress(name, path[6].Keys["ip"])
	default:
		return invalid("%s cannot be deleted", path)
	}
	return nil
}

// removeAddress removes interface name's address, if it has one (equal
// to ip unless ip is empty).
func (p *planner) removeAddress(name, ip string) {
	if a, ok := p.addresses[name]; ok && (ip == "" || a.ip == ip) {
		p.sub(name, "no ip address")
		delete(p.addresses, name)
	}
}

func (p *planner) replace(r Replacement) error {
	name, err := target(r.Path)
	if err != nil {
		return err
	}
	switch rel := strings.TrimPrefix(r.Path.Shape(), interfaceShape); {
	case name == "":
		if len(r.Path) == 0 || r.Path[0].Name != "system" {
			return invalid("replace of %s is not supported: replace /system, an interface or below", r.Path)
		}
		if !hasLeaf(r.Leaves, hostnameConfig) {
			return invalid("replace of %s: the hostname is mandatory", r.Path)
		}
	case rel == "":
		p.ensure(name)
		p.sub(name, "no description")
		p.sub(name, "no shutdown")
		p.removeAddress(name, "")
	case rel == "/config":
		p.ensure(name)
		p.sub(name, "no description")
		p.sub(name, "no shutdown")
	case strings.HasPrefix(addressShape, r.Path.Shape()) && strings.HasPrefix(rel, "/subinterfaces"):
		p.removeAddress(name, "")
	case isConfigLeaf(r.Path):
	default:
		return invalid("replace of %s is not supported", r.Path)
	}
	return p.writeAll(r.Leaves)
}

func isConfigLeaf(p Path) bool {
	kind, ok := schema[p.Shape()]
	return ok && (kind == Config || kind == Key)
}

func hasLeaf(writes []Write, shape string) bool {
	for _, w := range writes {
		if w.Path.Shape() == shape {
			return true
		}
	}
	return false
}

// pendingAddress is an address being written: its ip, and its prefix
// length once one of the writes gives it.
type pendingAddress struct {
	ip        string
	prefixLen int
	hasPrefix bool
}

// writeAll writes leaves; an address's ip and prefix length, which one
// CLI line sets, are written together after the others.
func (p *planner) writeAll(writes []Write) error {
	pending := map[string]*pendingAddress{}
	var order []string
	for _, w := range writes {
		name, err := target(w.Path)
		if err != nil {
			return err
		}
		if strings.HasPrefix(w.Path.Shape(), addressShape) {
			ip := w.Path[6].Keys["ip"]
			a := pending[name]
			if a == nil || a.ip != ip {
				if a != nil {
					return invalid("%s: interface %s has one IPv4 address, %s is given too", w.Path, name, a.ip)
				}
				a = &pendingAddress{ip: ip}
				pending[name] = a
				order = append(order, name)
			}
			if err := writeAddress(w, a); err != nil {
				return err
			}
			continue
		}
		if err := p.write(name, w); err != nil {
			return err
		}
	}
	for _, name := range order {
		a := pending[name]
		if !a.hasPrefix {
			current, ok := p.addresses[name]
			if !ok || current.ip != a.ip {
				return invalid("interface %s: the prefix-length of %s is needed", name, a.ip)
			}
			a.prefixLen = current.prefixLen
		}
		p.sub(name, p.addressLine(a.ip, a.prefixLen))
		p.addresses[name] = address{ip: a.ip, prefixLen: a.prefixLen}
	}
	return nil
}

// addressLine is the platform's CLI line for an address.
func (p *planner) addressLine(ip string, prefixLen int) string {
	if p.d.Platform == "arista_eos" {
		return "ip address " + ip + "/" + strconv.Itoa(prefixLen)
	}
	return "ip address " + ip + " " + ifstate.Interface{Address: ip, PrefixLen: prefixLen}.Mask()
}

func writeAddress(w Write, a *pendingAddress) error {
	switch strings.TrimPrefix(w.Path.Shape(), addressShape) {
	case "/ip", "/config/ip":
		if s, ok := w.Value.(string); !ok || s != a.ip {
			return invalid("%s: must equal the key %s", w.Path, a.ip)
		}
	case "/config/prefix-length":
		n, err := unsigned(w, 32)
		if err != nil {
			return err
		}
		a.prefixLen, a.hasPrefix = int(n), true
	default:
		return readOnly(w.Path)
	}
	return nil
}

func (p *planner) write(name string, w Write) error {
	shape := w.Path.Shape()
	if name == "" {
		if shape != hostnameConfig {
			return readOnly(w.Path)
		}
		s, ok := w.Value.(string)
		if !ok || s == "" || strings.ContainsFunc(s, unicode.IsSpace) || !simpleText(s) {
			return invalid("%s: a hostname is one word", w.Path)
		}
		p.global("hostname " + s)
		return nil
	}
	switch strings.TrimPrefix(shape, interfaceShape) {
	case "/name", "/config/name":
		if s, ok := w.Value.(string); !ok || s != name {
			return invalid("%s: must equal the key %s", w.Path, name)
		}
		p.ensure(name)
	case "/config/description":
		s, ok := w.Value.(string)
		if !ok || !simpleText(s) {
			return invalid("%s: a description is one line of printable text", w.Path)
		}
		if strings.TrimSpace(s) == "" {
			p.sub(name, "no description")
		} else {
			p.sub(name, "description "+s)
		}
	case "/config/enabled":
		enabled, ok := w.Value.(bool)
		if !ok {
			return invalid("%s: enabled is a boolean", w.Path)
		}
		if enabled {
			p.sub(name, "no shutdown")
		} else {
			p.sub(name, "shutdown")
		}
	case "/config/type":
		s, _ := w.Value.(string)
		want := "iana-if-type:" + ifstate.IANAType(kindOf(name))
		if s != want && s != strings.TrimPrefix(want, "iana-if-type:") {
			return invalid("%s: the type of %s is %s", w.Path, name, want)
		}
		p.ensure(name)
	case "/config/mtu":
		n, err := unsigned(w, 65535)
		if err != nil {
			return err
		}
		if want := mtuOf(name); int(n) != want {
			return invalid("%s: the MTU of %s is fixed at %d here", w.Path, name, want)
		}
		p.ensure(name)
	case "/subinterfaces/subinterface/index", "/subinterfaces/subinterface/config/index":
		if n, err := unsigned(w, 0); err != nil || n != 0 {
			return invalid("%s: must equal the key 0", w.Path)
		}
		p.ensure(name)
	default:
		return readOnly(w.Path)
	}
	return nil
}

func readOnly(path Path) error {
	if _, known := schema[path.Shape()]; known {
		return invalid("%s is read-only", path)
	}
	return invalid("%s is not a leaf", path)
}

// simpleText is one line of printable text: a configuration line's
// argument.
func simpleText(s string) bool {
	return !strings.ContainsFunc(s, func(r rune) bool { return !unicode.IsPrint(r) })
}

// unsigned reads a number (json.Number, or the decimal text of one) no
// larger than max.
func unsigned(w Write, max uint64) (uint64, error) {
	var text string
	switch v := w.Value.(type) {
	case json.Number:
		text = v.String()
	case string:
		text = v
	}
	n, err := strconv.ParseUint(text, 10, 64)
	if err != nil || n > max {
		return 0, invalid("%s: not a number from 0 to %d", w.Path, max)
	}
	return n, nil
}

func kindOf(name string) string {
	ifs := ifstate.FromRunningConfig([]string{"interface " + name})
	if len(ifs) == 0 {
		return ""
	}
	return ifs[0].Kind
}

func mtuOf(name string) int {
	states := ifstate.Snapshot(ifstate.FromRunningConfig([]string{"interface " + name}), 0)
	if len(states) == 0 {
		return 0
	}
	return states[0].MTU
}
