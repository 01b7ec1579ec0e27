// Package openconfig is the OpenConfig view of one emulated device: its
// configuration store's native tree (read as running-config lines, as
// every transport sees it) and its interface state (internal/ifstate)
// presented as openconfig-interfaces and openconfig-system leaves by path,
// and the reverse: OpenConfig writes turned into the configuration lines
// that make them (gNMI Set). It is pure: the gNMI server supplies the
// device's lines and clock and applies the lines it returns.
package openconfig

import (
	"sort"
	"strings"
)

// Elem is one element of a path: a node name and, for a list entry, its
// keys (a "*" value matches every entry).
type Elem struct {
	Name string
	Keys map[string]string
}

// Path is a data path from the root; the empty path is the root.
type Path []Elem

// E is an element without keys.
func E(name string) Elem { return Elem{Name: name} }

// K is a list entry element with one key.
func K(name, key, value string) Elem { return Elem{Name: name, Keys: map[string]string{key: value}} }

// String is the path in gNMI's string form, keys sorted:
// /interfaces/interface[name=Loopback0]/config/description.
func (p Path) String() string {
	if len(p) == 0 {
		return "/"
	}
	var b strings.Builder
	for _, e := range p {
		b.WriteByte('/')
		b.WriteString(e.Name)
		names := make([]string, 0, len(e.Keys))
		for k := range e.Keys {
			names = append(names, k)
		}
		sort.Strings(names)
		for _, k := range names {
			b.WriteString("[" + k + "=" + escapeKey(e.Keys[k]) + "]")
		}
	}
	return b.String()
}

// keyEscaper escapes what would end a key value early.
var keyEscaper = strings.NewReplacer(`\`, `\\`, `]`, `\]`)

func escapeKey(v string) string { return keyEscaper.Replace(v) }

// Child is p with one more element.
func (p Path) Child(e Elem) Path {
	out := make(Path, len(p), len(p)+1)
	copy(out, p)
	return append(out, e)
}

// Matches reports whether the request path p selects data path d: p is no
// longer than d, and each of its elements has d's name and keys (a "*"
// key value, or a key p leaves out, matches any value). A name "*"
// matches any element.
func (p Path) Matches(d Path) bool {
	if len(p) > len(d) {
		return false
	}
	for k, e := range p {
		if e.Name != "*" && e.Name != d[k].Name {
			return false
		}
		for key, want := range e.Keys {
			have, ok := d[k].Keys[key]
			if !ok || (want != "*" && want != have) {
				return false
			}
		}
	}
	return true
}

// Wildcarded reports whether p names more than one node: a "*" name or
// key value.
func (p Path) Wildcarded() bool {
	for _, e := range p {
		if e.Name == "*" {
			return true
		}
		for _, v := range e.Keys {
			if v == "*" {
				return true
			}
		}
	}
	return false
}

// Shape is the path without key values, the schema node it names:
// /interfaces/interface/config/description.
func (p Path) Shape() string {
	var b strings.Builder
	for _, e := range p {
		b.WriteByte('/')
		b.WriteString(e.Name)
	}
	if b.Len() == 0 {
		return "/"
	}
	return b.String()
}
