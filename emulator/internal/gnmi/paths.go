package gnmi

import (
	"strings"

	gpb "github.com/openconfig/gnmi/proto/gnmi"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"transportlab/emulator/internal/openconfig"
)

// origins the server serves: OpenConfig, named or left out.
var origins = map[string]bool{"": true, "openconfig": true}

// fullPath joins a request's prefix and one of its paths into the data
// path they name. The origin may be on either, not two different ones;
// elements come from elem, or, from clients of gNMI before 0.4, from the
// deprecated element strings ("interface[name=Loopback0]").
func fullPath(prefix, path *gpb.Path) (openconfig.Path, error) {
	origin := prefix.GetOrigin()
	if o := path.GetOrigin(); o != "" {
		if origin != "" && origin != o {
			return nil, status.Errorf(codes.InvalidArgument, "origin %q in the prefix and %q in the path", origin, o)
		}
		origin = o
	}
	if !origins[origin] {
		return nil, status.Errorf(codes.InvalidArgument, "origin %q: this device serves openconfig only", origin)
	}
	head, err := elems(prefix)
	if err != nil {
		return nil, err
	}
	tail, err := elems(path)
	if err != nil {
		return nil, err
	}
	return append(head, tail...), nil
}

func elems(p *gpb.Path) (openconfig.Path, error) {
	var out openconfig.Path
	if len(p.GetElem()) == 0 {
		//lint:ignore SA1019 clients older than gNMI 0.4 send string elements
		for _, text := range p.GetElement() {
			e, err := parseElem(text)
			if err != nil {
				return nil, err
			}
			out = append(out, e)
		}
		return out, nil
	}
	for _, e := range p.GetElem() {
		if err := checkName(e.GetName()); err != nil {
			return nil, err
		}
		var keys map[string]string
		for k, v := range e.GetKey() {
			if k == "" {
				return nil, status.Errorf(codes.InvalidArgument, "path element %q has a key without a name", e.GetName())
			}
			if keys == nil {
				keys = map[string]string{}
			}
			keys[k] = v
		}
		out = append(out, openconfig.Elem{Name: e.GetName(), Keys: keys})
	}
	return out, nil
}

// checkName refuses names no YANG node has, and the "..." wildcard, which
// this server does not expand.
func checkName(name string) error {
	switch {
	case name == "":
		return status.Error(codes.InvalidArgument, "a path element has no name")
	case name == "...":
		return status.Error(codes.InvalidArgument, `the "..." wildcard is not supported`)
	case strings.ContainsAny(name, "/[]= \t\n"):
		return status.Errorf(codes.InvalidArgument, "path element name %q is malformed", name)
	}
	return nil
}

// parseElem reads one element in gNMI's string form: a name, then
// [key=value] parts, "\]" and "\\" escaping inside values.
func parseElem(text string) (openconfig.Elem, error) {
	malformed := status.Errorf(codes.InvalidArgument, "path element %q is malformed", text)
	name, rest, _ := strings.Cut(text, "[")
	if err := checkName(name); err != nil {
		return openconfig.Elem{}, err
	}
	e := openconfig.Elem{Name: name}
	if len(rest) == 0 && !strings.Contains(text, "[") {
		return e, nil
	}
	rest = "[" + rest
	for rest != "" {
		if rest[0] != '[' {
			return openconfig.Elem{}, malformed
		}
		key, value, ok := strings.Cut(rest[1:], "=")
		if !ok || key == "" || strings.ContainsAny(key, "[]") {
			return openconfig.Elem{}, malformed
		}
		var b strings.Builder
		k := 0
		for ; k < len(value) && value[k] != ']'; k++ {
			if value[k] == '\\' && k+1 < len(value) {
				k++
			}
			b.WriteByte(value[k])
		}
		if k == len(value) {
			return openconfig.Elem{}, malformed
		}
		if e.Keys == nil {
			e.Keys = map[string]string{}
		}
		e.Keys[key] = b.String()
		rest = value[k+1:]
	}
	return e, nil
}

// protoElems is p in gNMI's form.
func protoElems(p openconfig.Path) []*gpb.PathElem {
	out := make([]*gpb.PathElem, len(p))
	for k, e := range p {
		out[k] = &gpb.PathElem{Name: e.Name, Key: e.Keys}
	}
	return out
}

// relative is the path of data below a notification's prefix.
func relative(prefixLen int, p openconfig.Path) *gpb.Path {
	return &gpb.Path{Elem: protoElems(p[prefixLen:])}
}

// responsePrefix is the prefix a response carries and how many elements
// of a data path it holds: the request's target, origin and elements;
// without the elements when they hold a wildcard, so that every update
// names the entry it is about.
func responsePrefix(prefix *gpb.Path, elems openconfig.Path) (*gpb.Path, int) {
	if prefix == nil {
		return nil, 0
	}
	if elems.Wildcarded() {
		return &gpb.Path{Target: prefix.GetTarget(), Origin: prefix.GetOrigin()}, 0
	}
	return &gpb.Path{Target: prefix.GetTarget(), Origin: prefix.GetOrigin(), Elem: protoElems(elems)}, len(elems)
}
