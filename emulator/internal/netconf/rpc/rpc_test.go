package rpc

import (
	"strings"
	"testing"

	"transportlab/emulator/internal/netconf/xmltree"
)

func TestParseHello(t *testing.T) {
	h, err := ParseHello([]byte(`<?xml version="1.0"?><hello xmlns="urn:ietf:params:xml:ns:netconf:base:1.0"><capabilities>
		<capability>urn:ietf:params:netconf:base:1.0</capability>
		<capability>urn:ietf:params:netconf:base:1.1?x=1</capability></capabilities></hello>`))
	if err != nil {
		t.Fatal(err)
	}
	if !h.Supports(Base10) || !h.Supports(Base11) || h.SessionID != "" {
		t.Fatalf("bad hello: %+v", h)
	}
	for _, bad := range []string{`<hello/>`, `<hello xmlns="urn:ietf:params:xml:ns:netconf:base:1.0"/>`, `<rpc/>`} {
		if _, err := ParseHello([]byte(bad)); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
}

func TestServerHelloRoundTrip(t *testing.T) {
	h, err := ParseHello(ServerHello([]string{Base10, Base11}, 42))
	if err != nil || h.SessionID != "42" || !h.Supports(Base11) {
		t.Fatalf("%+v %v", h, err)
	}
}

func TestParseRPC(t *testing.T) {
	req, rerr := ParseRPC([]byte(`<rpc message-id="7" xmlns="urn:ietf:params:xml:ns:netconf:base:1.0" xmlns:x="urn:x" x:tag="t"><get-config><source><running/></source></get-config></rpc>`))
	if rerr != nil {
		t.Fatal(rerr)
	}
	if req.MessageID != "7" || req.Name() != "get-config" {
		t.Fatalf("%+v", req)
	}
	if ds, err := Datastore(req.Operation, "source"); err != nil || ds != "running" {
		t.Fatalf("datastore %q %v", ds, err)
	}
	reply := string(OKReply(req.Attrs))
	if !strings.Contains(reply, `message-id="7"`) || !strings.Contains(reply, `tag="t"`) || !strings.Contains(reply, "<ok/>") {
		t.Fatalf("reply %s", reply)
	}
	if _, err := xmltree.Parse([]byte(reply)); err != nil {
		t.Fatalf("reply not well-formed: %v", err)
	}
}

func TestParseRPCErrors(t *testing.T) {
	cases := map[string]string{
		`<rpc`: "malformed-message",
		`<foo xmlns="urn:ietf:params:xml:ns:netconf:base:1.0" message-id="1"/>`:              "unknown-element",
		`<rpc xmlns="urn:ietf:params:xml:ns:netconf:base:1.0"><get/></rpc>`:                  "missing-attribute",
		`<rpc xmlns="urn:ietf:params:xml:ns:netconf:base:1.0" message-id="1"/>`:              "malformed-message",
		`<rpc xmlns="urn:ietf:params:xml:ns:netconf:base:1.0" message-id="1"><a/><b/></rpc>`: "malformed-message",
	}
	for in, tag := range cases {
		_, err := ParseRPC([]byte(in))
		if err == nil || err.Tag != tag {
			t.Errorf("%s: want %s, got %v", in, tag, err)
		}
		if _, perr := xmltree.Parse(ErrorReply(nil, err)); perr != nil {
			t.Errorf("%s: error reply not well-formed: %v", in, perr)
		}
	}
}

// FuzzParseRPC: no input may panic the parser, and every outcome must be
// answerable with a well-formed reply that echoes the message-id.
func FuzzParseRPC(f *testing.F) {
	for _, seed := range []string{
		`<rpc message-id="1" xmlns="urn:ietf:params:xml:ns:netconf:base:1.0"><get/></rpc>`,
		`<rpc message-id="&amp;&lt;" xmlns="urn:ietf:params:xml:ns:netconf:base:1.0" xmlns:a="urn:a" a:b="c"><edit-config><target><running/></target><config><x xmlns="urn:x"/></config></edit-config></rpc>`,
		`<rpc`, `<!DOCTYPE x><rpc/>`, `<?xml version="1.0"?><hello/>`, "<a>\x00</a>",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		req, rerr := ParseRPC(in)
		var out []byte
		switch {
		case rerr != nil && req == nil:
			out = ErrorReply(nil, rerr)
		case rerr != nil:
			out = ErrorReply(req.Attrs, rerr)
		default:
			if req.Operation == nil {
				t.Fatal("request without operation")
			}
			out = OKReply(req.Attrs)
		}
		root, err := xmltree.Parse(out)
		if err != nil {
			t.Fatalf("reply to %q is not well-formed: %v\n%s", in, err, out)
		}
		if req != nil && req.MessageID != "" {
			if id, _ := root.AttrValue("message-id"); id != req.MessageID {
				t.Fatalf("message-id %q echoed as %q", req.MessageID, id)
			}
		}
		_, _ = ParseHello(in)
	})
}
