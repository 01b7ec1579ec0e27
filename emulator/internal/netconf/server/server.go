// Package server runs one NETCONF session (RFC 6241 over RFC 6242 framing)
// on a byte stream: hello exchange and base-version negotiation, then
// <rpc>s answered strictly in the order they arrive, so pipelined requests
// get their replies in order.
package server

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"

	"transportlab/emulator/internal/netconf/datastore"
	"transportlab/emulator/internal/netconf/framing"
	"transportlab/emulator/internal/netconf/rpc"
	"transportlab/emulator/internal/netconf/xmltree"
)

// PayloadNS is the namespace of the synthetic payload used for reply-size
// sweeps: <get> with the subtree filter
//
//	<payload xmlns="urn:transport-lab:payload"><size>102400</size></payload>
//
// answers with an rpc-reply of exactly that many bytes (before framing).
const PayloadNS = "urn:transport-lab:payload"

// MaxPayload is the largest selectable reply size.
const MaxPayload = 64 << 20

// Capabilities the server offers besides the base versions.
var Capabilities = []string{
	"urn:ietf:params:netconf:capability:writable-running:1.0",
	"urn:ietf:params:netconf:capability:candidate:1.0",
	PayloadNS + "?module=transport-lab-payload",
}

// Recorder is told about every answered RPC; errorTag is empty on success.
type Recorder interface {
	RPCServed(operation, errorTag string)
}

// Options configure a session.
type Options struct {
	SessionID uint32
	// Base11 offers :base:1.1 (chunked framing); false makes the device
	// :base:1.0 only.
	Base11 bool
	Store  *datastore.Store
	// MaxMessage bounds one incoming message in bytes.
	MaxMessage int
	Recorder   Recorder
}

// ErrNoCommonBase ends a session whose peer shares no base version.
var ErrNoCommonBase = errors.New("netconf: no common base protocol version")

// Serve runs the session until the client closes the stream (nil), sends
// <close-session> (nil) or violates the protocol (an error; the caller
// closes the transport).
func Serve(r io.Reader, w io.Writer, opts Options) error {
	defer opts.Store.ReleaseSession(opts.SessionID)
	dec := framing.NewDecoder(r, opts.MaxMessage)
	enc := framing.NewEncoder(w)
	bases := []string{rpc.Base10}
	if opts.Base11 {
		bases = append(bases, rpc.Base11)
	}
	if err := enc.WriteMessage(rpc.ServerHello(append(bases, Capabilities...), opts.SessionID)); err != nil {
		return err
	}
	msg, err := dec.ReadMessage()
	if err != nil {
		return fmt.Errorf("netconf: reading client hello: %w", err)
	}
	hello, err := rpc.ParseHello(msg)
	if err != nil {
		return fmt.Errorf("netconf: client hello: %w", err)
	}
	if hello.SessionID != "" {
		return errors.New("netconf: client hello carries a session-id")
	}
	switch {
	case opts.Base11 && hello.Supports(rpc.Base11):
		dec.SetChunked()
		enc.SetChunked()
	case hello.Supports(rpc.Base10):
	default:
		return ErrNoCommonBase
	}
	s := &session{opts: opts}
	for {
		msg, err := dec.ReadMessage()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("netconf: %w", err)
		}
		reply, closing := s.handle(msg)
		if err := enc.WriteMessage(reply); err != nil {
			return err
		}
		if closing {
			return nil
		}
	}
}

type session struct {
	opts Options
}

// handle answers one message; closing is true after <close-session>.
func (s *session) handle(msg []byte) (reply []byte, closing bool) {
	req, perr := rpc.ParseRPC(msg)
	if perr != nil {
		s.record("malformed", perr)
		if req == nil { // not even the root element could be read
			return rpc.ErrorReply(nil, perr), false
		}
		return rpc.ErrorReply(req.Attrs, perr), false
	}
	data, done, rerr := s.dispatch(req)
	s.record(req.Name(), rerr)
	switch {
	case rerr != nil:
		return rpc.ErrorReply(req.Attrs, rerr), false
	case data != nil:
		return data, false
	}
	return rpc.OKReply(req.Attrs), done
}

func (s *session) record(op string, err *rpc.Error) {
	if s.opts.Recorder == nil {
		return
	}
	tag := ""
	if err != nil {
		tag = err.Tag
	}
	s.opts.Recorder.RPCServed(op, tag)
}

// dispatch runs an operation. A non-nil data is a complete reply; nil data
// and nil error mean <ok/>.
func (s *session) dispatch(req *rpc.Request) (data []byte, closing bool, err *rpc.Error) {
	op := req.Operation
	if op.Name.Space != rpc.BaseNS {
		return nil, false, notSupported(op)
	}
	store, id := s.opts.Store, s.opts.SessionID
	switch op.Name.Local {
	case "get":
		data, err := s.get(req)
		return data, false, err
	case "get-config":
		source, err := rpc.Datastore(op, "source")
		if err != nil {
			return nil, false, err
		}
		filter, err := subtreeFilter(op)
		if err != nil {
			return nil, false, err
		}
		nodes, err := store.Get(source, filter)
		if err != nil {
			return nil, false, err
		}
		return rpc.DataReply(req.Attrs, nodes), false, nil
	case "edit-config":
		target, err := rpc.Datastore(op, "target")
		if err != nil {
			return nil, false, err
		}
		config := op.Child("config")
		if config == nil {
			return nil, false, &rpc.Error{Type: "protocol", Tag: "missing-element", Message: "<edit-config> needs <config>",
				Info: []*xmltree.Node{xmltree.Leaf(rpc.BaseNS, "bad-element", "config")}}
		}
		defaultOp := ""
		if d := op.Child("default-operation"); d != nil {
			defaultOp = d.Value()
		}
		return nil, false, store.Edit(id, target, defaultOp, config.Children)
	case "commit":
		return nil, false, store.Commit(id)
	case "discard-changes":
		return nil, false, store.Discard(id)
	case "lock", "unlock":
		target, err := rpc.Datastore(op, "target")
		if err != nil {
			return nil, false, err
		}
		if op.Name.Local == "lock" {
			return nil, false, store.Lock(id, target)
		}
		return nil, false, store.Unlock(id, target)
	case "close-session":
		return nil, true, nil
	}
	return nil, false, notSupported(op)
}

func notSupported(op *xmltree.Node) *rpc.Error {
	return &rpc.Error{Type: "protocol", Tag: "operation-not-supported",
		Message: fmt.Sprintf("operation %q in %q is not supported", op.Name.Local, op.Name.Space)}
}

// subtreeFilter returns the <filter> element, or nil when absent.
func subtreeFilter(op *xmltree.Node) (*xmltree.Node, *rpc.Error) {
	f := op.Child("filter")
	if f == nil {
		return nil, nil
	}
	if t, ok := f.AttrValue("type"); ok && t != "subtree" {
		return nil, &rpc.Error{Type: "protocol", Tag: "bad-attribute", Message: "only subtree filters are supported",
			Info: []*xmltree.Node{xmltree.Leaf(rpc.BaseNS, "bad-attribute", "type"), xmltree.Leaf(rpc.BaseNS, "bad-element", "filter")}}
	}
	return f, nil
}

// get answers <get>: the running configuration and the operational state
// data (config false), both through the filter, or a synthetic payload of
// the requested size.
func (s *session) get(req *rpc.Request) ([]byte, *rpc.Error) {
	filter, err := subtreeFilter(req.Operation)
	if err != nil {
		return nil, err
	}
	if filter != nil {
		for _, f := range filter.Children {
			if f.Name.Space == PayloadNS && f.Name.Local == "payload" {
				return payloadReply(req, f)
			}
		}
	}
	nodes, err := s.opts.Store.Get(datastore.Running, filter)
	if err != nil {
		return nil, err
	}
	return rpc.DataReply(req.Attrs, append(nodes, s.opts.Store.State(filter)...)), nil
}

// payloadReply builds a reply of exactly <size> bytes: the filler leaf
// grows until the document reaches the size (or stays empty when the
// reply's own overhead is already larger).
func payloadReply(req *rpc.Request, f *xmltree.Node) ([]byte, *rpc.Error) {
	sizeLeaf := f.Child("size")
	size := 0
	if sizeLeaf != nil {
		size, _ = strconv.Atoi(sizeLeaf.Value())
	}
	if size <= 0 || size > MaxPayload {
		return nil, &rpc.Error{Type: "application", Tag: "invalid-value",
			Message: fmt.Sprintf("payload size must be 1..%d bytes", MaxPayload),
			Info:    []*xmltree.Node{xmltree.Leaf(rpc.BaseNS, "bad-element", "size")}}
	}
	filler := xmltree.Leaf(PayloadNS, "filler", "")
	payload := xmltree.Elem(PayloadNS, "payload", xmltree.Leaf(PayloadNS, "size", strconv.Itoa(size)), filler)
	empty := rpc.DataReply(req.Attrs, []*xmltree.Node{payload})
	if pad := size - len(empty) - len("<filler></filler>") + len("<filler/>"); pad > 0 {
		filler.Text = string(bytes.Repeat([]byte(fillerPattern), pad/len(fillerPattern)+1)[:pad])
		return rpc.DataReply(req.Attrs, []*xmltree.Node{payload}), nil
	}
	return empty, nil
}

// fillerPattern needs no XML escaping, so text length equals byte length.
const fillerPattern = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
