package openconfig

import "strings"

// Module is a YANG module the view serves, as gNMI Capabilities names it.
type Module struct {
	Name, Organization, Version string
}

// Modules are the models of the view, at the revision whose subset it
// serves.
var Modules = []Module{
	{Name: "openconfig-interfaces", Organization: "OpenConfig working group", Version: "3.7.1"},
	{Name: "openconfig-if-ip", Organization: "OpenConfig working group", Version: "3.5.1"},
	{Name: "openconfig-system", Organization: "OpenConfig working group", Version: "2.1.0"},
}

// moduleOf is the module defining a node called name whose parent is in
// parent ("" at the root): the top-level containers name theirs, ipv4 is
// openconfig-if-ip's augmentation of a subinterface; anything else is in
// its parent's module.
func moduleOf(name, parent string) string {
	switch {
	case parent == "" && name == "interfaces":
		return "openconfig-interfaces"
	case parent == "" && name == "system":
		return "openconfig-system"
	case name == "ipv4":
		return "openconfig-if-ip"
	}
	return parent
}

// listKeys names the key leaf of each list of the view.
var listKeys = map[string]string{"interface": "name", "subinterface": "index", "address": "ip"}

// Kind classifies a leaf for a Get's data type.
type Kind int

const (
	// Config is a configuration leaf.
	Config Kind = iota
	// State mirrors configuration as applied (state/description).
	State
	// Operational is state with no configuration counterpart (counters,
	// oper-status).
	Operational
	// Key is a list entry's key leaf, which every data type includes.
	Key
)

// Leaf shapes of the view (Path.Shape), with their kinds.
const (
	hostnameConfig    = "/system/config/hostname"
	interfaceShape    = "/interfaces/interface"
	subinterfaceShape = interfaceShape + "/subinterfaces/subinterface"
	addressShape      = subinterfaceShape + "/ipv4/addresses/address"
)

// schema lists every leaf the view has, by shape.
var schema = func() map[string]Kind {
	s := map[string]Kind{
		hostnameConfig:                   Config,
		"/system/state/hostname":         State,
		"/system/state/software-version": Operational,
		"/system/state/boot-time":        Operational,
		"/system/state/current-datetime": Operational,
		interfaceShape + "/name":         Key,
		subinterfaceShape + "/index":     Key,
		addressShape + "/ip":             Key,
	}
	for _, leaf := range []string{"name", "description", "enabled", "type", "mtu"} {
		s[interfaceShape+"/config/"+leaf] = Config
		s[interfaceShape+"/state/"+leaf] = State
	}
	for _, leaf := range []string{"admin-status", "oper-status", "last-change"} {
		s[interfaceShape+"/state/"+leaf] = Operational
	}
	for _, counter := range counterNames {
		s[interfaceShape+"/state/counters/"+counter] = Operational
	}
	s[subinterfaceShape+"/config/index"] = Config
	s[subinterfaceShape+"/state/index"] = State
	for _, leaf := range []string{"ip", "prefix-length"} {
		s[addressShape+"/config/"+leaf] = Config
		s[addressShape+"/state/"+leaf] = State
	}
	return s
}()

var counterNames = []string{"in-octets", "in-pkts", "in-unicast-pkts", "in-errors",
	"out-octets", "out-pkts", "out-unicast-pkts", "out-errors"}

// IsLeaf reports whether p (keys ignored) names a leaf of the view.
func IsLeaf(p Path) bool {
	_, ok := schema[p.Shape()]
	return ok
}

// InSchema reports whether p (keys ignored, a "*" name matching any)
// names a node of the view: a leaf, or a container or list above one.
func InSchema(p Path) bool {
	for leaf := range schema {
		names := strings.Split(leaf, "/")[1:]
		if len(p) > len(names) {
			continue
		}
		matched := true
		for k, e := range p {
			if e.Name != "*" && e.Name != names[k] {
				matched = false
				break
			}
		}
		if matched {
			return true
		}
	}
	return false
}
