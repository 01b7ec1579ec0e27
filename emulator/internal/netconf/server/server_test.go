package server

import (
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"transportlab/emulator/internal/netconf/datastore"
	"transportlab/emulator/internal/netconf/framing"
	"transportlab/emulator/internal/netconf/rpc"
	"transportlab/emulator/internal/netconf/xmltree"
)

const ns = `xmlns="urn:ietf:params:xml:ns:netconf:base:1.0"`

// fakeClient talks to a session over in-memory pipes.
type fakeClient struct {
	t      *testing.T
	w      *io.PipeWriter
	dec    *framing.Decoder
	enc    *framing.Encoder
	done   chan error
	hello  rpc.Hello
	record *countingRecorder
}

type countingRecorder struct{ ops []string }

func (c *countingRecorder) RPCServed(op, tag string) { c.ops = append(c.ops, op+"/"+tag) }

func start(t *testing.T, store *datastore.Store, id uint32, serverBase11 bool, clientCaps ...string) *fakeClient {
	t.Helper()
	toServer, clientW := io.Pipe()
	clientR, fromServer := io.Pipe()
	c := &fakeClient{t: t, w: clientW, dec: framing.NewDecoder(clientR, 128<<20), enc: framing.NewEncoder(clientW),
		done: make(chan error, 1), record: &countingRecorder{}}
	go func() {
		err := Serve(toServer, fromServer, Options{SessionID: id, Base11: serverBase11, Store: store, MaxMessage: 1 << 20, Recorder: c.record})
		fromServer.CloseWithError(io.EOF)
		toServer.CloseWithError(io.ErrClosedPipe)
		c.done <- err
	}()
	msg, err := c.dec.ReadMessage()
	if err != nil {
		t.Fatal(err)
	}
	if c.hello, err = rpc.ParseHello(msg); err != nil {
		t.Fatal(err)
	}
	var caps strings.Builder
	for _, cp := range clientCaps {
		fmt.Fprintf(&caps, "<capability>%s</capability>", cp)
	}
	c.send(fmt.Sprintf(`<hello %s><capabilities>%s</capabilities></hello>`, ns, caps.String()))
	if c.hello.Supports(rpc.Base11) && strings.Contains(caps.String(), rpc.Base11) {
		c.dec.SetChunked()
		c.enc.SetChunked()
	}
	return c
}

// send writes one message; the session is always reading between replies,
// so the synchronous pipe write completes.
func (c *fakeClient) send(msg string) {
	if err := c.enc.WriteMessage([]byte(msg)); err != nil {
		c.t.Fatalf("send: %v", err)
	}
}

func (c *fakeClient) reply() *xmltree.Node {
	c.t.Helper()
	msg, err := c.dec.ReadMessage()
	if err != nil {
		c.t.Fatalf("reading reply: %v", err)
	}
	n, err := xmltree.Parse(msg)
	if err != nil {
		c.t.Fatalf("reply not XML: %v\n%s", err, msg)
	}
	return n
}

func (c *fakeClient) call(id, op string) *xmltree.Node {
	c.t.Helper()
	c.send(fmt.Sprintf(`<rpc message-id="%s" %s>%s</rpc>`, id, ns, op))
	r := c.reply()
	if got, _ := r.AttrValue("message-id"); got != id {
		c.t.Fatalf("message-id %q echoed as %q", id, got)
	}
	return r
}

func (c *fakeClient) wait() error {
	select {
	case err := <-c.done:
		return err
	case <-time.After(5 * time.Second):
		c.t.Fatal("session did not end")
		return nil
	}
}

func errorTag(r *xmltree.Node) string {
	if e := r.Child("rpc-error"); e != nil {
		return e.Child("error-tag").Value()
	}
	return ""
}

func newStore() *datastore.Store {
	return datastore.New([]*xmltree.Node{xmltree.Elem("urn:n", "native", xmltree.Leaf("urn:n", "hostname", "lab-r1"))})
}

func TestNegotiation(t *testing.T) {
	cases := []struct {
		server11   bool
		client     []string
		wantChunks bool
	}{
		{true, []string{rpc.Base10, rpc.Base11}, true},
		{true, []string{rpc.Base10}, false},
		{false, []string{rpc.Base10, rpc.Base11}, false},
	}
	for _, tc := range cases {
		c := start(t, newStore(), 1, tc.server11, tc.client...)
		if c.hello.Supports(rpc.Base11) != tc.server11 || c.hello.SessionID != "1" {
			t.Fatalf("server hello %+v", c.hello)
		}
		if c.dec.Chunked() != tc.wantChunks {
			t.Fatalf("chunked=%v, want %v", c.dec.Chunked(), tc.wantChunks)
		}
		if r := c.call("1", "<get/>"); r.Child("data").Child("native") == nil {
			t.Fatalf("get: %s", r)
		}
		if r := c.call("2", "<close-session/>"); r.Child("ok") == nil {
			t.Fatalf("close-session: %s", r)
		}
		if err := c.wait(); err != nil {
			t.Fatalf("session ended with %v", err)
		}
	}
}

func TestNoCommonBase(t *testing.T) {
	c := start(t, newStore(), 1, false, "urn:ietf:params:netconf:base:2.0")
	if err := c.wait(); err != ErrNoCommonBase {
		t.Fatalf("want ErrNoCommonBase, got %v", err)
	}
}

func TestPipelinedInOrder(t *testing.T) {
	c := start(t, newStore(), 1, true, rpc.Base11)
	var batch strings.Builder
	for i := range 20 {
		fmt.Fprintf(&batch, "\n#%d\n", len(rpcText(i)))
		batch.WriteString(rpcText(i))
		batch.WriteString("\n##\n")
	}
	go io.WriteString(c.w, batch.String())
	for i := range 20 {
		r := c.reply()
		if id, _ := r.AttrValue("message-id"); id != fmt.Sprint(i) {
			t.Fatalf("reply %d has message-id %q", i, id)
		}
		if (i%2 == 0) != (r.Child("data") != nil) {
			t.Fatalf("reply %d out of order: %s", i, r)
		}
	}
}

func rpcText(i int) string {
	if i%2 == 0 {
		return fmt.Sprintf(`<rpc message-id="%d" %s><get-config><source><running/></source></get-config></rpc>`, i, ns)
	}
	return fmt.Sprintf(`<rpc message-id="%d" %s><lock><target><candidate/></target></lock></rpc>`, i, ns)
}

func TestPayloadSizes(t *testing.T) {
	c := start(t, newStore(), 1, true, rpc.Base11)
	for _, size := range []int{1024, 10 * 1024, 100 * 1024, 1 << 20} {
		c.send(fmt.Sprintf(`<rpc message-id="s%d" %s><get><filter type="subtree"><payload xmlns="%s"><size>%d</size></payload></filter></get></rpc>`, size, ns, PayloadNS, size))
		msg, err := c.dec.ReadMessage()
		if err != nil {
			t.Fatal(err)
		}
		if len(msg) != size {
			t.Fatalf("asked for %d bytes, got %d", size, len(msg))
		}
		if _, err := xmltree.Parse(msg); err != nil {
			t.Fatalf("payload reply not XML: %v", err)
		}
	}
	for _, bad := range []string{"0", "-1", "x", fmt.Sprint(MaxPayload + 1)} {
		r := c.call("b", fmt.Sprintf(`<get><filter><payload xmlns="%s"><size>%s</size></payload></filter></get>`, PayloadNS, bad))
		if errorTag(r) != "invalid-value" {
			t.Fatalf("size %s: %s", bad, r)
		}
	}
}

func TestErrorsKeepSessionOpen(t *testing.T) {
	c := start(t, newStore(), 1, false, rpc.Base10)
	cases := []struct{ msg, tag string }{
		{`<rpc message-id="1" ` + ns + `><kill-session><session-id>9</session-id></kill-session></rpc>`, "operation-not-supported"},
		{`<rpc message-id="2" ` + ns + `><get xmlns="urn:other"/></rpc>`, "operation-not-supported"},
		{`<rpc message-id="3" ` + ns + `><get-config/></rpc>`, "missing-element"},
		{`<rpc message-id="4" ` + ns + `><get-config><source><startup/></source></get-config></rpc>`, "invalid-value"},
		{`<rpc message-id="5" ` + ns + `><edit-config><target><running/></target></edit-config></rpc>`, "missing-element"},
		{`<rpc message-id="6" ` + ns + `><get><filter type="xpath" select="/"/></get></rpc>`, "bad-attribute"},
		{`<rpc message-id="7" ` + ns + `><unlock><target><running/></target></unlock></rpc>`, "operation-failed"},
		{`<rpc ` + ns + `><get/></rpc>`, "missing-attribute"},
		{`<rpc message-id="8" ` + ns + `><get>`, "malformed-message"},
	}
	for _, tc := range cases {
		c.send(tc.msg)
		if r := c.reply(); errorTag(r) != tc.tag {
			t.Errorf("%s: want %s, got %s", tc.msg, tc.tag, r)
		}
	}
	if r := c.call("9", "<get/>"); r.Child("data") == nil {
		t.Fatalf("session unusable after errors: %s", r)
	}
	if len(c.record.ops) != len(cases)+1 {
		t.Fatalf("recorder saw %v", c.record.ops)
	}
}

func TestFramingViolationClosesSession(t *testing.T) {
	c := start(t, newStore(), 1, true, rpc.Base11)
	go io.WriteString(c.w, "garbage outside any chunk")
	if err := c.wait(); err == nil {
		t.Fatal("framing violation did not end the session with an error")
	}
}

func TestClientHelloWithSessionID(t *testing.T) {
	toServer, clientW := io.Pipe()
	clientR, fromServer := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- Serve(toServer, fromServer, Options{SessionID: 1, Store: newStore(), MaxMessage: 4096})
	}()
	go io.Copy(io.Discard, clientR)
	io.WriteString(clientW, `<hello `+ns+`><capabilities><capability>`+rpc.Base10+`</capability></capabilities><session-id>4</session-id></hello>]]>]]>`)
	if err := <-done; err == nil {
		t.Fatal("client hello with session-id accepted")
	}
}

func TestSharedStoreAcrossSessions(t *testing.T) {
	store := newStore()
	a := start(t, store, 1, true, rpc.Base11)
	b := start(t, store, 2, true, rpc.Base10)
	if r := a.call("1", "<lock><target><running/></target></lock>"); r.Child("ok") == nil {
		t.Fatalf("lock: %s", r)
	}
	if r := b.call("1", "<lock><target><running/></target></lock>"); errorTag(r) != "lock-denied" {
		t.Fatalf("second lock: %s", r)
	}
	edit := `<edit-config><target><candidate/></target><config><native xmlns="urn:n"><hostname>edge-9</hostname></native></config></edit-config>`
	if r := b.call("2", edit); r.Child("ok") == nil {
		t.Fatalf("edit candidate: %s", r)
	}
	if r := b.call("3", "<commit/>"); errorTag(r) != "in-use" {
		t.Fatalf("commit while running is locked by another session: %s", r)
	}
	a.call("2", "<close-session/>")
	a.wait()
	if r := b.call("4", "<commit/>"); r.Child("ok") == nil {
		t.Fatalf("commit after the lock holder left: %s", r)
	}
	r := b.call("5", `<get-config><source><running/></source><filter><native xmlns="urn:n"><hostname/></native></filter></get-config>`)
	if !strings.Contains(r.String(), "<hostname>edge-9</hostname>") {
		t.Fatalf("committed edit not in running: %s", r)
	}
	if r := b.call("6", "<discard-changes/>"); r.Child("ok") == nil {
		t.Fatalf("discard-changes: %s", r)
	}
}

// FuzzSession runs whole sessions on arbitrary client bytes after a valid
// or fuzzed hello: the server must never panic, and must end the session
// when the input ends.
func FuzzSession(f *testing.F) {
	hello11 := `<hello ` + ns + `><capabilities><capability>` + rpc.Base11 + `</capability></capabilities></hello>]]>]]>`
	hello10 := `<hello ` + ns + `><capabilities><capability>` + rpc.Base10 + `</capability></capabilities></hello>]]>]]>`
	f.Add(hello11+"\n#"+fmt.Sprint(len(rpcText(0)))+"\n"+rpcText(0)+"\n##\n", true)
	f.Add(hello10+rpcText(1)+"]]>]]>"+`<rpc message-id="x" `+ns+`><close-session/></rpc>]]>]]>`, false)
	f.Add(hello10+`<rpc message-id="1" `+ns+`><edit-config><target><running/></target><config><a operation="delete"/></config></edit-config></rpc>]]>]]>`, true)
	f.Add(hello11+"\n#5\n<rpc>\n##\n", true)
	f.Fuzz(func(t *testing.T, in string, base11 bool) {
		done := make(chan struct{})
		go func() {
			defer close(done)
			_ = Serve(strings.NewReader(in), io.Discard, Options{SessionID: 1, Base11: base11, Store: newStore(), MaxMessage: 1 << 16})
		}()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatalf("session did not end at end of input %q", in)
		}
	})
}
