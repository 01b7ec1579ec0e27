// Package configdb is the device's one configuration store: the NETCONF
// running datastore (shared with RESTCONF) seen as CLI configuration
// lines. The daemon owns it; the HTTPS API uses it in-process and SSH
// shells through a unix socket (see Serve and Client).
//
// Mapping between CLI lines and the Cisco-IOS-XE-native-like tree:
//
//	hostname NAME                   native/hostname
//	interface TYPE NUM              native/interface/TYPE[name=NUM]
//	 description TEXT               .../description
//	 ip address ADDR [MASK]         .../ip/address/primary/{address,mask}
//	 shutdown                       .../shutdown (empty leaf)
//	 no description|ip address|shutdown   removes the leaf
//	no interface TYPE NUM           removes the list entry
//
// Interface types are canonicalised from unique prefixes ("Gi2" is
// GigabitEthernet 2). Other lines (global ones and unmapped interface
// sub-mode lines such as "negotiation auto") have no YANG counterpart here:
// the store keeps them beside the tree and shows them in running-config
// only.
package configdb

import (
	"encoding/xml"
	"errors"
	"regexp"
	"strings"
	"sync"
	"time"

	"transportlab/emulator/internal/engine"
	"transportlab/emulator/internal/ifstate"
	"transportlab/emulator/internal/netconf/datastore"
	"transportlab/emulator/internal/netconf/rpc"
	"transportlab/emulator/internal/netconf/xmltree"
)

// NativeModule and NativeNS name the IOS-XE native model (the RESTCONF
// module name and the XML namespace).
const (
	NativeModule = "Cisco-IOS-XE-native"
	NativeNS     = "http://cisco.com/ns/yang/Cisco-IOS-XE-native"
)

// interfaceTypes are the canonical interface type names.
var interfaceTypes = []string{"BDI", "Ethernet", "FastEthernet", "GigabitEthernet", "Loopback", "Management",
	"Port-channel", "TenGigabitEthernet", "Tunnel", "VirtualPortGroup", "Vlan"}

var interfacePattern = regexp.MustCompile(`^([A-Za-z][A-Za-z-]*?) ?([0-9][0-9/.:]*)$`)

// Store implements engine.ConfigStore on a datastore.
type Store struct {
	ds       *datastore.Store
	fallback string // hostname when the tree has none

	mu sync.Mutex
	// global holds lines without a tree mapping, with the engine's
	// in-memory semantics (dedup, "no X" removes X).
	global engine.ConfigStore
	// ifaceExtra holds unmapped sub-mode lines per interface, keyed by
	// canonical "interface TYPENUM".
	ifaceExtra map[string][]string
	// booted is when the device started: interface counters grow from it.
	booted time.Time
}

var _ engine.ConfigStore = (*Store)(nil)

// New wraps ds; hostname is shown while the tree holds no hostname. The
// store becomes the source of ds's operational state: the interfaces of
// its configuration with their state and counters (internal/ifstate), as
// the device has been up since now (SetBootTime changes that).
func New(ds *datastore.Store, hostname string) *Store {
	s := &Store{ds: ds, fallback: hostname, global: engine.NewMemoryStore(hostname), ifaceExtra: map[string][]string{},
		booted: time.Now()}
	ds.SetState(s.state)
	return s
}

// SetBootTime sets when the device started, so counters reported over
// NETCONF and RESTCONF match those the CLI computes from the same time.
func (s *Store) SetBootTime(t time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.booted = t
}

// BootTime is when the device started.
func (s *Store) BootTime() time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.booted
}

// state is the operational data of the device's interfaces.
func (s *Store) state() []*xmltree.Node {
	lines, _ := s.Lines()
	s.mu.Lock()
	booted := s.booted
	s.mu.Unlock()
	states := ifstate.Snapshot(ifstate.FromRunningConfig(lines), time.Since(booted))
	return []*xmltree.Node{ifstate.InterfacesState(states, booted)}
}

// Hostname implements engine.ConfigStore.
func (s *Store) Hostname() string {
	for _, n := range s.running() {
		if h := n.Child("hostname"); h != nil && h.IsLeaf() && h.Value() != "" {
			return h.Value()
		}
	}
	return s.fallback
}

func (s *Store) running() []*xmltree.Node {
	nodes, _ := s.ds.Get(datastore.Running, xmltree.Elem("", "filter", xmltree.Elem(NativeNS, "native")))
	return nodes
}

// iface is a parsed interface name.
type iface struct{ kind, name string }

func (i iface) header() string { return "interface " + i.kind + i.name }

// parseInterface reads "GigabitEthernet2", "Gi 2" or "Loopback0".
func parseInterface(text string) (iface, bool) {
	m := interfacePattern.FindStringSubmatch(strings.TrimSpace(text))
	if m == nil {
		return iface{}, false
	}
	kind, found := m[1], ""
	for _, t := range interfaceTypes {
		if strings.EqualFold(t, kind) {
			found = t
			break
		}
		if len(kind) < len(t) && strings.EqualFold(t[:len(kind)], kind) {
			if found != "" {
				found = kind // ambiguous: keep as typed
				break
			}
			found = t
		}
	}
	if found == "" {
		found = kind
	}
	return iface{kind: found, name: m[2]}, true
}

// Apply implements engine.ConfigStore.
func (s *Store) Apply(block, line string) error {
	c, mapped := s.changeOf(block, line)
	if !mapped {
		return s.global.Apply(block, strings.TrimSpace(line))
	}
	if err := s.edit(c.tree...); err != nil {
		return err
	}
	s.keepBeside(c)
	return nil
}

// Line is one configuration line in the block it belongs to ("" for a
// global line), as Apply takes it.
type Line struct{ Block, Text string }

// ApplyLines applies lines in order as one commit: all of them, or, when
// one is refused, none (the datastore edit is atomic). Only lines with a
// tree mapping, or interface sub-mode lines, may be batched.
func (s *Store) ApplyLines(lines []Line) error {
	var tree []*xmltree.Node
	var changes []change
	for _, l := range lines {
		c, mapped := s.changeOf(l.Block, l.Text)
		if !mapped {
			return errors.New("Configuration rejected: not a line of the configuration tree: " + l.Text)
		}
		tree = append(tree, c.tree...)
		changes = append(changes, c)
	}
	if err := s.edit(tree...); err != nil {
		return err
	}
	for _, c := range changes {
		s.keepBeside(c)
	}
	return nil
}

// change is what one configuration line does: edits of the tree, applied
// together, then a change of the unmapped sub-mode lines kept beside it.
type change struct {
	tree []*xmltree.Node
	// header names the interface whose unmapped lines change; "" if none.
	header string
	// forget drops them all (no interface); extra adds or removes one.
	forget bool
	extra  string
}

func (s *Store) keepBeside(c change) {
	if c.header == "" {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case c.forget:
		delete(s.ifaceExtra, c.header)
	case c.extra != "":
		s.ifaceExtra[c.header] = applyExtra(s.ifaceExtra[c.header], c.extra)
	}
}

// changeOf maps a line to its change; mapped is false for a global line
// without a tree mapping, which the in-memory store keeps.
func (s *Store) changeOf(block, line string) (c change, mapped bool) {
	line = strings.TrimSpace(line)
	if block == "" {
		return globalChange(line)
	}
	rest, isInterface := strings.CutPrefix(block, "interface ")
	i, ok := parseInterface(rest)
	if !isInterface || !ok {
		return change{}, false
	}
	return interfaceChange(i, line), true
}

func globalChange(line string) (change, bool) {
	if name, ok := strings.CutPrefix(line, "hostname "); ok {
		return change{tree: []*xmltree.Node{native(xmltree.Leaf(NativeNS, "hostname", name))}}, true
	}
	if rest, ok := strings.CutPrefix(line, "interface "); ok {
		if i, ok := parseInterface(rest); ok {
			return change{tree: []*xmltree.Node{entry(i)}}, true
		}
	}
	if rest, ok := strings.CutPrefix(line, "no interface "); ok {
		if i, ok := parseInterface(rest); ok {
			e := entry(i)
			interfaceOf(e).Children[0].Attr = []xml.Attr{removeAttr}
			return change{tree: []*xmltree.Node{e}, header: i.header(), forget: true}, true
		}
	}
	return change{}, false
}

var removeAttr = xml.Attr{Name: xml.Name{Space: rpc.BaseNS, Local: "operation"}, Value: "remove"}

func removed(n *xmltree.Node) *xmltree.Node {
	n.Attr = []xml.Attr{removeAttr}
	return n
}

func interfaceChange(i iface, line string) change {
	fields := strings.Fields(line)
	var leaf *xmltree.Node
	switch {
	case len(fields) > 1 && fields[0] == "description":
		leaf = xmltree.Leaf(NativeNS, "description", strings.TrimSpace(strings.TrimPrefix(line, "description")))
	case line == "no description":
		leaf = removed(xmltree.Leaf(NativeNS, "description", ""))
	case len(fields) >= 3 && len(fields) <= 4 && fields[0] == "ip" && fields[1] == "address":
		primary := xmltree.Elem(NativeNS, "primary", xmltree.Leaf(NativeNS, "address", fields[2]))
		if len(fields) == 4 {
			primary.Children = append(primary.Children, xmltree.Leaf(NativeNS, "mask", fields[3]))
		}
		leaf = xmltree.Elem(NativeNS, "ip", xmltree.Elem(NativeNS, "address", primary))
		leaf.Children[0].Children[0].Attr = []xml.Attr{{Name: removeAttr.Name, Value: "replace"}}
	case line == "no ip address":
		leaf = xmltree.Elem(NativeNS, "ip", removed(xmltree.Elem(NativeNS, "address")))
	case line == "shutdown":
		leaf = xmltree.Leaf(NativeNS, "shutdown", "")
	case line == "no shutdown":
		leaf = removed(xmltree.Leaf(NativeNS, "shutdown", ""))
	default:
		// Unmapped: kept beside the tree, but the entry must exist.
		return change{tree: []*xmltree.Node{entry(i)}, header: i.header(), extra: line}
	}
	withChange := entry(i)
	list := interfaceOf(withChange).Children[0]
	list.Children = append(list.Children, leaf)
	// The entry is created first, so a removal never creates an empty leaf.
	return change{tree: []*xmltree.Node{entry(i), withChange}}
}

// applyExtra records an unmapped sub-mode line: once, and "no X" removes X.
func applyExtra(lines []string, line string) []string {
	if target, ok := strings.CutPrefix(line, "no "); ok {
		for k, l := range lines {
			if strings.EqualFold(l, target) {
				return append(lines[:k:k], lines[k+1:]...)
			}
		}
	}
	for _, l := range lines {
		if strings.EqualFold(l, line) {
			return lines
		}
	}
	return append(lines, line)
}

func native(children ...*xmltree.Node) *xmltree.Node {
	return xmltree.Elem(NativeNS, "native", children...)
}

// entry is native/interface/TYPE[name=NUM] with only the key.
func entry(i iface) *xmltree.Node {
	return native(xmltree.Elem(NativeNS, "interface", xmltree.Elem(NativeNS, i.kind, xmltree.Leaf(NativeNS, "name", i.name))))
}

func interfaceOf(n *xmltree.Node) *xmltree.Node { return n.Children[0] }

// ErrLocked refuses a change while a NETCONF session holds the lock of
// running; its text is shown to the user.
//
//lint:ignore ST1005 device wording, shown to the user after "% " (engine.ConfigStore.Apply)
var ErrLocked = errors.New("Configuration is locked by a NETCONF session; try again later")

// CanonicalInterface is the name the store gives an interface typed as
// text ("Gi2" is "GigabitEthernet2"); ok is false for no interface name.
func CanonicalInterface(text string) (name string, ok bool) {
	i, ok := parseInterface(text)
	return i.kind + i.name, ok
}

func (s *Store) edit(config ...*xmltree.Node) error {
	if err := s.ds.EditRunning(config); err != nil {
		if err.Tag == "in-use" {
			return ErrLocked
		}
		return errors.New("Configuration rejected: " + err.Message)
	}
	return nil
}

// Lines implements engine.ConfigStore: the interfaces of the tree, then
// the unmapped lines.
func (s *Store) Lines() ([]string, error) {
	var lines []string
	s.mu.Lock()
	for _, n := range s.running() {
		ifs := n.Child("interface")
		if ifs == nil {
			continue
		}
		for _, e := range ifs.Children {
			key := e.Child("name")
			if key == nil || !key.IsLeaf() || key.Value() == "" {
				continue
			}
			i := iface{kind: e.Name.Local, name: key.Value()}
			lines = append(lines, i.header())
			lines = append(lines, interfaceLines(e)...)
			for _, l := range s.ifaceExtra[i.header()] {
				lines = append(lines, " "+l)
			}
			lines = append(lines, "!")
		}
	}
	s.mu.Unlock()
	global, err := s.global.Lines()
	return append(lines, global...), err
}

// interfaceLines renders the mapped leaves of one interface entry.
func interfaceLines(e *xmltree.Node) []string {
	var lines []string
	if d := e.Child("description"); d != nil && d.IsLeaf() && d.Value() != "" {
		lines = append(lines, " description "+d.Value())
	}
	if ip := e.Child("ip"); ip != nil {
		if a := ip.Child("address"); a != nil {
			if p := a.Child("primary"); p != nil {
				if addr := p.Child("address"); addr != nil && addr.IsLeaf() && addr.Value() != "" {
					line := " ip address " + addr.Value()
					if mask := p.Child("mask"); mask != nil && mask.IsLeaf() && mask.Value() != "" {
						line += " " + mask.Value()
					}
					lines = append(lines, line)
				}
			}
		}
	}
	if sh := e.Child("shutdown"); sh != nil && sh.IsLeaf() {
		lines = append(lines, " shutdown")
	}
	return lines
}
