package openconfig

import (
	"bytes"
	"encoding/json"
	"strconv"
)

// JSON encodes the leaves below prefix as the value of prefix's node:
// RFC 7951 (JSON_IETF) when ietf, with member names qualified by their
// module at the top and where the module changes, and 64-bit numbers as
// strings; otherwise plain JSON, names unqualified and numbers as
// numbers. A leaf at prefix itself is its scalar value. Objects keep the
// order of the leaves; list entries are arrays of objects holding their
// key leaves.
func JSON(prefix Path, leaves []Leaf, ietf bool) ([]byte, error) {
	root := &object{}
	for _, l := range leaves {
		rel := l.Path[len(prefix):]
		if len(rel) == 0 {
			return scalarJSON(l.Value, ietf)
		}
		o := root
		for _, e := range rel[:len(rel)-1] {
			o = o.child(e)
		}
		o.member(rel[len(rel)-1].Name).value = l.Value
	}
	var b bytes.Buffer
	if err := root.encode(&b, modulePath(prefix), true, ietf); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// object is a JSON object under construction, members in insertion order.
type object struct {
	names   []string
	members map[string]*member
}

// member is a leaf value, a container or a list's entries.
type member struct {
	value     any
	container *object
	entries   []*object
	entryKeys []string
}

func (o *object) member(name string) *member {
	if m, ok := o.members[name]; ok {
		return m
	}
	if o.members == nil {
		o.members = map[string]*member{}
	}
	m := &member{}
	o.members[name] = m
	o.names = append(o.names, name)
	return m
}

// child is the container e names, or the list entry with e's keys.
func (o *object) child(e Elem) *object {
	m := o.member(e.Name)
	if len(e.Keys) == 0 {
		if m.container == nil {
			m.container = &object{}
		}
		return m.container
	}
	key := Path{Elem{Keys: e.Keys}}.String()
	for k, have := range m.entryKeys {
		if have == key {
			return m.entries[k]
		}
	}
	entry := &object{}
	m.entries, m.entryKeys = append(m.entries, entry), append(m.entryKeys, key)
	return entry
}

func (o *object) encode(b *bytes.Buffer, module string, top, ietf bool) error {
	b.WriteByte('{')
	for k, name := range o.names {
		if k > 0 {
			b.WriteByte(',')
		}
		childModule := moduleOf(name, module)
		label := name
		if ietf && (top || childModule != module) {
			label = childModule + ":" + name
		}
		quoted, _ := json.Marshal(label)
		b.Write(quoted)
		b.WriteByte(':')
		m := o.members[name]
		switch {
		case m.container != nil:
			if err := m.container.encode(b, childModule, false, ietf); err != nil {
				return err
			}
		case m.entries != nil:
			b.WriteByte('[')
			for e, entry := range m.entries {
				if e > 0 {
					b.WriteByte(',')
				}
				if err := entry.encode(b, childModule, false, ietf); err != nil {
					return err
				}
			}
			b.WriteByte(']')
		default:
			v, err := scalarJSON(m.value, ietf)
			if err != nil {
				return err
			}
			b.Write(v)
		}
	}
	b.WriteByte('}')
	return nil
}

// scalarJSON encodes one leaf value; RFC 7951 section 6.1 puts 64-bit
// integers in strings.
func scalarJSON(v any, ietf bool) ([]byte, error) {
	if u, ok := v.(uint64); ok && ietf {
		return json.Marshal(strconv.FormatUint(u, 10))
	}
	return json.Marshal(v)
}

// modulePath is the module of the node p names ("" for the root).
func modulePath(p Path) string {
	module := ""
	for _, e := range p {
		module = moduleOf(e.Name, module)
	}
	return module
}
