package subsystem

import (
	"errors"
	"io"
	"log/slog"
	"net"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"transportlab/emulator/internal/configdb"
	"transportlab/emulator/internal/metrics"
	"transportlab/emulator/internal/netconf/framing"
)

const (
	clientHello = `<hello xmlns="urn:ietf:params:xml:ns:netconf:base:1.0"><capabilities><capability>urn:ietf:params:netconf:base:1.0</capability></capabilities></hello>`
	getConfig   = `<rpc message-id="1" xmlns="urn:ietf:params:xml:ns:netconf:base:1.0"><get-config><source><running/></source></get-config></rpc>`
	closeRPC    = `<rpc message-id="9" xmlns="urn:ietf:params:xml:ns:netconf:base:1.0"><close-session/></rpc>`
)

// startDaemon serves a fleet of hostnames on a NETCONF socket.
func startDaemon(t *testing.T, hostnames ...string) (string, configdb.Fleet) {
	t.Helper()
	sock := filepath.Join(t.TempDir(), "netconf.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	fleet, err := configdb.SeededFleet("cisco_iosxe", hostnames)
	if err != nil {
		t.Fatal(err)
	}
	m := metrics.New(metrics.Sources{}, metrics.VersionInfo{}, hostnames)
	srv := NewServer(fleet, false, m, slog.New(slog.DiscardHandler))
	go srv.Serve(ln)
	t.Cleanup(func() { ln.Close() })
	return sock, fleet
}

// session is a NETCONF client on the far side of a relay, as sshd would
// connect it, with pipes standing in for the SSH channel.
type session struct {
	t     *testing.T
	dec   *framing.Decoder
	enc   *framing.Encoder
	hello string
	done  chan error
}

func openSession(t *testing.T, sock string, device int) *session {
	t.Helper()
	conn, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	stdin, clientW := io.Pipe()
	clientR, stdout := io.Pipe()
	s := &session{t: t, dec: framing.NewDecoder(clientR, 1<<20), enc: framing.NewEncoder(clientW), done: make(chan error, 1)}
	go func() { s.done <- Relay(conn.(*net.UnixConn), device, stdin, stdout); stdout.Close() }()
	hello, err := s.dec.ReadMessage()
	if err != nil {
		t.Fatalf("server hello: %v", err)
	}
	s.hello = string(hello)
	// The relay takes what is written at once: the daemon's socket buffers it.
	if err := s.enc.WriteMessage([]byte(clientHello)); err != nil {
		t.Fatal(err)
	}
	return s
}

// rpc sends one message and returns the reply.
func (s *session) rpc(msg string) string {
	s.t.Helper()
	if err := s.enc.WriteMessage([]byte(msg)); err != nil {
		s.t.Fatal(err)
	}
	reply, err := s.dec.ReadMessage()
	if err != nil {
		s.t.Fatalf("reply to %s: %v", msg, err)
	}
	return string(reply)
}

func (s *session) close() {
	s.t.Helper()
	if reply := s.rpc(closeRPC); !strings.Contains(reply, "<ok/>") {
		s.t.Fatalf("close-session %q", reply)
	}
	if err := <-s.done; err != nil {
		s.t.Fatalf("relay: %v", err)
	}
}

func TestSubsystemRelay(t *testing.T) {
	sock, _ := startDaemon(t, "edge-7")
	s := openSession(t, sock, 1)
	if !strings.Contains(s.hello, "<session-id>1</session-id>") || strings.Contains(s.hello, "base:1.1") {
		t.Fatalf("server hello %q", s.hello)
	}
	if reply := s.rpc(getConfig); !strings.Contains(reply, "<hostname>edge-7</hostname>") {
		t.Fatalf("get-config %q", reply)
	}
	s.close()
}

// TestFleetSessionsUseTheirDevicesDatastore: the preamble picks the device;
// its edits, hostname and locks are its own.
func TestFleetSessionsUseTheirDevicesDatastore(t *testing.T) {
	sock, fleet := startDaemon(t, "lab-r1", "lab-r2", "lab-r3")
	r1, r2 := openSession(t, sock, 1), openSession(t, sock, 2)
	if reply := r2.rpc(getConfig); !strings.Contains(reply, "<hostname>lab-r2</hostname>") {
		t.Fatalf("device 2 get-config %q", reply)
	}
	edit := `<rpc message-id="2" xmlns="urn:ietf:params:xml:ns:netconf:base:1.0"><edit-config><target><running/></target><config>` +
		`<native xmlns="` + configdb.NativeNS + `"><hostname>edge-2</hostname></native></config></edit-config></rpc>`
	lock := `<rpc message-id="3" xmlns="urn:ietf:params:xml:ns:netconf:base:1.0"><lock><target><running/></target></lock></rpc>`
	for _, msg := range []string{edit, lock} {
		if reply := r2.rpc(msg); !strings.Contains(reply, "<ok/>") {
			t.Fatalf("device 2 %s: %q", msg, reply)
		}
	}
	if reply := r1.rpc(getConfig); !strings.Contains(reply, "<hostname>lab-r1</hostname>") {
		t.Errorf("device 1 get-config after device 2's edit %q", reply)
	}
	if reply := r1.rpc(lock); !strings.Contains(reply, "<ok/>") {
		t.Errorf("device 2's lock holds device 1: %q", reply)
	}
	if store, _ := fleet.Device(2); store.Hostname() != "edge-2" {
		t.Errorf("device 2 hostname %q", store.Hostname())
	}
	if store, _ := fleet.Device(3); store.Apply("", "hostname x") != nil {
		t.Error("device 3 locked by another device's session")
	}
	if store, _ := fleet.Device(2); store.Apply("", "hostname x") == nil {
		t.Error("device 2's lock does not hold its CLI")
	}
	if !strings.Contains(r2.hello, "<session-id>2</session-id>") {
		t.Errorf("session IDs are not unique across devices: %q", r2.hello)
	}
	r1.close()
	r2.close()
}

// TestBadPreambleClosesTheConnection: no hello, no session, the daemon
// goes on.
func TestBadPreambleClosesTheConnection(t *testing.T) {
	sock, _ := startDaemon(t, "lab-r1", "lab-r2")
	for _, preamble := range []string{"device 3\n", "device 0\n", "<hello/>\n", "device x\n",
		"device " + strings.Repeat("1", 40) + "\n"} {
		conn, err := net.Dial("unix", sock)
		if err != nil {
			t.Fatal(err)
		}
		conn.SetDeadline(time.Now().Add(5 * time.Second))
		if _, err := io.WriteString(conn, preamble); err != nil {
			t.Fatal(err)
		}
		// Closed with part of the line unread, the socket is reset.
		if got, err := io.ReadAll(conn); (err != nil && !errors.Is(err, syscall.ECONNRESET)) || len(got) != 0 {
			t.Errorf("preamble %q: %q %v", preamble, got, err)
		}
		conn.Close()
	}
	s := openSession(t, sock, 2)
	if reply := s.rpc(getConfig); !strings.Contains(reply, "<hostname>lab-r2</hostname>") {
		t.Fatalf("get-config %q", reply)
	}
	s.close()
}
