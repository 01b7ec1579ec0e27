package restconf

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"transportlab/emulator/internal/netconf/datastore"
	"transportlab/emulator/internal/netconf/xmltree"
)

// dataPrefix is the datastore resource (RFC 8040 section 3.3.1).
const dataPrefix = "/restconf/data"

// step is one path segment: a node name, its namespace when qualified, and
// the key value of a list entry ("GigabitEthernet=2").
type step struct {
	space, name string
	key         *string
}

// requestPath is the data resource identifier of a request, still escaped:
// a key such as "0%2F1" holds a '/' that must not split the path.
func requestPath(r *http.Request) string {
	raw := strings.TrimPrefix(r.URL.EscapedPath(), dataPrefix)
	return strings.Trim(raw, "/")
}

// parsePath reads a data resource identifier ("Module:node/list=key/leaf",
// keys percent-encoded). space is the namespace in scope before its first
// segment: "" at the datastore root, where that segment must be qualified.
func (h *Handler) parsePath(raw, space string) ([]step, error) {
	if raw == "" {
		return nil, nil
	}
	var steps []step
	for _, seg := range strings.Split(raw, "/") {
		name, keyText, hasKey := strings.Cut(seg, "=")
		if module, local, qualified := strings.Cut(name, ":"); qualified {
			ns, ok := h.modules[module]
			if !ok {
				return nil, fmt.Errorf("unknown module %q", module)
			}
			space, name = ns, local
		} else if space == "" {
			return nil, errors.New("the first path segment must be module-qualified")
		}
		if name == "" {
			return nil, errors.New("empty path segment")
		}
		st := step{space: space, name: name}
		if hasKey {
			k, err := url.PathUnescape(keyText)
			if err != nil {
				return nil, err
			}
			st.key = &k
		}
		steps = append(steps, st)
	}
	return steps, nil
}

func (st step) matches(n *xmltree.Node) bool {
	if n.Name.Local != st.name || n.Name.Space != st.space {
		return false
	}
	if st.key == nil {
		return true
	}
	return datastore.IsListEntry(n) && n.Children[0].Value() == *st.key
}

// find walks the path from the datastore's top-level nodes.
func find(nodes []*xmltree.Node, steps []step) *xmltree.Node {
	var cur *xmltree.Node
	for _, st := range steps {
		var next *xmltree.Node
		for _, n := range nodes {
			if st.matches(n) {
				next = n
				break
			}
		}
		if next == nil {
			return nil
		}
		cur, nodes = next, next.Children
	}
	return cur
}

// lastSpace is the namespace in scope after steps ("" for none).
func lastSpace(steps []step) string {
	if len(steps) == 0 {
		return ""
	}
	return steps[len(steps)-1].space
}
