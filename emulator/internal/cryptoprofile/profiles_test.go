package cryptoprofile

import (
	"encoding/json"
	"strings"
	"testing"
)

// Names OpenSSH 9.2 and 10.0 both accept in sshd_config (`ssh -Q kex`,
// `cipher`, `mac`, `key-sig` of both), narrowed for host keys to the
// signature algorithms of the device's three host keys.
var (
	sshKex = set("curve25519-sha256", "curve25519-sha256@libssh.org", "ecdh-sha2-nistp256",
		"ecdh-sha2-nistp384", "ecdh-sha2-nistp521", "diffie-hellman-group-exchange-sha256",
		"diffie-hellman-group-exchange-sha1", "diffie-hellman-group16-sha512",
		"diffie-hellman-group18-sha512", "diffie-hellman-group14-sha256", "diffie-hellman-group14-sha1",
		"sntrup761x25519-sha512@openssh.com")
	sshHostKeys = set("ssh-ed25519", "ecdsa-sha2-nistp256", "rsa-sha2-512", "rsa-sha2-256")
	sshCiphers  = set("chacha20-poly1305@openssh.com", "aes128-ctr", "aes192-ctr", "aes256-ctr",
		"aes128-gcm@openssh.com", "aes256-gcm@openssh.com", "aes128-cbc", "aes192-cbc", "aes256-cbc")
	sshMACs = set("hmac-sha2-256-etm@openssh.com", "hmac-sha2-512-etm@openssh.com", "hmac-sha1-etm@openssh.com",
		"umac-64-etm@openssh.com", "umac-128-etm@openssh.com", "hmac-sha2-256", "hmac-sha2-512", "hmac-sha1",
		"umac-64@openssh.com", "umac-128@openssh.com")
	// TLS names OpenSSL 3.0 and 3.5 both know, usable with an ECDSA certificate.
	tlsVersions     = set("TLSv1.2", "TLSv1.3")
	tlsCiphers      = set("ECDHE-ECDSA-AES128-GCM-SHA256", "ECDHE-ECDSA-AES256-GCM-SHA384", "ECDHE-ECDSA-CHACHA20-POLY1305")
	tlsCiphersuites = set("TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384", "TLS_CHACHA20_POLY1305_SHA256")
	tlsGroups       = set("X25519", "prime256v1", "secp384r1", "secp521r1", "X448", "ffdhe2048", "ffdhe3072",
		"ffdhe4096", "ffdhe6144", "ffdhe8192")
)

func set(names ...string) map[string]bool {
	s := map[string]bool{}
	for _, n := range names {
		s[n] = true
	}
	return s
}

func TestEveryNameIsOneBothBuildsAccept(t *testing.T) {
	for _, p := range profiles {
		for _, list := range []struct {
			what  string
			names []string
			known map[string]bool
		}{
			{"kex", p.SSH.Kex, sshKex}, {"host keys", p.SSH.HostKeys, sshHostKeys},
			{"ciphers", p.SSH.Ciphers, sshCiphers}, {"MACs", p.SSH.MACs, sshMACs},
			{"TLS versions", p.TLS.Versions, tlsVersions}, {"TLS 1.2 ciphers", p.TLS.Ciphers, tlsCiphers},
			{"TLS 1.3 suites", p.TLS.Ciphersuites, tlsCiphersuites}, {"groups", p.TLS.Groups, tlsGroups},
		} {
			if list.names != nil && len(list.names) == 0 {
				t.Errorf("%s %s: empty (nil means the build's defaults; empty would offer nothing)", p.Name, list.what)
			}
			seen := map[string]bool{}
			for _, name := range list.names {
				if !list.known[name] {
					t.Errorf("%s %s: %q is not a name both builds accept", p.Name, list.what, name)
				}
				if seen[name] {
					t.Errorf("%s %s: %q twice", p.Name, list.what, name)
				}
				seen[name] = true
			}
		}
		if len(p.TLS.Versions) == 0 {
			t.Errorf("%s: no TLS versions", p.Name)
		}
		if p.TLS.Ciphers != nil && !contains(p.TLS.Versions, "TLSv1.2") {
			t.Errorf("%s: TLS 1.2 ciphers without TLS 1.2", p.Name)
		}
		if !strings.Contains(p.Source, " ") {
			t.Errorf("%s: no source", p.Name)
		}
	}
}

func contains(list []string, name string) bool {
	for _, n := range list {
		if n == name {
			return true
		}
	}
	return false
}

// Every platform the device emulates has a profile of its own, and the
// build's defaults have one.
func TestPlatformsAndModernHaveProfiles(t *testing.T) {
	for _, name := range []string{"cisco_iosxe", "arista_eos", "modern"} {
		if _, ok := Lookup(name); !ok {
			t.Errorf("no profile %q", name)
		}
	}
	if got := strings.Join(Names(), ","); got != "arista_eos,cisco_iosxe,modern" {
		t.Errorf("names %s", got)
	}
}

// A platform profile's lists each leave out something the build offers, so
// a client offering only that is refused (what the device tests check).
func TestPlatformProfilesNarrowTheBuild(t *testing.T) {
	for _, name := range []string{"cisco_iosxe", "arista_eos"} {
		p, _ := Lookup(name)
		if p.SSH.Kex == nil || p.SSH.HostKeys == nil || p.SSH.Ciphers == nil || p.SSH.MACs == nil {
			t.Errorf("%s leaves an SSH list to the build", name)
		}
		if !strings.Contains(p.Source, "https://") {
			t.Errorf("%s cites no vendor page: %q", name, p.Source)
		}
		for _, absent := range []string{"sntrup761x25519-sha512@openssh.com", "sntrup761x25519-sha512",
			"mlkem768x25519-sha256"} {
			if contains(p.SSH.Kex, absent) {
				t.Errorf("%s offers %s", name, absent)
			}
		}
		// Its TLS groups are named, not OpenSSL's defaults: those of OpenSSL
		// 3.5 (Debian 13) would add a post-quantum hybrid no vendor lists.
		if p.TLS.Groups == nil {
			t.Errorf("%s leaves the TLS groups to the build", name)
		}
		if contains(p.TLS.Groups, "X25519MLKEM768") {
			t.Errorf("%s offers X25519MLKEM768", name)
		}
	}
}

func TestEffectiveNamesTheBuildForDefaults(t *testing.T) {
	modern, _ := Lookup("modern")
	raw, err := json.Marshal(modern.Effective(Builds{OpenSSH: "OpenSSH_9.2p1", OpenSSL: "OpenSSL 3.0.17", Nginx: "nginx/1.22.1"}))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		SSH map[string]any `json:"ssh"`
		TLS map[string]any `json:"tls"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.SSH["kex"] != "defaults of OpenSSH_9.2p1" || doc.TLS["groups"] != "defaults of OpenSSL 3.0.17" {
		t.Errorf("defaults: %s", raw)
	}
	if versions, ok := doc.TLS["versions"].([]any); !ok || len(versions) != 1 || versions[0] != "TLSv1.3" {
		t.Errorf("versions: %s", raw)
	}
	cisco, _ := Lookup("cisco_iosxe")
	raw, _ = json.Marshal(cisco.Effective(Builds{OpenSSH: "OpenSSH_9.2p1", OpenSSL: "OpenSSL 3.0.17", Nginx: "nginx/1.22.1"}))
	if !strings.Contains(string(raw), `"macs":["hmac-sha2-256-etm@openssh.com","hmac-sha2-512-etm@openssh.com"]`) {
		t.Errorf("cisco: %s", raw)
	}
}

// The HTTP/3 server's part: the profile's groups Go implements, or Go's
// defaults where the profile leaves the groups to the build.
func TestEffectiveHTTP3Groups(t *testing.T) {
	b := Builds{OpenSSL: "OpenSSL 3.5.4", HTTP3: "quic-go v0.65.0", GoTLS: "go1.26.8 crypto/tls"}
	modern, _ := Lookup("modern")
	raw, _ := json.Marshal(modern.Effective(b))
	if !strings.Contains(string(raw), `"http3":{"server":"quic-go v0.65.0","groups":"defaults of go1.26.8 crypto/tls"}`) {
		t.Errorf("modern: %s", raw)
	}
	cisco, _ := Lookup("cisco_iosxe")
	raw, _ = json.Marshal(cisco.Effective(b))
	if !strings.Contains(string(raw), `"http3":{"server":"quic-go v0.65.0","groups":["X25519","prime256v1","secp521r1","secp384r1"]}`) {
		t.Errorf("cisco_iosxe: %s", raw)
	}
	held, _ := Hold{TLSGroup: "ffdhe2048"}.Apply(modern)
	raw, _ = json.Marshal(held.Effective(b))
	if !strings.Contains(string(raw), `"http3":{"server":"quic-go v0.65.0","groups":[]}`) {
		t.Errorf("held ffdhe2048: %s", raw)
	}
}
