package grpcgo

import (
	"errors"
	"fmt"

	gpb "github.com/openconfig/gnmi/proto/gnmi"
	"google.golang.org/protobuf/encoding/prototext"
)

// iface is one of the device's interfaces: its name and the description it had when the
// mode started (hasDescription false: it had none).
type iface struct {
	name           string
	description    string
	hasDescription bool
}

func interfacePath(name string, elems ...string) *gpb.Path {
	path := &gpb.Path{Elem: []*gpb.PathElem{
		{Name: "interfaces"},
		{Name: "interface", Key: map[string]string{"name": name}},
	}}
	for _, elem := range elems {
		path.Elem = append(path.Elem, &gpb.PathElem{Name: elem})
	}
	return path
}

// configPath is what command i reads: the configuration of its interface.
func configPath(name string) *gpb.Path { return interfacePath(name, "config") }

// descriptionPath is what command i writes.
func descriptionPath(name string) *gpb.Path { return interfacePath(name, "config", "description") }

// pick is the interface of command i (0-based) among the device's: ((i-1) mod k)+1 of the
// contract's 1-based numbering.
func pick(interfaces []iface, i int) iface { return interfaces[i%len(interfaces)] }

// discover reads the device's interfaces, in the order it lists them, with their
// descriptions: one Get of /interfaces (configuration, PROTO: one update per leaf, each
// naming its interface in its path).
func (ch *channel) discover(c *client) ([]iface, error) {
	ctx, cancel := c.call()
	defer cancel()
	response, err := ch.gnmi.Get(ctx, &gpb.GetRequest{
		Path:     []*gpb.Path{{Elem: []*gpb.PathElem{{Name: "interfaces"}}}},
		Type:     gpb.GetRequest_CONFIG,
		Encoding: gpb.Encoding_PROTO,
	})
	if err != nil {
		return nil, fmt.Errorf("get /interfaces: %w", err)
	}
	return interfacesIn(response)
}

// interfacesIn lists the interfaces a Get response's updates name, in order of first
// appearance, with the description leaf of each where there is one.
func interfacesIn(response *gpb.GetResponse) ([]iface, error) {
	var interfaces []iface
	index := map[string]int{}
	for _, notification := range response.GetNotification() {
		for _, update := range notification.GetUpdate() {
			elems := append(append([]*gpb.PathElem{}, notification.GetPrefix().GetElem()...), update.GetPath().GetElem()...)
			name, leaf := interfaceLeaf(elems)
			if name == "" {
				continue
			}
			at, seen := index[name]
			if !seen {
				at = len(interfaces)
				index[name] = at
				interfaces = append(interfaces, iface{name: name})
			}
			if leaf == "description" {
				interfaces[at].description = update.GetVal().GetStringVal()
				interfaces[at].hasDescription = true
			}
		}
	}
	if len(interfaces) == 0 {
		return nil, errors.New("get /interfaces: the device lists no interface")
	}
	return interfaces, nil
}

// interfaceLeaf is the interface an update's path is under and, for a leaf of its
// configuration, the leaf's name.
func interfaceLeaf(elems []*gpb.PathElem) (name, leaf string) {
	for i, elem := range elems {
		if elem.GetName() != "interface" || elem.GetKey()["name"] == "" {
			continue
		}
		name = elem.GetKey()["name"]
		rest := elems[i+1:]
		if len(rest) == 2 && rest[0].GetName() == "config" {
			leaf = rest[1].GetName()
		}
		return name, leaf
	}
	return "", ""
}

// restoreRequest puts the descriptions back as they were: an update where there was one,
// a delete where there was none.
func restoreRequest(interfaces []iface) *gpb.SetRequest {
	request := &gpb.SetRequest{}
	for _, it := range interfaces {
		path := descriptionPath(it.name)
		if !it.hasDescription {
			request.Delete = append(request.Delete, path)
			continue
		}
		request.Update = append(request.Update, &gpb.Update{
			Path: path, Val: &gpb.TypedValue{Value: &gpb.TypedValue_StringVal{StringVal: it.description}},
		})
	}
	return request
}

func (ch *channel) restore(c *client, interfaces []iface) error {
	ctx, cancel := c.call()
	defer cancel()
	if _, err := ch.gnmi.Set(ctx, restoreRequest(interfaces)); err != nil {
		return fmt.Errorf("restoring the descriptions: %w", err)
	}
	return nil
}

// values is the text of each update's value in a notification list: JSON for the JSON
// encodings, the value's text form otherwise.
func values(notifications []*gpb.Notification) []string {
	var out []string
	for _, notification := range notifications {
		for _, update := range notification.GetUpdate() {
			out = append(out, valueText(update.GetVal()))
		}
	}
	return out
}

func valueText(v *gpb.TypedValue) string {
	switch value := v.GetValue().(type) {
	case *gpb.TypedValue_JsonIetfVal:
		return string(value.JsonIetfVal)
	case *gpb.TypedValue_JsonVal:
		return string(value.JsonVal)
	case *gpb.TypedValue_StringVal:
		return value.StringVal
	default:
		return prototext.Format(v)
	}
}
