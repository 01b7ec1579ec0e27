// Package settings reads the device settings file written by the container
// entrypoint. sshd clears the environment of login shells, so the file is
// how every device process (daemon and SSH shells) learns the same identity.
// It holds no secrets: SSH shells, running as the login user, must read it.
package settings

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"time"

	"transportlab/emulator/internal/cryptoprofile"
	"transportlab/emulator/internal/fleet"
)

// DefaultPath is where the entrypoint writes the settings.
const DefaultPath = "/etc/device/device.json"

// Settings describe the emulated device.
type Settings struct {
	Hostname       string    `json:"hostname"`
	Platform       string    `json:"platform"`
	TranscriptsDir string    `json:"transcripts_dir"`
	EventsSocket   string    `json:"events_socket"`
	StartedAt      time.Time `json:"started_at"`
	// NetconfSocket is where the daemon serves NETCONF sessions; the sshd
	// subsystem process relays its SSH channel to it.
	NetconfSocket string `json:"netconf_socket"`
	// ConfigSocket is where the daemon serves its configuration store to
	// SSH shells (internal/configdb), so every transport shares it.
	ConfigSocket string `json:"config_socket"`
	// NetconfBase is the highest NETCONF base version offered: "1.1"
	// (chunked framing available) or "1.0" (end-of-message framing only).
	NetconfBase string `json:"netconf_base"`
	// CommandDelayMS is added before every CLI/API command is answered,
	// modelling a device's control-plane processing time (default 0).
	CommandDelayMS int `json:"command_delay_ms"`
	// CommandJitterMS adds a uniformly random 0..CommandJitterMS ms per
	// command to CommandDelayMS: a device made noisy on purpose (default 0).
	CommandJitterMS int `json:"command_jitter_ms"`
	// FleetSize is how many emulated devices the container presents
	// (1..fleet.MaxSize); Hostname is the first one's.
	FleetSize int `json:"fleet_size"`
	// FleetAddresses is the IPv4 block device k's address is taken from
	// (network address + k); empty only for a fleet of one.
	FleetAddresses string `json:"fleet_addresses"`
	// Fleet is the plan Load derives from the three fields above.
	Fleet fleet.Plan `json:"-"`
	// CryptoProfile (DEVICE_CRYPTO_PROFILE) is every device's crypto
	// profile; empty for the platform's own.
	CryptoProfile string `json:"crypto_profile"`
	// FleetCrypto (DEVICE_FLEET_CRYPTO) gives devices of the fleet profiles
	// of their own: "1:modern,3-5:arista_eos" (cryptoprofile.Assign).
	FleetCrypto string `json:"fleet_crypto"`
	// CryptoKex (DEVICE_CRYPTO_KEX) and CryptoTLSGroup
	// (DEVICE_CRYPTO_TLS_GROUP) hold one SSH key exchange and one TLS group
	// fixed on every device, for a crypto sweep; empty holds nothing.
	CryptoKex      string `json:"crypto_kex"`
	CryptoTLSGroup string `json:"crypto_tls_group"`
	// Crypto is the profile of device k at k-1, which Load derives from the
	// platform and the four fields above.
	Crypto []cryptoprofile.Profile `json:"-"`
}

// Defaults used for fields the file leaves out.
var Defaults = Settings{
	Hostname:       "lab-r1",
	Platform:       "cisco_iosxe",
	TranscriptsDir: "/etc/device/transcripts",
	EventsSocket:   "/run/device/events.sock",
	NetconfSocket:  "/run/device/netconf.sock",
	ConfigSocket:   "/run/device/config.sock",
	NetconfBase:    "1.1",
	FleetSize:      1,
}

// hostnamePattern follows IOS: letters, digits and hyphens, up to 63, not
// starting or ending with a hyphen.
var hostnamePattern = regexp.MustCompile(`^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?$`)

// Load reads and validates the settings file, filling in defaults.
func Load(path string) (Settings, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return Settings{}, err
	}
	s := Defaults
	if err := json.Unmarshal(raw, &s); err != nil {
		return Settings{}, fmt.Errorf("%s: %w", path, err)
	}
	if !hostnamePattern.MatchString(s.Hostname) {
		return Settings{}, fmt.Errorf("%s: invalid hostname %q", path, s.Hostname)
	}
	if s.NetconfBase != "1.0" && s.NetconfBase != "1.1" {
		return Settings{}, fmt.Errorf("%s: netconf_base must be 1.0 or 1.1, got %q", path, s.NetconfBase)
	}
	if s.CommandDelayMS < 0 || s.CommandDelayMS > 60000 {
		return Settings{}, fmt.Errorf("%s: command_delay_ms must be 0..60000, got %d", path, s.CommandDelayMS)
	}
	if s.CommandJitterMS < 0 || s.CommandJitterMS > 60000 {
		return Settings{}, fmt.Errorf("%s: command_jitter_ms must be 0..60000, got %d", path, s.CommandJitterMS)
	}
	if s.Fleet, err = fleet.New(s.Hostname, s.FleetSize, s.FleetAddresses); err != nil {
		return Settings{}, fmt.Errorf("%s: %w", path, err)
	}
	if s.Crypto, err = cryptoprofile.Assign(s.Platform, s.Fleet.Size(), s.CryptoProfile, s.FleetCrypto); err != nil {
		return Settings{}, fmt.Errorf("%s: %w", path, err)
	}
	hold := cryptoprofile.Hold{Kex: s.CryptoKex, TLSGroup: s.CryptoTLSGroup}
	if s.Crypto, err = hold.ApplyAll(s.Crypto); err != nil {
		return Settings{}, fmt.Errorf("%s: %w", path, err)
	}
	if s.StartedAt.IsZero() {
		s.StartedAt = time.Now()
	}
	return s, nil
}
