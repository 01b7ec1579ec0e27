package main

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"transportlab/emulator/internal/configdb"
	"transportlab/emulator/internal/events"
	"transportlab/emulator/internal/fleet"
)

func TestDeviceOfConnection(t *testing.T) {
	plan, err := fleet.New("lab-r1", 3, "127.0.0.16/28")
	if err != nil {
		t.Fatal(err)
	}
	for conn, want := range map[string]int{
		"198.18.100.7 40022 127.0.0.18 22":   2,
		"198.18.100.7 40022 127.0.0.19 830":  3,
		"198.18.100.7 40022 198.18.100.5 22": 1,
		"::1 40022 ::1 22":                   1,
		"":                                   1,
		"garbage":                            1,
	} {
		if got := deviceOfConnection(plan, conn); got.Index != want {
			t.Errorf("%q: device %d, want %d", conn, got.Index, want)
		}
	}
}

// writeFleetSettings writes the settings of a fleet of three on
// 127.0.0.16/28 with the daemon's sockets in dir.
func writeFleetSettings(t *testing.T, dir string) string {
	t.Helper()
	path := filepath.Join(dir, "device.json")
	body := `{"hostname":"lab-r1","fleet_size":3,"fleet_addresses":"127.0.0.16/28","transcripts_dir":"` + shippedTranscripts +
		`","events_socket":"` + filepath.Join(dir, "events.sock") + `","config_socket":"` + filepath.Join(dir, "config.sock") + `"}`
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// captureStdout runs f with os.Stdout going to a file and returns what f
// printed.
func captureStdout(t *testing.T, f func()) string {
	t.Helper()
	file, err := os.Create(filepath.Join(t.TempDir(), "stdout"))
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	stdout := os.Stdout
	os.Stdout = file
	defer func() { os.Stdout = stdout }()
	f()
	out, err := os.ReadFile(file.Name())
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// TestShellServesTheDeviceOfItsAddress: an SSH exec session whose client
// connected to device 2's address configures device 2 only, and its
// events name device 2.
func TestShellServesTheDeviceOfItsAddress(t *testing.T) {
	dir := t.TempDir()
	path := writeFleetSettings(t, dir)
	stores, err := configdb.SeededFleet("cisco_iosxe", []string{"lab-r1", "lab-r2", "lab-r3"})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("unix", filepath.Join(dir, "config.sock"))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go configdb.Serve(ln, stores)
	eventListener, err := events.Listen(filepath.Join(dir, "events.sock"))
	if err != nil {
		t.Fatal(err)
	}
	defer eventListener.Close()
	received := make(chan events.Event, 16)
	go eventListener.Serve(func(ev events.Event) { received <- ev }, func() {})

	t.Setenv("SSH_CONNECTION", "198.18.100.7 40022 127.0.0.18 22")
	var code int
	out := captureStdout(t, func() {
		code = run([]string{"device-shell", "-settings", path, "-c", "configure terminal\nhostname edge-2\nend\nshow version"})
	})
	if code != 0 || !strings.Contains(out, "edge-2 uptime is") {
		t.Fatalf("exit %d, output:\n%s", code, out)
	}
	for k, want := range []string{"lab-r1", "edge-2", "lab-r3"} {
		if got := stores[k].Hostname(); got != want {
			t.Errorf("device %d hostname %q, want %q", k+1, got, want)
		}
	}
	select {
	case ev := <-received:
		if ev.Kind != events.SessionOpen || ev.Device != 2 {
			t.Errorf("first event %+v", ev)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no session event")
	}
}

func TestFleetSubcommandListsTheDevices(t *testing.T) {
	path := writeFleetSettings(t, t.TempDir())
	var code int
	out := captureStdout(t, func() { code = run([]string{"device", "fleet", "-settings", path}) })
	want := "1\tlab-r1\tcisco_iosxe\t127.0.0.17\n2\tlab-r2\tcisco_iosxe\t127.0.0.18\n3\tlab-r3\tcisco_iosxe\t127.0.0.19\n"
	if code != 0 || out != want {
		t.Errorf("exit %d, output %q, want %q", code, out, want)
	}
	// One device has no address: it comes last, so the entrypoint's read keeps the profile.
	single := filepath.Join(t.TempDir(), "device.json")
	if err := os.WriteFile(single, []byte(`{"platform":"arista_eos"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	out = captureStdout(t, func() { code = run([]string{"device", "fleet", "-settings", single}) })
	if code != 0 || out != "1\tlab-r1\tarista_eos\t\n" {
		t.Errorf("single device: exit %d, output %q", code, out)
	}
	bad := filepath.Join(t.TempDir(), "device.json")
	if err := os.WriteFile(bad, []byte(`{"fleet_size":20,"fleet_addresses":"127.0.0.16/28"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if code := run([]string{"device", "fleet", "-settings", bad}); code != 1 {
		t.Errorf("a fleet too large for its block: exit %d", code)
	}
}
