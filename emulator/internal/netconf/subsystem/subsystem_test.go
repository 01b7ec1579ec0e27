package subsystem

import (
	"io"
	"log/slog"
	"net"
	"path/filepath"
	"strings"
	"testing"

	"transportlab/emulator/internal/configdb"
	"transportlab/emulator/internal/metrics"
	"transportlab/emulator/internal/netconf/framing"
)

// TestSubsystemRelay runs the daemon's NETCONF listener and the subsystem
// relay as sshd would connect them, with pipes standing in for the channel.
func TestSubsystemRelay(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "netconf.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	config, err := configdb.Seeded("cisco_iosxe", "edge-7")
	if err != nil {
		t.Fatal(err)
	}
	m := metrics.New(metrics.Sources{}, metrics.VersionInfo{})
	srv := NewServer(config.Datastore(), false, m, slog.New(slog.DiscardHandler))
	go srv.Serve(ln)
	defer ln.Close()

	conn, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	stdin, clientW := io.Pipe()
	clientR, stdout := io.Pipe()
	relayDone := make(chan error, 1)
	go func() { relayDone <- Relay(conn.(*net.UnixConn), stdin, stdout); stdout.Close() }()

	dec := framing.NewDecoder(clientR, 1<<20)
	hello, err := dec.ReadMessage()
	if err != nil || !strings.Contains(string(hello), "<session-id>1</session-id>") || strings.Contains(string(hello), "base:1.1") {
		t.Fatalf("server hello %q: %v", hello, err)
	}
	enc := framing.NewEncoder(clientW)
	go func() {
		enc.WriteMessage([]byte(`<hello xmlns="urn:ietf:params:xml:ns:netconf:base:1.0"><capabilities><capability>urn:ietf:params:netconf:base:1.0</capability></capabilities></hello>`))
		enc.WriteMessage([]byte(`<rpc message-id="1" xmlns="urn:ietf:params:xml:ns:netconf:base:1.0"><get-config><source><running/></source></get-config></rpc>`))
		enc.WriteMessage([]byte(`<rpc message-id="2" xmlns="urn:ietf:params:xml:ns:netconf:base:1.0"><close-session/></rpc>`))
	}()
	reply, err := dec.ReadMessage()
	if err != nil || !strings.Contains(string(reply), "<hostname>edge-7</hostname>") {
		t.Fatalf("get-config %q: %v", reply, err)
	}
	if reply, err = dec.ReadMessage(); err != nil || !strings.Contains(string(reply), "<ok/>") {
		t.Fatalf("close-session %q: %v", reply, err)
	}
	if err := <-relayDone; err != nil {
		t.Fatalf("relay: %v", err)
	}
}
