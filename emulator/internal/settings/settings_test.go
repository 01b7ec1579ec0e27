package settings

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func write(t *testing.T, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "device.json")
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestLoadFillsDefaults(t *testing.T) {
	s, err := Load(write(t, `{"hostname":"edge-7","started_at":"2026-11-22T08:00:00Z"}`))
	if err != nil {
		t.Fatal(err)
	}
	if s.Hostname != "edge-7" || s.Platform != Defaults.Platform || s.TranscriptsDir != Defaults.TranscriptsDir ||
		s.StartedAt.Hour() != 8 || s.NetconfBase != "1.1" || s.FleetSize != 1 {
		t.Fatalf("got %+v", s)
	}
	if s.Fleet.Size() != 1 || s.Fleet.Devices()[0].Name != "edge-7" || s.Fleet.Devices()[0].Address.IsValid() {
		t.Fatalf("fleet %+v", s.Fleet.Devices())
	}
}

func TestLoadPlansTheFleet(t *testing.T) {
	s, err := Load(write(t, `{"hostname":"lab-r1","fleet_size":100,"fleet_addresses":"198.18.100.128/25"}`))
	if err != nil {
		t.Fatal(err)
	}
	d, ok := s.Fleet.Device(100)
	if s.Fleet.Size() != 100 || !ok || d.Name != "lab-r100" || d.Address.String() != "198.18.100.228" {
		t.Fatalf("fleet of %d, device 100 %+v", s.Fleet.Size(), d)
	}
}

func TestLoadAssignsCryptoProfiles(t *testing.T) {
	s, err := Load(write(t, `{"platform":"arista_eos","fleet_size":3,"fleet_addresses":"198.18.100.128/25",`+
		`"fleet_crypto":"2:modern"}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Crypto) != 3 || s.Crypto[0].Name != "arista_eos" || s.Crypto[1].Name != "modern" ||
		s.Crypto[2].Name != "arista_eos" {
		t.Fatalf("crypto %+v", s.Crypto)
	}
	_, err = Load(write(t, `{"fleet_size":2,"fleet_addresses":"198.18.100.128/25","crypto_profile":"fips"}`))
	if err == nil || !strings.Contains(err.Error(), `DEVICE_CRYPTO_PROFILE: unknown crypto profile "fips"`) {
		t.Fatalf("unknown profile: %v", err)
	}
}

func TestLoadHoldsOneKeyExchangeAndGroupOnEveryDevice(t *testing.T) {
	s, err := Load(write(t, `{"fleet_size":2,"fleet_addresses":"198.18.100.128/25","fleet_crypto":"2:modern",`+
		`"crypto_kex":"ecdh-sha2-nistp256","crypto_tls_group":"prime256v1"}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range s.Crypto {
		if len(p.SSH.Kex) != 1 || p.SSH.Kex[0] != "ecdh-sha2-nistp256" || len(p.TLS.Groups) != 1 ||
			p.TLS.Groups[0] != "prime256v1" || p.Held.Kex != "ecdh-sha2-nistp256" {
			t.Errorf("%s: %+v", p.Name, p)
		}
	}
	// cisco_iosxe (device 1) offers no post-quantum key exchange to hold.
	_, err = Load(write(t, `{"crypto_kex":"sntrup761x25519-sha512@openssh.com"}`))
	if err == nil || !strings.Contains(err.Error(), "DEVICE_CRYPTO_KEX: crypto profile cisco_iosxe does not offer") {
		t.Fatalf("kex outside the profile: %v", err)
	}
}

func TestLoadRejectsBadInput(t *testing.T) {
	for _, content := range []string{`{"hostname":"bad name"}`, `{"hostname":"-x"}`, `not json`,
		`{"netconf_base":"2.0"}`, `{"command_delay_ms":-1}`, `{"fleet_size":0}`, `{"fleet_size":251}`,
		`{"fleet_size":2}`, `{"fleet_size":2,"fleet_addresses":"198.18.100.129/25"}`,
		`{"fleet_size":127,"fleet_addresses":"198.18.100.128/25"}`, `{"fleet_size":2,"fleet_addresses":"fd00::/64"}`,
		`{"hostname":"` + strings.Repeat("r", 62) + `9","fleet_size":2,"fleet_addresses":"198.18.100.128/25"}`,
		`{"fleet_crypto":"2:modern"}`, `{"platform":"juniper_junos"}`} {
		if _, err := Load(write(t, content)); err == nil {
			t.Errorf("%s accepted", content)
		}
	}
	if _, err := Load(filepath.Join(t.TempDir(), "missing.json")); err == nil {
		t.Error("missing file accepted")
	}
}
