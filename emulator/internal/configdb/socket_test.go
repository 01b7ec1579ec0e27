package configdb

import (
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"transportlab/emulator/internal/engine"
)

func testEngine(t *testing.T, config engine.ConfigStore) *engine.Engine {
	t.Helper()
	tr, err := engine.ParseTranscript("show running-config", "hostname {{.Hostname}}\n{{range .ConfigLines}}{{.}}\n{{end}}end\n")
	if err != nil {
		t.Fatal(err)
	}
	e, err := engine.New(engine.Options{Hostname: "lab-r1", Platform: "cisco_iosxe", Config: config}, []engine.Transcript{tr})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// TestShellAndDaemonShareOneStore: a shell's engine (over the socket) and
// the daemon's (in-process, as the HTTPS API uses it) see each other's
// configuration and hostname.
func TestShellAndDaemonShareOneStore(t *testing.T) {
	store, ds := newStore(t)
	sock := filepath.Join(t.TempDir(), "config.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- Serve(ln, Fleet{store}) }()

	client := NewClient(sock, 1, "lab-r1")
	defer client.Close()
	shell := testEngine(t, client).NewSession(true)
	for _, line := range []string{"configure terminal", "interface GigabitEthernet2", "description uplink", "exit", "hostname edge-1"} {
		if r := shell.Execute(line); !r.OK() {
			t.Fatalf("%s: %+v", line, r)
		}
	}
	if p := shell.Prompt(); p != "edge-1(config)#" {
		t.Errorf("prompt %q", p)
	}
	if got := runningXML(t, ds); !strings.Contains(got, "<description>uplink</description>") {
		t.Errorf("datastore: %s", got)
	}
	api := testEngine(t, store).NewSession(false)
	out := api.Execute("show running-config").Output
	if !strings.Contains(out, "hostname edge-1\ninterface GigabitEthernet2\n description uplink\n!\n") {
		t.Errorf("daemon side running-config:\n%s", out)
	}
	api.Execute("configure terminal")
	api.Execute("interface Loopback1")
	api.Execute("description from api")
	if out := shell.Execute("do show running-config").Output; !strings.Contains(out, "interface Loopback1\n description from api\n") {
		t.Errorf("shell running-config:\n%s", out)
	}

	ln.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// TestShellWithoutDaemon: no socket means device-style errors, the last
// known hostname in the prompt, and no waiting.
func TestShellWithoutDaemon(t *testing.T) {
	client := NewClient(filepath.Join(t.TempDir(), "absent.sock"), 1, "lab-r1")
	s := testEngine(t, client).NewSession(false)
	start := time.Now()
	if r := s.Execute("configure terminal"); !r.OK() {
		t.Fatalf("configure terminal: %+v", r)
	}
	r := s.Execute("hostname x")
	if r.Err != engine.ErrConfig || r.Output != "% "+ErrUnavailable.Error()+"\n" {
		t.Errorf("hostname without daemon: %+v", r)
	}
	s.Execute("end")
	if r := s.Execute("show running-config"); r.Err != engine.ErrConfig || !strings.HasPrefix(r.Output, "% Configuration database") {
		t.Errorf("show running-config without daemon: %+v", r)
	}
	if p := s.Prompt(); p != "lab-r1#" {
		t.Errorf("prompt %q", p)
	}
	if time.Since(start) > time.Second {
		t.Errorf("took %s", time.Since(start))
	}
}

// TestStalledDaemonTimesOut: a daemon that accepts but never answers costs
// one timeout, not a hang.
func TestStalledDaemonTimesOut(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "config.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	client := NewClient(sock, 1, "lab-r1")
	client.Timeout = 100 * time.Millisecond
	defer client.Close()
	start := time.Now()
	if err := client.Apply("", "hostname x"); err != ErrUnavailable {
		t.Errorf("apply: %v", err)
	}
	if client.Hostname() != "lab-r1" {
		t.Error("hostname fallback")
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("took %s", d)
	}
}

func TestMalformedRequests(t *testing.T) {
	store, _ := newStore(t)
	a, b := net.Pipe()
	go serveConn(a, Fleet{store})
	defer b.Close()
	b.SetDeadline(time.Now().Add(5 * time.Second))
	buf := make([]byte, 512)
	for _, c := range []struct{ req, want string }{
		{"nonsense\n", `{"hostname":"","error":"Malformed configuration request"}`},
		{`{"op":"drop"}` + "\n", `{"hostname":"lab-r1","error":"Unknown configuration request"}`},
		{`{"device":2,"op":"hostname"}` + "\n", `{"hostname":"","error":"Unknown device 2"}`},
		{`{"device":0,"op":"hostname"}` + "\n", `{"hostname":"","error":"Unknown device 0"}`},
		{`{"op":"hostname"}` + "\n", `{"hostname":"lab-r1"}`},
	} {
		if _, err := b.Write([]byte(c.req)); err != nil {
			t.Fatal(err)
		}
		n, err := b.Read(buf)
		if err != nil || strings.TrimSpace(string(buf[:n])) != c.want {
			t.Errorf("%q: %q %v, want %s", c.req, buf[:n], err, c.want)
		}
	}
}
