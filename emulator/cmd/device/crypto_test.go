package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeCryptoSettings(t *testing.T, dir, fleetCrypto string) string {
	t.Helper()
	path := filepath.Join(dir, "device.json")
	body := `{"hostname":"lab-r1","fleet_size":3,"fleet_addresses":"198.18.117.128/25","fleet_crypto":"` + fleetCrypto + `"}`
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func sysctl(t *testing.T, value string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "ip_nonlocal_bind")
	if err := os.WriteFile(path, []byte(value+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestCryptoSubcommandWritesOneSSHDPerProfile(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "crypto")
	path := writeCryptoSettings(t, dir, "2:modern,3:arista_eos")
	var code int
	printed := captureStdout(t, func() {
		code = run([]string{"device", "crypto", "-settings", path, "-dir", out, "-nginx-version", "nginx version: nginx/1.22.1",
			"-nonlocal-bind-sysctl", sysctl(t, "1")})
	})
	want := strings.Join([]string{filepath.Join(out, "sshd-cisco_iosxe.conf"), filepath.Join(out, "sshd-modern.conf"),
		filepath.Join(out, "sshd-arista_eos.conf")}, "\n") + "\n"
	if code != 0 || printed != want {
		t.Fatalf("exit %d, printed %q, want %q", code, printed, want)
	}
	modern, err := os.ReadFile(filepath.Join(out, "sshd-modern.conf"))
	if err != nil || !strings.Contains(string(modern), "ListenAddress 198.18.117.130\n") ||
		!strings.Contains(string(modern), "PidFile "+filepath.Join(out, "sshd-modern.pid")+"\n") {
		t.Errorf("modern sshd (%v):\n%s", err, modern)
	}
	// Device 1's sshd answers on the container's own addresses, loopback included.
	cisco, _ := os.ReadFile(filepath.Join(out, "sshd-cisco_iosxe.conf"))
	if !strings.Contains(string(cisco), "ListenAddress 127.0.0.1\n") || !strings.Contains(string(cisco), "ListenAddress 198.18.117.129\n") {
		t.Errorf("cisco_iosxe sshd:\n%s", cisco)
	}
	nginx, err := os.ReadFile(filepath.Join(out, "nginx-servers.conf"))
	if err != nil || strings.Count(string(nginx), "server {") != 3 || !strings.Contains(string(nginx), "listen 198.18.117.131:443 ssl http2;") {
		t.Errorf("nginx (%v):\n%s", err, nginx)
	}
}

func TestCryptoSubcommandNeedsNonlocalBindForMixedProfiles(t *testing.T) {
	dir := t.TempDir()
	args := func(settingsPath, out, nonlocalBind string) []string {
		return []string{"device", "crypto", "-settings", settingsPath, "-dir", filepath.Join(dir, out),
			"-nginx-version", "nginx version: nginx/1.26.3", "-nonlocal-bind-sysctl", sysctl(t, nonlocalBind)}
	}
	if code := run(args(writeCryptoSettings(t, dir, "2:modern"), "mixed", "0")); code != 1 {
		t.Errorf("mixed profiles without ip_nonlocal_bind: exit %d", code)
	}
	// One profile for the whole fleet: one sshd on every address, no sysctl needed.
	var code int
	printed := captureStdout(t, func() { code = run(args(writeCryptoSettings(t, dir, "1-3:modern"), "one", "0")) })
	if code != 0 || printed != filepath.Join(dir, "one", "sshd-modern.conf")+"\n" {
		t.Errorf("one profile: exit %d, printed %q", code, printed)
	}
	nginx, _ := os.ReadFile(filepath.Join(dir, "one", "nginx-servers.conf"))
	if !strings.Contains(string(nginx), "    listen 443 ssl;\n    http2 on;\n") {
		t.Errorf("nginx 1.26:\n%s", nginx)
	}
}

func TestCryptoSubcommandRefusesABadSpec(t *testing.T) {
	dir := t.TempDir()
	path := writeCryptoSettings(t, dir, "4:modern")
	if code := run([]string{"device", "crypto", "-settings", path, "-dir", filepath.Join(dir, "crypto"),
		"-nginx-version", "nginx version: nginx/1.22.1"}); code != 1 {
		t.Errorf("device 4 of 3: exit %d", code)
	}
}
