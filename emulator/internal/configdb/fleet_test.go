package configdb

import (
	"net"
	"path/filepath"
	"strings"
	"testing"
)

// TestFleetDevicesHaveTheirOwnConfiguration: through the config socket,
// shells of two devices of one fleet each see and change only their own
// device's store and datastore.
func TestFleetDevicesHaveTheirOwnConfiguration(t *testing.T) {
	fleet, err := SeededFleet("cisco_iosxe", []string{"lab-r1", "lab-r2", "lab-r3"})
	if err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(t.TempDir(), "config.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- Serve(ln, fleet) }()

	r1, r2 := NewClient(sock, 1, "lab-r1"), NewClient(sock, 2, "lab-r2")
	defer r1.Close()
	defer r2.Close()
	if r1.Hostname() != "lab-r1" || r2.Hostname() != "lab-r2" {
		t.Fatalf("hostnames %q %q", r1.Hostname(), r2.Hostname())
	}
	shell2 := testEngine(t, r2).NewSession(true)
	for _, line := range []string{"configure terminal", "hostname edge-2", "interface GigabitEthernet2",
		"description only on r2", "end"} {
		if r := shell2.Execute(line); !r.OK() {
			t.Fatalf("%s: %+v", line, r)
		}
	}
	if p := shell2.Prompt(); p != "edge-2#" {
		t.Errorf("device 2 prompt %q", p)
	}
	shell1 := testEngine(t, r1).NewSession(true)
	if p := shell1.Prompt(); p != "lab-r1#" {
		t.Errorf("device 1 prompt %q", p)
	}
	if out := shell1.Execute("show running-config").Output; strings.Contains(out, "only on r2") {
		t.Errorf("device 1 shows device 2's configuration:\n%s", out)
	}
	if out := shell2.Execute("show running-config").Output; !strings.Contains(out, "hostname edge-2\n") ||
		!strings.Contains(out, " description only on r2\n") {
		t.Errorf("device 2 running-config:\n%s", out)
	}
	if got := runningXML(t, fleet[1].Datastore()); !strings.Contains(got, "<hostname>edge-2</hostname>") ||
		!strings.Contains(got, "only on r2") {
		t.Errorf("device 2 datastore: %s", got)
	}
	for k, want := range map[int]string{0: "lab-r1", 2: "lab-r3"} {
		if got := runningXML(t, fleet[k].Datastore()); !strings.Contains(got, "<hostname>"+want+"</hostname>") ||
			strings.Contains(got, "only on r2") {
			t.Errorf("device %d datastore: %s", k+1, got)
		}
	}
	if _, ok := fleet.Datastore(4); ok {
		t.Error("device 4 of a fleet of 3 exists")
	}

	// A client for a device the daemon does not have keeps its hostname.
	bogus := NewClient(sock, 9, "lab-r9")
	defer bogus.Close()
	if err := bogus.Apply("", "hostname x"); err == nil || err.Error() != "Unknown device 9" || bogus.Hostname() != "lab-r9" {
		t.Errorf("device 9: %v, hostname %q", err, bogus.Hostname())
	}

	ln.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
