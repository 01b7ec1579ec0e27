// Package restconf is a RESTCONF (RFC 8040) subset over the NETCONF running
// datastore: GET and PATCH (merge) of /restconf/data and resources below
// it, in XML (application/yang-data+xml) and JSON (application/yang-data+json,
// RFC 7951 encoding without a schema: every leaf is a string).
package restconf

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"

	"transportlab/emulator/internal/netconf/datastore"
	"transportlab/emulator/internal/netconf/rpc"
	"transportlab/emulator/internal/netconf/xmltree"
)

// Media types of RFC 8040.
const (
	MediaXML  = "application/yang-data+xml"
	MediaJSON = "application/yang-data+json"
)

// MaxBody bounds a PATCH body.
const MaxBody = 1 << 20

// Handler serves /restconf/. modules maps YANG module names (the JSON
// prefix and the first path segment) to XML namespaces.
type Handler struct {
	store   *datastore.Store
	modules map[string]string
}

// New returns the RESTCONF routes.
func New(store *datastore.Store, modules map[string]string) http.Handler {
	h := &Handler{store: store, modules: modules}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /restconf/data", h.get)
	mux.HandleFunc("GET /restconf/data/{path...}", h.get)
	mux.HandleFunc("PATCH /restconf/data", h.patch)
	mux.HandleFunc("PATCH /restconf/data/{path...}", h.patch)
	mux.HandleFunc("GET /.well-known/host-meta", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/xrd+xml")
		_, _ = io.WriteString(w, `<XRD xmlns="http://docs.oasis-open.org/ns/xri/xrd-1.0"><Link rel="restconf" href="/restconf"/></XRD>`)
	})
	return mux
}

// step is one path segment: a node name, its namespace when qualified, and
// the key value of a list entry ("GigabitEthernet=2").
type step struct {
	space, name string
	key         *string
}

func (h *Handler) parsePath(raw string) ([]step, error) {
	if raw == "" {
		return nil, nil
	}
	var steps []step
	space := ""
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

func (h *Handler) get(w http.ResponseWriter, r *http.Request) {
	steps, err := h.parsePath(r.PathValue("path"))
	if err != nil {
		h.fail(w, r, http.StatusBadRequest, "invalid-value", err.Error())
		return
	}
	nodes, rerr := h.store.Get(datastore.Running, nil)
	if rerr != nil {
		h.fail(w, r, http.StatusInternalServerError, rerr.Tag, rerr.Message)
		return
	}
	if len(steps) == 0 {
		h.write(w, r, http.StatusOK, xmltree.Elem("urn:ietf:params:xml:ns:yang:ietf-restconf", "data", nodes...))
		return
	}
	n := find(nodes, steps)
	if n == nil {
		h.fail(w, r, http.StatusNotFound, "invalid-value", "no such resource")
		return
	}
	h.write(w, r, http.StatusOK, n)
}

func (h *Handler) patch(w http.ResponseWriter, r *http.Request) {
	steps, err := h.parsePath(r.PathValue("path"))
	if err != nil {
		h.fail(w, r, http.StatusBadRequest, "invalid-value", err.Error())
		return
	}
	mediaType, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBody))
	if err != nil {
		h.fail(w, r, http.StatusRequestEntityTooLarge, "too-big", "body larger than 1 MiB")
		return
	}
	var top *xmltree.Node
	switch mediaType {
	case MediaXML, "application/xml":
		top, err = xmltree.Parse(body)
	case MediaJSON, "application/json":
		top, err = decodeJSON(body, h.modules)
	default:
		h.fail(w, r, http.StatusUnsupportedMediaType, "invalid-value", "use "+MediaXML+" or "+MediaJSON)
		return
	}
	if err != nil {
		h.fail(w, r, http.StatusBadRequest, "malformed-message", err.Error())
		return
	}
	edit, err := wrap(top, steps)
	if err != nil {
		h.fail(w, r, http.StatusBadRequest, "invalid-value", err.Error())
		return
	}
	if rerr := h.store.Edit(0, datastore.Running, "merge", []*xmltree.Node{edit}); rerr != nil {
		h.fail(w, r, statusOf(rerr), rerr.Tag, rerr.Message)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// wrap places the body under the ancestors the path names. The body's top
// node must be the resource the path ends at (RFC 8040 section 4.6.1).
func wrap(top *xmltree.Node, steps []step) (*xmltree.Node, error) {
	if len(steps) == 0 {
		return top, nil
	}
	last := steps[len(steps)-1]
	if top.Name.Local != last.name || (top.Name.Space != "" && top.Name.Space != last.space) {
		return nil, fmt.Errorf("body must contain %q, the target resource", last.name)
	}
	if last.key != nil && (!datastore.IsListEntry(top) || top.Children[0].Value() != *last.key) {
		return nil, errors.New("the key in the body differs from the key in the path")
	}
	n := top
	for i := len(steps) - 2; i >= 0; i-- {
		parent := xmltree.Elem(steps[i].space, steps[i].name)
		if steps[i].key != nil {
			parent.Children = append(parent.Children, xmltree.Leaf(steps[i].space, "name", *steps[i].key))
		}
		parent.Children = append(parent.Children, n)
		n = parent
	}
	return n, nil
}

func statusOf(e *rpc.Error) int {
	switch e.Tag {
	case "in-use", "lock-denied", "data-exists":
		return http.StatusConflict
	case "data-missing":
		return http.StatusNotFound
	}
	return http.StatusBadRequest
}

// wantsXML follows the Accept header; JSON is the default.
func wantsXML(r *http.Request) bool {
	accept := r.Header.Get("Accept")
	return strings.Contains(accept, MediaXML) || (strings.Contains(accept, "application/xml") && !strings.Contains(accept, "json"))
}

func (h *Handler) write(w http.ResponseWriter, r *http.Request, code int, n *xmltree.Node) {
	if wantsXML(r) {
		w.Header().Set("Content-Type", MediaXML)
		w.WriteHeader(code)
		_, _ = io.WriteString(w, n.String())
		return
	}
	w.Header().Set("Content-Type", MediaJSON)
	w.WriteHeader(code)
	_, _ = w.Write(encodeJSON(n, h.modules))
}

// fail answers with an RFC 8040 errors document.
func (h *Handler) fail(w http.ResponseWriter, r *http.Request, code int, tag, message string) {
	errType := "protocol"
	if code == http.StatusConflict || code == http.StatusNotFound {
		errType = "application"
	}
	if wantsXML(r) {
		const ns = "urn:ietf:params:xml:ns:yang:ietf-restconf"
		doc := xmltree.Elem(ns, "errors", xmltree.Elem(ns, "error",
			xmltree.Leaf(ns, "error-type", errType), xmltree.Leaf(ns, "error-tag", tag), xmltree.Leaf(ns, "error-message", message)))
		w.Header().Set("Content-Type", MediaXML)
		w.WriteHeader(code)
		_, _ = io.WriteString(w, doc.String())
		return
	}
	doc := map[string]any{"ietf-restconf:errors": map[string]any{"error": []map[string]string{
		{"error-type": errType, "error-tag": tag, "error-message": message}}}}
	body, _ := json.Marshal(doc)
	w.Header().Set("Content-Type", MediaJSON)
	w.WriteHeader(code)
	_, _ = w.Write(body)
}
