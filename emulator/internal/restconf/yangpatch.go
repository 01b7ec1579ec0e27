package restconf

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"

	"transportlab/emulator/internal/netconf/xmltree"
)

// YANG Patch (RFC 8072): an ordered list of edits, applied all or none.
const (
	MediaYANGPatchXML  = "application/yang-patch+xml"
	MediaYANGPatchJSON = "application/yang-patch+json"
	yangPatchNS        = "urn:ietf:params:xml:ns:yang:ietf-yang-patch"
	yangPatchModule    = "ietf-yang-patch"
)

// yangPatch is a decoded yang-patch document.
type yangPatch struct {
	id    string
	edits []patchEdit
}

type patchEdit struct {
	id, op, target string
	value          *xmltree.Node // nil when the edit has none
}

// jsonPatch is the JSON encoding (RFC 7951) of a yang-patch.
type jsonPatch struct {
	Patch *struct {
		PatchID string `json:"patch-id"`
		Comment string `json:"comment"`
		Edit    []struct {
			EditID    string          `json:"edit-id"`
			Operation string          `json:"operation"`
			Target    string          `json:"target"`
			Point     string          `json:"point"`
			Where     string          `json:"where"`
			Value     json.RawMessage `json:"value"`
		} `json:"edit"`
	} `json:"ietf-yang-patch:yang-patch"`
}

func parseYANGPatchJSON(body []byte, modules map[string]string) (*yangPatch, error) {
	d := json.NewDecoder(bytes.NewReader(body))
	d.DisallowUnknownFields()
	var doc jsonPatch
	if err := d.Decode(&doc); err != nil {
		return nil, err
	}
	if d.More() {
		return nil, errors.New("content after the yang-patch document")
	}
	if doc.Patch == nil {
		return nil, errors.New("the body must be an ietf-yang-patch:yang-patch")
	}
	p := &yangPatch{id: doc.Patch.PatchID}
	for _, e := range doc.Patch.Edit {
		if e.Point != "" || e.Where != "" {
			return nil, errors.New("point and where belong to insert and move, which are not supported")
		}
		edit := patchEdit{id: e.EditID, op: e.Operation, target: e.Target}
		if raw := bytes.TrimSpace(e.Value); len(raw) > 0 && string(raw) != "null" {
			value, err := decodeJSON(raw, modules)
			if err != nil {
				return nil, fmt.Errorf("edit %q: value: %w", e.EditID, err)
			}
			edit.value = value
		}
		p.edits = append(p.edits, edit)
	}
	return p, p.check()
}

func parseYANGPatchXML(body []byte) (*yangPatch, error) {
	root, err := xmltree.Parse(body)
	if err != nil {
		return nil, err
	}
	if root.Name.Local != "yang-patch" || root.Name.Space != yangPatchNS {
		return nil, fmt.Errorf("the body must be a yang-patch in %s", yangPatchNS)
	}
	p := &yangPatch{}
	for _, c := range root.Children {
		switch {
		case c.Name.Space != yangPatchNS:
			return nil, fmt.Errorf("unknown element %q", c.Name.Local)
		case c.Name.Local == "patch-id":
			p.id = c.Value()
		case c.Name.Local == "comment":
		case c.Name.Local == "edit":
			edit, err := xmlEdit(c)
			if err != nil {
				return nil, err
			}
			p.edits = append(p.edits, edit)
		default:
			return nil, fmt.Errorf("unknown element %q", c.Name.Local)
		}
	}
	return p, p.check()
}

func xmlEdit(n *xmltree.Node) (patchEdit, error) {
	var e patchEdit
	for _, c := range n.Children {
		if c.Name.Space != yangPatchNS {
			return e, fmt.Errorf("unknown element %q in edit", c.Name.Local)
		}
		switch c.Name.Local {
		case "edit-id":
			e.id = c.Value()
		case "operation":
			e.op = c.Value()
		case "target":
			e.target = c.Value()
		case "value":
			if len(c.Children) != 1 {
				return e, fmt.Errorf("edit %q: the value must hold one element", e.id)
			}
			e.value = c.Children[0]
		case "point", "where":
			return e, errors.New("point and where belong to insert and move, which are not supported")
		default:
			return e, fmt.Errorf("unknown element %q in edit", c.Name.Local)
		}
	}
	return e, nil
}

// check enforces what RFC 8072's module requires of a patch and the
// operations this server performs.
func (p *yangPatch) check() error {
	if p.id == "" {
		return errors.New("patch-id is required")
	}
	seen := map[string]bool{}
	for _, e := range p.edits {
		if e.id == "" || e.target == "" || e.op == "" {
			return errors.New("every edit needs an edit-id, an operation and a target")
		}
		if seen[e.id] {
			return fmt.Errorf("edit-id %q is not unique", e.id)
		}
		seen[e.id] = true
		switch e.op {
		case opMerge, opReplace, opCreate:
			if e.value == nil {
				return fmt.Errorf("edit %q: %s needs a value", e.id, e.op)
			}
		case opDelete, opRemove:
			if e.value != nil {
				return fmt.Errorf("edit %q: %s takes no value", e.id, e.op)
			}
		default:
			return fmt.Errorf("edit %q: operation %q is not supported", e.id, e.op)
		}
	}
	return nil
}

// changes resolves each edit's target against the request's resource.
func (h *Handler) changes(p *yangPatch, base []step) ([]change, *editError) {
	var out []change
	for i, e := range p.edits {
		if e.target[0] != '/' {
			return nil, &editError{i, protocolError("invalid-value", "a target starts with '/'")}
		}
		rel, err := h.parsePath(e.target[1:], lastSpace(base))
		if err != nil {
			return nil, &editError{i, protocolError("invalid-value", err.Error())}
		}
		steps := append(append([]step(nil), base...), rel...)
		if len(steps) == 0 {
			return nil, &editError{i, protocolError("invalid-value", "the datastore itself cannot be a target")}
		}
		out = append(out, change{id: e.id, op: e.op, steps: steps, value: e.value})
	}
	return out, nil
}

// yangPatch serves a PATCH whose body is a YANG Patch: 200 and
// yang-patch-status "ok" when every edit was applied, else the error
// status of the failing edit's error and nothing changed.
func (h *Handler) yangPatch(w http.ResponseWriter, r *http.Request, steps []step, body []byte, asXMLBody bool) {
	var p *yangPatch
	var err error
	if asXMLBody {
		p, err = parseYANGPatchXML(body)
	} else {
		p, err = parseYANGPatchJSON(body, h.modules)
	}
	if err != nil {
		fail(w, r, 0, protocolError("malformed-message", err.Error()))
		return
	}
	asXML, ok := replyXML(r, asXMLBody)
	if !ok {
		fail(w, r, http.StatusNotAcceptable, protocolError("invalid-value", "use "+MediaXML+" or "+MediaJSON))
		return
	}
	changes, failed := h.changes(p, steps)
	if failed == nil {
		_, failed = apply(h.store, changes)
	}
	code := http.StatusOK
	if failed != nil {
		code = statusOf(failed.err.Tag)
	}
	writePatchStatus(w, code, asXML, p, failed)
}

// jsonPatchStatus is the JSON encoding of a yang-patch-status. Its errors
// are ietf-restconf's grouping, used in (so named in) ietf-yang-patch.
type jsonPatchStatus struct {
	PatchID      string            `json:"patch-id"`
	OK           *[1]*struct{}     `json:"ok,omitempty"`
	GlobalErrors *jsonErrors       `json:"global-errors,omitempty"`
	EditStatus   *jsonEditStatuses `json:"edit-status,omitempty"`
}

type jsonErrors struct {
	Errors errorList `json:"errors"`
}

type jsonEditStatuses struct {
	Edit []jsonEditStatus `json:"edit"`
}

type jsonEditStatus struct {
	EditID string    `json:"edit-id"`
	Errors errorList `json:"errors"`
}

func writePatchStatus(w http.ResponseWriter, code int, asXML bool, p *yangPatch, failed *editError) {
	var entries []errorEntry
	editID := ""
	if failed != nil {
		path := ""
		if failed.index >= 0 {
			editID = p.edits[failed.index].id
			path = p.edits[failed.index].target
		}
		entries = []errorEntry{entryOf(failed.err, path)}
	}
	if asXML {
		doc := xmltree.Elem(yangPatchNS, "yang-patch-status", xmltree.Leaf(yangPatchNS, "patch-id", p.id))
		switch {
		case failed == nil:
			doc.Children = append(doc.Children, xmltree.Leaf(yangPatchNS, "ok", ""))
		case editID == "":
			doc.Children = append(doc.Children, xmltree.Elem(yangPatchNS, "global-errors", errorsXML(yangPatchNS, "errors", entries)))
		default:
			doc.Children = append(doc.Children, xmltree.Elem(yangPatchNS, "edit-status", xmltree.Elem(yangPatchNS, "edit",
				xmltree.Leaf(yangPatchNS, "edit-id", editID), errorsXML(yangPatchNS, "errors", entries))))
		}
		w.Header().Set("Content-Type", MediaXML)
		w.WriteHeader(code)
		_, _ = io.WriteString(w, doc.String())
		return
	}
	status := jsonPatchStatus{PatchID: p.id}
	switch {
	case failed == nil:
		status.OK = &[1]*struct{}{}
	case editID == "":
		status.GlobalErrors = &jsonErrors{errorList{entries}}
	default:
		status.EditStatus = &jsonEditStatuses{[]jsonEditStatus{{editID, errorList{entries}}}}
	}
	body, _ := json.Marshal(map[string]jsonPatchStatus{yangPatchModule + ":yang-patch-status": status})
	w.Header().Set("Content-Type", MediaJSON)
	w.WriteHeader(code)
	_, _ = w.Write(body)
}
