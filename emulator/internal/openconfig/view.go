package openconfig

import (
	"strings"
	"time"

	"transportlab/emulator/internal/ifstate"
)

// Device is what the view is computed from: one device at one moment.
type Device struct {
	Platform string
	// Hostname is the configured one (configdb.Store.Hostname).
	Hostname string
	// Lines are the store's running-config lines (configdb.Store.Lines).
	Lines []string
	// Booted is when the device started; Now is the moment of the view.
	Booted, Now time.Time
	// LastChange is when an interface's status last changed, by name;
	// absent: at boot.
	LastChange map[string]time.Time
}

// Identity is a YANG identityref value, module-qualified
// ("iana-if-type:ethernetCsmacd").
type Identity string

// Leaf is one value of the view. Value is a string, bool, uint8, uint16,
// uint32, uint64 or Identity.
type Leaf struct {
	Path  Path
	Value any
	Kind  Kind
	// Volatile leaves change without a commit (counters, the clock):
	// sampled, never reported on change.
	Volatile bool
}

// softwareVersions are the versions the platforms' `show version`
// transcripts print.
var softwareVersions = map[string]string{"cisco_iosxe": "17.09.04a", "arista_eos": "4.32.2F"}

// Leaves is the whole view of d: the system, then the interfaces in the
// order `show running-config` lists them.
func Leaves(d Device) []Leaf {
	var out []Leaf
	add := func(p Path, v any, kind Kind, volatile bool) {
		out = append(out, Leaf{Path: p, Value: v, Kind: kind, Volatile: volatile})
	}
	system := Path{E("system")}
	add(system.Child(E("config")).Child(E("hostname")), d.Hostname, Config, false)
	state := system.Child(E("state"))
	add(state.Child(E("hostname")), d.Hostname, State, false)
	add(state.Child(E("software-version")), softwareVersions[d.Platform], Operational, false)
	add(state.Child(E("boot-time")), uint64(d.Booted.UnixNano()), Operational, false)
	add(state.Child(E("current-datetime")), d.Now.Format(time.RFC3339), Operational, true)

	for _, s := range interfaceStates(d) {
		entry := Path{E("interfaces"), K("interface", "name", s.Name)}
		add(entry.Child(E("name")), s.Name, Key, false)
		for _, container := range []struct {
			name string
			kind Kind
		}{{"config", Config}, {"state", State}} {
			c := entry.Child(E(container.name))
			add(c.Child(E("name")), s.Name, container.kind, false)
			if s.Description != "" {
				add(c.Child(E("description")), s.Description, container.kind, false)
			}
			add(c.Child(E("enabled")), !s.Shutdown, container.kind, false)
			add(c.Child(E("type")), Identity("iana-if-type:"+ifstate.IANAType(s.Kind)), container.kind, false)
			add(c.Child(E("mtu")), uint16(s.MTU), container.kind, false)
		}
		st := entry.Child(E("state"))
		add(st.Child(E("admin-status")), upDown(s.AdminUp), Operational, false)
		add(st.Child(E("oper-status")), upDown(s.OperUp), Operational, false)
		changed, ok := d.LastChange[s.Name]
		if !ok {
			changed = d.Booted
		}
		add(st.Child(E("last-change")), uint64(changed.UnixNano()), Operational, false)
		counters := st.Child(E("counters"))
		for k, v := range []uint64{s.InOctets, s.InPackets(), s.InUnicast, 0, s.OutOctets, s.OutPackets(), s.OutUnicast, 0} {
			add(counters.Child(E(counterNames[k])), v, Operational, true)
		}
		sub := entry.Child(E("subinterfaces")).Child(K("subinterface", "index", "0"))
		add(sub.Child(E("index")), uint32(0), Key, false)
		add(sub.Child(E("config")).Child(E("index")), uint32(0), Config, false)
		add(sub.Child(E("state")).Child(E("index")), uint32(0), State, false)
		if s.Address != "" {
			addr := sub.Child(E("ipv4")).Child(E("addresses")).Child(K("address", "ip", s.Address))
			add(addr.Child(E("ip")), s.Address, Key, false)
			for _, container := range []struct {
				name string
				kind Kind
			}{{"config", Config}, {"state", State}} {
				add(addr.Child(E(container.name)).Child(E("ip")), s.Address, container.kind, false)
				add(addr.Child(E(container.name)).Child(E("prefix-length")), uint8(s.PrefixLen), container.kind, false)
			}
		}
	}
	return out
}

// interfaceStates are the interfaces of d's lines with their state, in
// the lines' order (ifstate sorts them as `show interfaces` does).
func interfaceStates(d Device) []ifstate.State {
	states := ifstate.Snapshot(ifstate.FromRunningConfig(d.Lines), d.Now.Sub(d.Booted))
	byName := make(map[string]ifstate.State, len(states))
	for _, s := range states {
		byName[s.Name] = s
	}
	out := make([]ifstate.State, 0, len(states))
	for _, line := range d.Lines {
		name, ok := strings.CutPrefix(line, "interface ")
		if s, found := byName[strings.TrimSpace(name)]; ok && found {
			out = append(out, s)
		}
	}
	return out
}

func upDown(up bool) string {
	if up {
		return "UP"
	}
	return "DOWN"
}

// Interfaces are the names of the interfaces in d, in running-config order.
func Interfaces(d Device) []string {
	var names []string
	for _, s := range interfaceStates(d) {
		names = append(names, s.Name)
	}
	return names
}

// address is an interface's IPv4 address as the lines hold it.
type address struct {
	ip        string
	prefixLen int
}

// addressOf is the primary IPv4 address of interface name, ok false
// when it has none.
func addressOf(d Device, name string) (address, bool) {
	for _, s := range ifstate.FromRunningConfig(d.Lines) {
		if s.Name == name && s.Address != "" {
			return address{ip: s.Address, prefixLen: s.PrefixLen}, true
		}
	}
	return address{}, false
}
