package openconfig

import (
	"bytes"
	"encoding/json"
	"io"
	"sort"
	"strings"
)

// Write is one leaf value of a Set: a string, a bool or a json.Number.
type Write struct {
	Path  Path
	Value any
}

// DecodeJSON flattens the JSON value given for the node at prefix (RFC
// 7951 or plain JSON: module prefixes of member names are accepted and
// dropped) into leaf writes, in a stable order: object members sorted by
// name, list entries in array order. A list's entries are arrays of
// objects carrying their key member.
func DecodeJSON(prefix Path, data []byte) ([]Write, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, invalid("value of %s is not JSON: %v", prefix, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, invalid("value of %s has data after its JSON value", prefix)
	}
	var out []Write
	if err := flatten(prefix, v, &out); err != nil {
		return nil, err
	}
	return out, nil
}

func flatten(p Path, v any, out *[]Write) error {
	switch x := v.(type) {
	case map[string]any:
		names := make([]string, 0, len(x))
		for name := range x {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, qualified := range names {
			name := qualified[strings.LastIndexByte(qualified, ':')+1:]
			if name == "" {
				return invalid("empty member name under %s", p)
			}
			if err := flatten(p.Child(E(name)), x[qualified], out); err != nil {
				return err
			}
		}
		return nil
	case []any:
		return flattenEntries(p, x, out)
	case string, bool, json.Number:
		if len(p) == 0 {
			return invalid("a scalar value needs a leaf path")
		}
		*out = append(*out, Write{Path: p, Value: x})
		return nil
	}
	return invalid("value of %s: null is not a value here", p)
}

// flattenEntries reads a list's entries, p naming the list without keys.
func flattenEntries(p Path, entries []any, out *[]Write) error {
	if len(p) == 0 || len(p[len(p)-1].Keys) != 0 {
		return invalid("an array is not a value of %s", p)
	}
	name := p[len(p)-1].Name
	key, isList := listKeys[name]
	if !isList {
		return invalid("%s is not a list", p)
	}
	for _, e := range entries {
		obj, ok := e.(map[string]any)
		if !ok {
			return invalid("an entry of %s is not an object", p)
		}
		var value any
		for member, v := range obj {
			if member[strings.LastIndexByte(member, ':')+1:] == key {
				value = v
			}
		}
		var keyText string
		switch k := value.(type) {
		case string:
			keyText = k
		case json.Number:
			keyText = k.String()
		default:
			return invalid("an entry of %s has no %s", p, key)
		}
		entry := append(p[:len(p)-1:len(p)-1], K(name, key, keyText))
		if err := flatten(entry, obj, out); err != nil {
			return err
		}
	}
	return nil
}
