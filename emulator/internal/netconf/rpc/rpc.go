// Package rpc encodes and decodes NETCONF messages (RFC 6241): <hello>,
// <rpc> requests and <rpc-reply> answers, including <rpc-error>. Messages
// arrive already de-framed (package framing).
package rpc

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"strings"

	"transportlab/emulator/internal/netconf/xmltree"
)

// Namespaces and base capabilities.
const (
	BaseNS = "urn:ietf:params:xml:ns:netconf:base:1.0"
	Base10 = "urn:ietf:params:netconf:base:1.0"
	Base11 = "urn:ietf:params:netconf:base:1.1"
)

const xmlDecl = `<?xml version="1.0" encoding="UTF-8"?>`

// Hello is a peer's <hello>.
type Hello struct {
	Capabilities []string
	// SessionID is set only in a server's hello; a client sending one is a
	// protocol violation.
	SessionID string
}

// Supports reports whether the hello lists the capability (ignoring any
// "?parameters" part).
func (h Hello) Supports(capability string) bool {
	for _, c := range h.Capabilities {
		if base, _, _ := strings.Cut(c, "?"); base == capability {
			return true
		}
	}
	return false
}

// ParseHello decodes a <hello> message.
func ParseHello(msg []byte) (Hello, error) {
	root, err := xmltree.Parse(msg)
	if err != nil {
		return Hello{}, err
	}
	if root.Name.Local != "hello" || root.Name.Space != BaseNS {
		return Hello{}, fmt.Errorf("expected <hello> in %s, got <%s> in %q", BaseNS, root.Name.Local, root.Name.Space)
	}
	var h Hello
	if caps := root.Child("capabilities"); caps != nil {
		for _, c := range caps.Children {
			if c.Name.Local == "capability" && c.Value() != "" {
				h.Capabilities = append(h.Capabilities, c.Value())
			}
		}
	}
	if id := root.Child("session-id"); id != nil {
		h.SessionID = id.Value()
	}
	if len(h.Capabilities) == 0 {
		return Hello{}, fmt.Errorf("<hello> without capabilities")
	}
	return h, nil
}

// ServerHello encodes the server's <hello>.
func ServerHello(capabilities []string, sessionID uint32) []byte {
	caps := xmltree.Elem(BaseNS, "capabilities")
	for _, c := range capabilities {
		caps.Children = append(caps.Children, xmltree.Leaf(BaseNS, "capability", c))
	}
	hello := xmltree.Elem(BaseNS, "hello", caps, xmltree.Leaf(BaseNS, "session-id", fmt.Sprint(sessionID)))
	return document(hello)
}

// Request is one decoded <rpc>.
type Request struct {
	// MessageID is the message-id attribute, echoed in the reply.
	MessageID string
	// Attrs are all attributes of <rpc>; RFC 6241 requires the reply to
	// carry them unmodified.
	Attrs []xml.Attr
	// Operation is the single child element of <rpc>, e.g. <get-config>.
	Operation *xmltree.Node
}

// Name is the operation's local name ("get-config").
func (r *Request) Name() string { return r.Operation.Name.Local }

// ParseRPC decodes an <rpc>. On failure it returns the rpc-error to send
// and, when they could be read, the attributes to echo.
func ParseRPC(msg []byte) (*Request, *Error) {
	root, err := xmltree.Parse(msg)
	if err != nil {
		return nil, &Error{Type: "rpc", Tag: "malformed-message", Message: "not well-formed XML: " + err.Error()}
	}
	req := &Request{Attrs: root.Attr}
	if root.Name.Local != "rpc" || root.Name.Space != BaseNS {
		return req, &Error{Type: "rpc", Tag: "unknown-element", Message: "expected <rpc> in " + BaseNS,
			Info: []*xmltree.Node{xmltree.Leaf(BaseNS, "bad-element", root.Name.Local)}}
	}
	id, ok := root.AttrValue("message-id")
	if !ok {
		return req, &Error{Type: "rpc", Tag: "missing-attribute", Message: "<rpc> needs a message-id",
			Info: []*xmltree.Node{xmltree.Leaf(BaseNS, "bad-attribute", "message-id"), xmltree.Leaf(BaseNS, "bad-element", "rpc")}}
	}
	req.MessageID = id
	if len(root.Children) != 1 {
		return req, &Error{Type: "rpc", Tag: "malformed-message",
			Message: fmt.Sprintf("<rpc> must contain exactly one operation, found %d", len(root.Children))}
	}
	req.Operation = root.Children[0]
	return req, nil
}

// Error is one <rpc-error> (RFC 6241 section 4.3).
type Error struct {
	Type     string // transport, rpc, protocol, application
	Tag      string // e.g. operation-not-supported
	Severity string // "error" when empty
	Message  string
	Info     []*xmltree.Node // children of <error-info>
}

func (e *Error) Error() string { return e.Tag + ": " + e.Message }

func (e *Error) node() *xmltree.Node {
	severity := e.Severity
	if severity == "" {
		severity = "error"
	}
	n := xmltree.Elem(BaseNS, "rpc-error",
		xmltree.Leaf(BaseNS, "error-type", e.Type),
		xmltree.Leaf(BaseNS, "error-tag", e.Tag),
		xmltree.Leaf(BaseNS, "error-severity", severity))
	if e.Message != "" {
		msg := xmltree.Leaf(BaseNS, "error-message", e.Message)
		msg.Attr = []xml.Attr{{Name: xml.Name{Space: "http://www.w3.org/XML/1998/namespace", Local: "lang"}, Value: "en"}}
		n.Children = append(n.Children, msg)
	}
	if len(e.Info) > 0 {
		n.Children = append(n.Children, xmltree.Elem(BaseNS, "error-info", e.Info...))
	}
	return n
}

// OKReply is <rpc-reply><ok/></rpc-reply>.
func OKReply(attrs []xml.Attr) []byte {
	return reply(attrs, xmltree.Elem(BaseNS, "ok"))
}

// DataReply wraps nodes in <data>.
func DataReply(attrs []xml.Attr, data []*xmltree.Node) []byte {
	return reply(attrs, xmltree.Elem(BaseNS, "data", data...))
}

// ErrorReply carries one rpc-error.
func ErrorReply(attrs []xml.Attr, e *Error) []byte {
	return reply(attrs, e.node())
}

func reply(attrs []xml.Attr, body *xmltree.Node) []byte {
	r := xmltree.Elem(BaseNS, "rpc-reply", body)
	r.Attr = replyAttrs(attrs)
	return document(r)
}

// replyAttrs keeps the request's attributes in order. Namespaced ones keep
// their namespace (the writer declares a prefix for each).
func replyAttrs(attrs []xml.Attr) []xml.Attr {
	out := make([]xml.Attr, 0, len(attrs))
	for _, a := range attrs {
		if a.Name.Space == BaseNS {
			a.Name.Space = ""
		}
		out = append(out, a)
	}
	return out
}

func document(root *xmltree.Node) []byte {
	var b bytes.Buffer
	b.WriteString(xmlDecl)
	root.Write(&b, "")
	return b.Bytes()
}

// Datastore reads the datastore named in a <source>/<target> element, e.g.
// <target><candidate/></target>.
func Datastore(op *xmltree.Node, which string) (string, *Error) {
	holder := op.Child(which)
	if holder == nil || len(holder.Children) != 1 {
		return "", &Error{Type: "protocol", Tag: "missing-element", Message: "<" + which + "> must name one datastore",
			Info: []*xmltree.Node{xmltree.Leaf(BaseNS, "bad-element", which)}}
	}
	return holder.Children[0].Name.Local, nil
}
