package cryptoprofile

// The profiles, as data. A Go table rather than a YAML file: the device
// program is the only reader, the module has no YAML parser (one would be
// a dependency for this file alone), and the table is compiled into the
// binary every device process already runs, so a profile can never be
// missing at start. profiles_test.go holds every name to what OpenSSH 9.2
// (Debian 12) and 10.0 (Debian 13) both accept, and OpenSSL 3.0 and 3.5.
//
// The device generates three SSH host keys (ed25519, ECDSA P-256, RSA;
// emulator/rootfs/entrypoint.sh) and one TLS certificate (ECDSA P-256):
// a vendor algorithm needing another key type is left out, and so is one
// OpenSSH or OpenSSL does not implement; each is named where it is left out.
var profiles = []Profile{
	{
		// Cisco IOS XE 17.x, whose SSH server is Cisco's own. Pages read
		// 2026-11-27 through the project's search of stored vendor pages:
		//
		// SSH: "SSH Algorithms for Common Criteria Certification", Security and
		// VPN Configuration Guide, Cisco IOS XE 17.x,
		// https://www.cisco.com/c/en/us/td/docs/routers/ios/config/17-x/sec-vpn/b-security-vpn/m_sec-secure-shell-algorithm-ccc.html
		// Confirmed: from 17.10 on diffie-hellman-group14-sha1, hmac-sha1,
		// hmac-sha2-256 and hmac-sha2-512 are no longer in the server's default
		// lists. Its table of default and non-default server algorithms could
		// not be read in full there, so each list is confirmed on a second page:
		// ciphers, MACs and the cipher order on the same chapter of the Catalyst
		// 9600 Security Configuration Guide, IOS XE 17.11,
		// https://www.cisco.com/c/en/us/td/docs/switches/lan/catalyst9600/software/release/17-11/configuration_guide/sec/b_1711_sec_9600_cg/ssh_algorithms_for_common_criteria_certification.html
		// (defaults: chacha20-poly1305@openssh.com, the AES-GCM pairs, AES-CTR;
		// hmac-sha2-256-etm@openssh.com and hmac-sha2-512-etm@openssh.com only).
		// Key exchanges, host keys and every order as `show ip ssh` prints the
		// defaults of 17.16.1a (Cisco IOL), quoted in
		// https://github.com/ipspace/netlab/issues/2976: not a vendor page, and
		// the one source for the key exchange list (the 17.11 page's default
		// key exchange list could not be read in full either).
		//
		// TLS: the HTTP secure server's choices in Cisco's own YANG model of
		// `ip http tls-version` and `ip http secure-ciphersuite`, IOS XE 17.15.1,
		// https://github.com/YangModels/yang/blob/main/vendor/cisco/xe/17151/Cisco-IOS-XE-http.yang
		// (confirmed). The model lists what may be configured, not a default;
		// Cisco documents no key exchange group list for it: classicalGroups.
		Name: "cisco_iosxe",
		Source: "Cisco IOS XE 17.x: SSH Algorithms for Common Criteria Certification " +
			"(https://www.cisco.com/c/en/us/td/docs/routers/ios/config/17-x/sec-vpn/b-security-vpn/m_sec-secure-shell-algorithm-ccc.html; " +
			"ciphers and MACs confirmed on its Catalyst 9600 17.11 edition), key exchanges and host keys " +
			"as `show ip ssh` shows the defaults of 17.16.1a; TLS: Cisco-IOS-XE-http.yang of 17.15.1",
		SSH: SSH{
			Kex: []string{"curve25519-sha256", "curve25519-sha256@libssh.org", "ecdh-sha2-nistp256",
				"ecdh-sha2-nistp384", "ecdh-sha2-nistp521", "diffie-hellman-group14-sha256",
				"diffie-hellman-group16-sha512"},
			// Cisco's list also has ecdsa-sha2-nistp384 and -nistp521 (the device's
			// one ECDSA host key is P-256) and x509v3-* (OpenSSH has no X.509 host keys).
			HostKeys: []string{"ecdsa-sha2-nistp256", "rsa-sha2-512", "rsa-sha2-256"},
			// Cisco's list also has aes128-gcm and aes256-gcm (RFC 5647's names),
			// which OpenSSH does not implement; it has their @openssh.com forms.
			Ciphers: []string{"chacha20-poly1305@openssh.com", "aes128-gcm@openssh.com",
				"aes256-gcm@openssh.com", "aes128-ctr", "aes192-ctr", "aes256-ctr"},
			MACs: []string{"hmac-sha2-256-etm@openssh.com", "hmac-sha2-512-etm@openssh.com"},
		},
		TLS: TLS{
			// The model also offers TLSv1.0 and 1.1, which OpenSSL 3 refuses at
			// Debian's security level.
			Versions: []string{"TLSv1.2", "TLSv1.3"},
			// ecdhe-ecdsa-aes-gcm-sha2; the model's RSA, DHE-RSA and ECDHE-RSA
			// suites need an RSA certificate, which the device does not have.
			Ciphers: []string{"ECDHE-ECDSA-AES128-GCM-SHA256", "ECDHE-ECDSA-AES256-GCM-SHA384"},
			// tls13-aes128-gcm-sha256, tls13-aes256-gcm-sha384, tls13-chacha20-poly1305-sha256.
			Ciphersuites: []string{"TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384",
				"TLS_CHACHA20_POLY1305_SHA256"},
			Groups: classicalGroups,
		},
	},
	{
		// Arista EOS 4.3x, whose SSH server is OpenSSH, configured by
		// `management ssh` (cipher, key-exchange, mac, hostkey server) and whose
		// eAPI TLS is set by `management security` SSL profiles (tls versions,
		// cipher-list): EOS User Manual, "Session Management Commands",
		// https://www.arista.com/en/um-eos/eos-session-management-commands and
		// "Transport Layer Security",
		// https://www.arista.com/en/um-eos/eos-transport-layer-security
		// Both pages were found 2026-11-27 (the first lists `management ssh`
		// among its commands; the second says EOS serves a self-signed
		// certificate by default), but neither default list could be read
		// there: the lists below are NOT confirmed against a vendor page. They
		// are those of an OpenSSH 8 release (what EOS 4.3x ships: no
		// post-quantum hybrid key exchange) without its SHA-1 and UMAC MACs,
		// with the one host key EOS generates by default (RSA; ECDSA and Ed25519
		// keys only on request), and TLS 1.2 and 1.3 with nginx's suites and
		// classicalGroups. Check them against the pages above before a figure
		// depends on a difference from `modern`.
		Name: "arista_eos",
		Source: "Arista EOS 4.3x User Manual: management ssh " +
			"(https://www.arista.com/en/um-eos/eos-session-management-commands), " +
			"SSL profiles (https://www.arista.com/en/um-eos/eos-transport-layer-security); " +
			"default lists not confirmed on those pages: an OpenSSH 8 release's, SHA-2 MACs, RSA host key",
		SSH: SSH{
			Kex: []string{"curve25519-sha256", "curve25519-sha256@libssh.org", "ecdh-sha2-nistp256",
				"ecdh-sha2-nistp384", "ecdh-sha2-nistp521", "diffie-hellman-group-exchange-sha256",
				"diffie-hellman-group16-sha512", "diffie-hellman-group18-sha512",
				"diffie-hellman-group14-sha256"},
			HostKeys: []string{"rsa-sha2-512", "rsa-sha2-256"},
			Ciphers: []string{"chacha20-poly1305@openssh.com", "aes128-ctr", "aes192-ctr", "aes256-ctr",
				"aes128-gcm@openssh.com", "aes256-gcm@openssh.com"},
			MACs: []string{"hmac-sha2-256-etm@openssh.com", "hmac-sha2-512-etm@openssh.com",
				"hmac-sha2-256", "hmac-sha2-512"},
		},
		TLS: TLS{
			// TLS 1.0 and 1.1 are refused by OpenSSL 3 at Debian's security level.
			Versions: []string{"TLSv1.2", "TLSv1.3"},
			Groups:   classicalGroups,
		},
	},
	{
		// The device's build as it is: OpenSSH's and OpenSSL's defaults,
		// whichever versions the image has (Debian 12: OpenSSH 9.2, OpenSSL
		// 3.0; Debian 13: 10.0 and 3.5), and TLS 1.3 only, as the device has
		// always offered, so earlier figures stay reproducible.
		Name:   "modern",
		Source: "the defaults of the device's OpenSSH and OpenSSL; TLS 1.3 only",
		TLS:    TLS{Versions: []string{"TLSv1.3"}},
	},
}

// classicalGroups are the TLS key exchange groups of a platform profile
// whose vendor lists none: OpenSSL 3.0's defaults, in its order, which is
// what the profile offered on the Debian 12 device it was made on. Named
// rather than left to the build, so that the profile offers the same on
// every base: OpenSSL 3.5's defaults (Debian 13) put the post-quantum hybrid
// X25519MLKEM768 first, which neither vendor's pages list.
var classicalGroups = []string{"X25519", "prime256v1", "X448", "secp521r1", "secp384r1",
	"ffdhe2048", "ffdhe3072", "ffdhe4096", "ffdhe6144", "ffdhe8192"}
