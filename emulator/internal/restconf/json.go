package restconf

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"transportlab/emulator/internal/netconf/datastore"
	"transportlab/emulator/internal/netconf/xmltree"
)

// encodeJSON renders n as an RFC 7951 document: {"module:name": value}.
// Children named like a sibling, or recognised as list entries, become
// arrays; names are module-qualified where the namespace changes.
func encodeJSON(n *xmltree.Node, modules map[string]string) []byte {
	var b bytes.Buffer
	b.WriteByte('{')
	writeMember(&b, []*xmltree.Node{n}, "", moduleNames(modules))
	b.WriteByte('}')
	return b.Bytes()
}

func moduleNames(modules map[string]string) map[string]string {
	byNS := map[string]string{}
	for name, ns := range modules {
		byNS[ns] = name
	}
	return byNS
}

// writeMember writes one JSON member for a group of same-named siblings.
func writeMember(b *bytes.Buffer, group []*xmltree.Node, parentSpace string, byNS map[string]string) {
	first := group[0]
	name := first.Name.Local
	if first.Name.Space != parentSpace {
		module, ok := byNS[first.Name.Space]
		if !ok {
			module = first.Name.Space
		}
		name = module + ":" + name
	}
	key, _ := json.Marshal(name)
	b.Write(key)
	b.WriteByte(':')
	if len(group) > 1 || datastore.IsListEntry(first) {
		b.WriteByte('[')
		for i, n := range group {
			if i > 0 {
				b.WriteByte(',')
			}
			writeValue(b, n, byNS)
		}
		b.WriteByte(']')
		return
	}
	writeValue(b, first, byNS)
}

func writeValue(b *bytes.Buffer, n *xmltree.Node, byNS map[string]string) {
	if n.IsLeaf() {
		if n.Text == "" {
			b.WriteString("[null]") // RFC 7951 "empty" type
			return
		}
		v, _ := json.Marshal(n.Value())
		b.Write(v)
		return
	}
	b.WriteByte('{')
	var order []string
	groups := map[string][]*xmltree.Node{}
	for _, c := range n.Children {
		k := c.Name.Space + " " + c.Name.Local
		if _, seen := groups[k]; !seen {
			order = append(order, k)
		}
		groups[k] = append(groups[k], c)
	}
	for i, k := range order {
		if i > 0 {
			b.WriteByte(',')
		}
		writeMember(b, groups[k], n.Name.Space, byNS)
	}
	b.WriteByte('}')
}

// decodeJSON reads an RFC 7951 document with exactly one top-level member.
func decodeJSON(data []byte, modules map[string]string) (*xmltree.Node, error) {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var doc map[string]json.RawMessage
	if err := d.Decode(&doc); err != nil {
		return nil, err
	}
	if len(doc) != 1 {
		return nil, errors.New("the body must have exactly one top-level member")
	}
	for name, raw := range doc {
		nodes, err := decodeMember(name, raw, "", modules, 0)
		if err != nil {
			return nil, err
		}
		if len(nodes) != 1 {
			return nil, errors.New("the top-level member must be a single resource")
		}
		return nodes[0], nil
	}
	return nil, errors.New("empty body")
}

func decodeMember(name string, raw json.RawMessage, parentSpace string, modules map[string]string, depth int) ([]*xmltree.Node, error) {
	if depth > xmltree.MaxDepth {
		return nil, errors.New("nesting too deep")
	}
	space := parentSpace
	if module, local, ok := strings.Cut(name, ":"); ok {
		ns, known := modules[module]
		if !known {
			return nil, fmt.Errorf("unknown module %q", module)
		}
		space, name = ns, local
	} else if parentSpace == "" {
		return nil, fmt.Errorf("top-level member %q must be module-qualified", name)
	}
	raw = bytes.TrimSpace(raw)
	if string(raw) == "[null]" {
		return []*xmltree.Node{xmltree.Leaf(space, name, "")}, nil
	}
	if len(raw) > 0 && raw[0] == '[' {
		var items []json.RawMessage
		if err := json.Unmarshal(raw, &items); err != nil {
			return nil, err
		}
		var out []*xmltree.Node
		for _, item := range items {
			n, err := decodeValue(space, name, item, modules, depth)
			if err != nil {
				return nil, err
			}
			out = append(out, n)
		}
		return out, nil
	}
	n, err := decodeValue(space, name, raw, modules, depth)
	if err != nil {
		return nil, err
	}
	return []*xmltree.Node{n}, nil
}

func decodeValue(space, name string, raw json.RawMessage, modules map[string]string, depth int) (*xmltree.Node, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '{' {
		// Members in document order: list keys must stay first.
		d := json.NewDecoder(bytes.NewReader(raw))
		d.UseNumber()
		if _, err := d.Token(); err != nil {
			return nil, err
		}
		n := xmltree.Elem(space, name)
		for d.More() {
			tok, err := d.Token()
			if err != nil {
				return nil, err
			}
			var child json.RawMessage
			if err := d.Decode(&child); err != nil {
				return nil, err
			}
			kids, err := decodeMember(tok.(string), child, space, modules, depth+1)
			if err != nil {
				return nil, err
			}
			n.Children = append(n.Children, kids...)
		}
		return n, nil
	}
	var v any
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	switch t := v.(type) {
	case string:
		return xmltree.Leaf(space, name, t), nil
	case json.Number:
		return xmltree.Leaf(space, name, t.String()), nil
	case bool:
		return xmltree.Leaf(space, name, fmt.Sprint(t)), nil
	}
	return nil, fmt.Errorf("unsupported value for %q", name)
}
