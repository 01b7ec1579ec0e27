package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"transportlab/emulator/internal/configdb"
	"transportlab/emulator/internal/settings"
)

// shippedTranscripts is the repository's transcript set, the one the image
// installs; testing against it catches template mistakes before a build.
const shippedTranscripts = "../../../transcripts"

func TestShippedTranscriptsAnswerTheRunnerCommands(t *testing.T) {
	// The interfaces of "show interfaces" are those of the seeded store.
	store, err := configdb.Seeded("cisco_iosxe", "edge-7")
	if err != nil {
		t.Fatal(err)
	}
	e, err := newEngine(settings.Settings{Hostname: "edge-7", Platform: "cisco_iosxe", TranscriptsDir: shippedTranscripts}, store)
	if err != nil {
		t.Fatal(err)
	}
	for _, command := range []string{"show version", "show clock", "show ip interface brief", "show inventory",
		"show running-config", "show interfaces"} {
		result := e.NewSession(false).Execute(command)
		if !result.OK() || len(result.Output) < 20 {
			t.Errorf("%s: %+v", command, result)
		}
		if (command == "show version" || command == "show running-config") && !strings.Contains(result.Output, "edge-7") {
			t.Errorf("%s does not show the hostname", command)
		}
	}
}

func TestLoginShellNamesSelectTheShell(t *testing.T) {
	path := filepath.Join(t.TempDir(), "device.json")
	body := `{"hostname":"edge-7","transcripts_dir":"` + shippedTranscripts + `","events_socket":"` +
		filepath.Join(t.TempDir(), "none.sock") + `","config_socket":"` + filepath.Join(t.TempDir(), "none.sock") + `"}`
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout := os.Stdout
	devNull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	os.Stdout = devNull
	defer func() { os.Stdout = stdout; devNull.Close() }()

	for argv0, want := range map[string]int{"device-shell": 0, "/usr/local/bin/device-shell": 0, "-device-shell": 0} {
		if got := run([]string{argv0, "-settings", path, "-c", "show clock"}); got != want {
			t.Errorf("%s -c 'show clock' exited %d, want %d", argv0, got, want)
		}
	}
	if got := run([]string{"device-shell", "-settings", path, "-c", "show bogus"}); got != 1 {
		t.Errorf("failing command exited %d, want 1", got)
	}
	// Without the daemon's configuration socket: a device error, not a hang.
	if got := run([]string{"device-shell", "-settings", path, "-c", "show running-config\nshow clock"}); got != 1 {
		t.Errorf("show running-config without the daemon exited %d, want 1", got)
	}
	if got := run([]string{"device", "nonsense"}); got != 2 {
		t.Errorf("unknown subcommand exited %d, want 2", got)
	}
}

func TestAristaTranscripts(t *testing.T) {
	e, err := newEngine(settings.Settings{Hostname: "edge-8", Platform: "arista_eos", TranscriptsDir: shippedTranscripts}, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := e.NewSession(false)
	s.Execute("configure")
	s.Execute("interface Ethernet9")
	s.Execute("description from test")
	s.Execute("end")
	for _, command := range []string{"show version", "show clock", "show ip interface brief", "show inventory",
		"show running-config", "show interfaces"} {
		result := s.Execute(command)
		if !result.OK() || len(result.Output) < 20 {
			t.Errorf("%s: %+v", command, result)
		}
	}
	if out := s.Execute("show running-config").Output; !strings.Contains(out, "hostname edge-8") ||
		!strings.Contains(out, "interface Ethernet9\n description from test\n") {
		t.Errorf("running-config: %s", out)
	}
	if _, err := newEngine(settings.Settings{Hostname: "x", Platform: "junos", TranscriptsDir: shippedTranscripts}, nil); err == nil {
		t.Error("platform without transcripts accepted")
	}
}
