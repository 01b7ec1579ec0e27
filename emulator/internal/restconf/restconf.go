// Package restconf is RESTCONF (RFC 8040) over the device's running
// datastore, without a YANG schema: GET of /restconf/data and the resources
// below it in XML (application/yang-data+xml) or JSON
// (application/yang-data+json, RFC 7951 without a schema: every leaf is a
// string), as the Accept header asks; PATCH as a plain merge or as a YANG
// Patch (RFC 8072, JSON or XML: ordered edits applied all or none); PUT
// (create or replace) and DELETE of a resource; errors as an
// ietf-restconf:errors document with the status RFC 8040 section 7 gives
// their error-tag.
package restconf

import (
	"io"
	"mime"
	"net/http"

	"transportlab/emulator/internal/netconf/datastore"
	"transportlab/emulator/internal/netconf/xmltree"
)

// Media types of RFC 8040.
const (
	MediaXML  = "application/yang-data+xml"
	MediaJSON = "application/yang-data+json"
)

// MaxBody bounds a request body.
const MaxBody = 1 << 20

// yangLibraryVersion is the ietf-yang-library revision the root resource
// names (RFC 8040 section 3.3.3).
const yangLibraryVersion = "2019-01-04"

const (
	allowData     = "GET, HEAD, OPTIONS, PATCH"
	allowResource = "GET, HEAD, OPTIONS, PATCH, PUT, DELETE"
	acceptPatch   = MediaXML + ", " + MediaJSON + ", " + MediaYANGPatchXML + ", " + MediaYANGPatchJSON
)

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
	mux.HandleFunc("GET /restconf", h.root)
	mux.HandleFunc("GET /restconf/{$}", h.root)
	for _, pattern := range []string{dataPrefix, dataPrefix + "/{path...}"} {
		mux.HandleFunc("GET "+pattern, h.get)
		mux.HandleFunc("PATCH "+pattern, h.patch)
		mux.HandleFunc("PUT "+pattern, h.put)
		mux.HandleFunc("DELETE "+pattern, h.delete)
		mux.HandleFunc("OPTIONS "+pattern, h.options)
		mux.HandleFunc(pattern, h.notAllowed)
	}
	mux.HandleFunc("GET /.well-known/host-meta", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/xrd+xml")
		_, _ = io.WriteString(w, `<XRD xmlns="http://docs.oasis-open.org/ns/xri/xrd-1.0"><Link rel="restconf" href="/restconf"/></XRD>`)
	})
	return mux
}

// root is the API resource: where the datastore and operations are.
func (h *Handler) root(w http.ResponseWriter, r *http.Request) {
	asXML, ok := replyXML(r, false)
	if !ok {
		fail(w, r, http.StatusNotAcceptable, protocolError("invalid-value", "use "+MediaXML+" or "+MediaJSON))
		return
	}
	if asXML {
		w.Header().Set("Content-Type", MediaXML)
		_, _ = io.WriteString(w, `<restconf xmlns="`+restconfNS+`"><data/><operations/><yang-library-version>`+
			yangLibraryVersion+`</yang-library-version></restconf>`)
		return
	}
	w.Header().Set("Content-Type", MediaJSON)
	_, _ = io.WriteString(w, `{"ietf-restconf:restconf":{"data":{},"operations":{},"yang-library-version":"`+
		yangLibraryVersion+`"}}`)
}

// target parses the request's resource; on error it has answered.
func (h *Handler) target(w http.ResponseWriter, r *http.Request) ([]step, bool) {
	steps, err := h.parsePath(requestPath(r), "")
	if err != nil {
		fail(w, r, http.StatusBadRequest, protocolError("invalid-value", err.Error()))
		return nil, false
	}
	return steps, true
}

func (h *Handler) get(w http.ResponseWriter, r *http.Request) {
	asXML, ok := replyXML(r, false)
	if !ok {
		fail(w, r, http.StatusNotAcceptable, protocolError("invalid-value", "use "+MediaXML+" or "+MediaJSON))
		return
	}
	steps, ok := h.target(w, r)
	if !ok {
		return
	}
	nodes, rerr := h.store.Get(datastore.Running, nil)
	if rerr != nil {
		fail(w, r, http.StatusInternalServerError, rerr)
		return
	}
	if len(steps) == 0 {
		h.write(w, asXML, xmltree.Elem(restconfNS, "data", nodes...))
		return
	}
	n := find(nodes, steps)
	if n == nil {
		fail(w, r, http.StatusNotFound, protocolError("invalid-value", "no such resource"))
		return
	}
	h.write(w, asXML, n)
}

// body reads the request body and its media type; on error it has answered.
func body(w http.ResponseWriter, r *http.Request) (string, []byte, bool) {
	mediaType, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	data, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBody))
	if err != nil {
		fail(w, r, http.StatusRequestEntityTooLarge, protocolError("too-big", "body larger than 1 MiB"))
		return "", nil, false
	}
	return mediaType, data, true
}

// content decodes a yang-data body; on error it has answered.
func (h *Handler) content(w http.ResponseWriter, r *http.Request, mediaType string, data []byte) (*xmltree.Node, bool) {
	var top *xmltree.Node
	var err error
	switch mediaType {
	case MediaXML, "application/xml":
		top, err = xmltree.Parse(data)
	case MediaJSON, "application/json":
		top, err = decodeJSON(data, h.modules)
	default:
		fail(w, r, http.StatusUnsupportedMediaType, protocolError("invalid-value", "use "+MediaXML+" or "+MediaJSON))
		return nil, false
	}
	if err != nil {
		fail(w, r, http.StatusBadRequest, protocolError("malformed-message", err.Error()))
		return nil, false
	}
	return top, true
}

// patch merges the body into the target resource, which must exist
// (RFC 8040 section 4.6.1), or applies a YANG Patch to it.
func (h *Handler) patch(w http.ResponseWriter, r *http.Request) {
	steps, ok := h.target(w, r)
	if !ok {
		return
	}
	mediaType, data, ok := body(w, r)
	if !ok {
		return
	}
	switch mediaType {
	case MediaYANGPatchXML, MediaYANGPatchJSON:
		h.yangPatch(w, r, steps, data, mediaType == MediaYANGPatchXML)
		return
	}
	top, ok := h.content(w, r, mediaType, data)
	if !ok {
		return
	}
	if len(steps) > 0 {
		nodes, _ := h.store.Get(datastore.Running, nil)
		if find(nodes, steps) == nil {
			fail(w, r, http.StatusNotFound, protocolError("invalid-value", "no such resource"))
			return
		}
	} else {
		steps = []step{{space: top.Name.Space, name: top.Name.Local}}
	}
	if _, failed := apply(h.store, []change{{op: opMerge, steps: steps, value: top}}); failed != nil {
		fail(w, r, 0, failed.err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// put creates or replaces the target resource: 201 or 204.
func (h *Handler) put(w http.ResponseWriter, r *http.Request) {
	steps, ok := h.target(w, r)
	if !ok {
		return
	}
	if len(steps) == 0 {
		h.notAllowed(w, r)
		return
	}
	mediaType, data, ok := body(w, r)
	if !ok {
		return
	}
	top, ok := h.content(w, r, mediaType, data)
	if !ok {
		return
	}
	existed, failed := apply(h.store, []change{{op: opReplace, steps: steps, value: top}})
	if failed != nil {
		fail(w, r, 0, failed.err)
		return
	}
	if existed[0] {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	w.WriteHeader(http.StatusCreated)
}

// delete removes the target resource: 204, or 404 when it does not exist.
func (h *Handler) delete(w http.ResponseWriter, r *http.Request) {
	steps, ok := h.target(w, r)
	if !ok {
		return
	}
	if len(steps) == 0 {
		h.notAllowed(w, r)
		return
	}
	if _, failed := apply(h.store, []change{{op: opDelete, steps: steps}}); failed != nil {
		code := 0
		if failed.err.Tag == "data-missing" {
			code = http.StatusNotFound
		}
		fail(w, r, code, failed.err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func allowed(r *http.Request) string {
	if requestPath(r) == "" {
		return allowData
	}
	return allowResource
}

func (h *Handler) options(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Allow", allowed(r))
	w.Header().Set("Accept-Patch", acceptPatch)
	w.WriteHeader(http.StatusOK)
}

func (h *Handler) notAllowed(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Allow", allowed(r))
	fail(w, r, http.StatusMethodNotAllowed, protocolError("operation-not-supported", r.Method+" is not supported here"))
}

func (h *Handler) write(w http.ResponseWriter, asXML bool, n *xmltree.Node) {
	if asXML {
		w.Header().Set("Content-Type", MediaXML)
		_, _ = io.WriteString(w, n.String())
		return
	}
	w.Header().Set("Content-Type", MediaJSON)
	_, _ = w.Write(encodeJSON(n, h.modules))
}
