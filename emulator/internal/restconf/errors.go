package restconf

import (
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"strings"

	"transportlab/emulator/internal/netconf/rpc"
	"transportlab/emulator/internal/netconf/xmltree"
)

// restconfNS is the ietf-restconf module's namespace (its errors document).
const restconfNS = "urn:ietf:params:xml:ns:yang:ietf-restconf"

// statusOf is the HTTP status of an error-tag (RFC 8040 section 7).
func statusOf(tag string) int {
	switch tag {
	case "in-use", "lock-denied", "resource-denied", "data-exists", "data-missing":
		return http.StatusConflict
	case "too-big":
		return http.StatusRequestEntityTooLarge
	case "access-denied":
		return http.StatusForbidden
	case "operation-not-supported":
		return http.StatusMethodNotAllowed
	case "rollback-failed", "partial-operation", "operation-failed":
		return http.StatusInternalServerError
	}
	return http.StatusBadRequest
}

// replyXML chooses the reply's encoding from the Accept header: the first
// media type it names that the server produces; fallbackXML when it names
// none or accepts anything. ok is false when it names only others (406).
func replyXML(r *http.Request, fallbackXML bool) (asXML, ok bool) {
	accept := r.Header.Get("Accept")
	if strings.TrimSpace(accept) == "" {
		return fallbackXML, true
	}
	for _, item := range strings.Split(accept, ",") {
		media, _, err := mime.ParseMediaType(item)
		if err != nil {
			continue
		}
		switch media {
		case MediaXML, "application/xml":
			return true, true
		case MediaJSON, "application/json":
			return false, true
		case "*/*", "application/*":
			return fallbackXML, true
		}
	}
	return false, false
}

// errorEntry is one <error> of an errors document (RFC 8040 section 7.1).
type errorEntry struct {
	Type    string `json:"error-type"`
	Tag     string `json:"error-tag"`
	Path    string `json:"error-path,omitempty"`
	Message string `json:"error-message,omitempty"`
}

type errorList struct {
	Error []errorEntry `json:"error"`
}

func entryOf(e *rpc.Error, path string) errorEntry {
	errType := e.Type
	if errType == "" {
		errType = "protocol"
	}
	return errorEntry{Type: errType, Tag: e.Tag, Path: path, Message: e.Message}
}

// errorsXML is the XML form of a list of errors in namespace ns.
func errorsXML(ns, name string, entries []errorEntry) *xmltree.Node {
	doc := xmltree.Elem(ns, name)
	for _, e := range entries {
		n := xmltree.Elem(ns, "error", xmltree.Leaf(ns, "error-type", e.Type), xmltree.Leaf(ns, "error-tag", e.Tag))
		if e.Path != "" {
			n.Children = append(n.Children, xmltree.Leaf(ns, "error-path", e.Path))
		}
		if e.Message != "" {
			n.Children = append(n.Children, xmltree.Leaf(ns, "error-message", e.Message))
		}
		doc.Children = append(doc.Children, n)
	}
	return doc
}

// fail answers with an ietf-restconf:errors document in the encoding the
// client accepts (JSON when it accepts neither), with the status of the tag
// unless code is given (non-zero).
func fail(w http.ResponseWriter, r *http.Request, code int, e *rpc.Error) {
	if code == 0 {
		code = statusOf(e.Tag)
	}
	entries := []errorEntry{entryOf(e, "")}
	if asXML, _ := replyXML(r, false); asXML {
		w.Header().Set("Content-Type", MediaXML)
		w.WriteHeader(code)
		_, _ = io.WriteString(w, errorsXML(restconfNS, "errors", entries).String())
		return
	}
	body, _ := json.Marshal(map[string]errorList{"ietf-restconf:errors": {Error: entries}})
	w.Header().Set("Content-Type", MediaJSON)
	w.WriteHeader(code)
	_, _ = w.Write(body)
}

// protocolError is an error of the request itself.
func protocolError(tag, message string) *rpc.Error {
	return &rpc.Error{Type: "protocol", Tag: tag, Message: message}
}
