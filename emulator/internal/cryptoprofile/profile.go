// Package cryptoprofile is what the emulated device offers in its SSH and
// TLS handshakes: named profiles (profiles.go, one per platform plus
// "modern"), which profile each device of a fleet uses, and the lists as a
// server was configured with them. It only describes; internal/serverconf
// turns a profile into sshd and nginx configuration.
package cryptoprofile

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// Profile is one named set of algorithms.
type Profile struct {
	// Name is what DEVICE_CRYPTO_PROFILE and DEVICE_FLEET_CRYPTO say.
	Name string
	// Source names where the lists come from: the vendor page and release.
	Source string
	SSH    SSH
	TLS    TLS
	// Held is what a crypto sweep holds fixed (Hold.Apply); zero for none.
	Held Hold
}

// SSH lists, in OpenSSH's names and in order of preference. A nil list
// leaves that negotiation to the defaults of the device's OpenSSH.
type SSH struct {
	Kex      []string // KexAlgorithms
	HostKeys []string // HostKeyAlgorithms
	Ciphers  []string // Ciphers
	MACs     []string // MACs
}

// TLS lists, in OpenSSL's names and in order of preference. Versions is
// always set; any other nil list leaves that negotiation to the defaults
// of the device's OpenSSL (TLS 1.2 ciphers: nginx's default string).
type TLS struct {
	Versions     []string // ssl_protocols: TLSv1.2, TLSv1.3
	Ciphers      []string // TLS 1.2 cipher suites (ssl_ciphers)
	Ciphersuites []string // TLS 1.3 cipher suites (ssl_conf_command Ciphersuites)
	Groups       []string // key exchange groups (ssl_ecdh_curve)
}

// Lookup finds a profile by name.
func Lookup(name string) (Profile, bool) {
	for _, p := range profiles {
		if p.Name == name {
			return p, true
		}
	}
	return Profile{}, false
}

// Names lists every profile, sorted.
func Names() []string {
	names := make([]string, 0, len(profiles))
	for _, p := range profiles {
		names = append(names, p.Name)
	}
	sort.Strings(names)
	return names
}

func unknown(name string) error {
	return fmt.Errorf("unknown crypto profile %q (known: %s)", name, strings.Join(Names(), ", "))
}

// Offer is one list as a server was configured with it: the names the
// profile gives, or, for a list the profile leaves to the build, which
// build's defaults apply.
type Offer struct {
	Names    []string
	Defaults string // e.g. "OpenSSH_9.2p1", when Names is nil
}

// MarshalJSON writes the names as an array, or "defaults of <build>".
func (o Offer) MarshalJSON() ([]byte, error) {
	if o.Names != nil {
		return json.Marshal(o.Names)
	}
	return json.Marshal("defaults of " + o.Defaults)
}

// Effective is a profile as the device's servers were configured with it
// (GET /admin/fleet, /version).
type Effective struct {
	Source string         `json:"source"`
	SSH    EffectiveSSH   `json:"ssh"`
	TLS    EffectiveTLS   `json:"tls"`
	HTTP3  EffectiveHTTP3 `json:"http3"`
	GNMI   EffectiveGNMI  `json:"gnmi"`
	// Held names what DEVICE_CRYPTO_KEX and DEVICE_CRYPTO_TLS_GROUP hold
	// fixed, absent when nothing is: a result then says its lists were
	// narrowed on purpose.
	Held *Hold `json:"held,omitempty"`
}

// EffectiveSSH is what sshd was configured with.
type EffectiveSSH struct {
	Kex      Offer `json:"kex"`
	HostKeys Offer `json:"host_keys"`
	Ciphers  Offer `json:"ciphers"`
	MACs     Offer `json:"macs"`
}

// EffectiveTLS is what nginx was configured with.
type EffectiveTLS struct {
	Versions     Offer `json:"versions"`
	Ciphers      Offer `json:"ciphers_tls12"`
	Ciphersuites Offer `json:"ciphersuites_tls13"`
	Groups       Offer `json:"groups"`
}

// EffectiveHTTP3 is what the HTTP/3 server was configured with. It speaks
// TLS 1.3 only, with Go's three TLS 1.3 cipher suites (crypto/tls does not
// let them be chosen; every profile lists those three or leaves them to
// the build), and the profile's groups that Go implements (GoGroups).
// crypto/tls takes the groups as a set: it prefers a post-quantum hybrid,
// then a group the client sent a key share for, then its own order.
type EffectiveHTTP3 struct {
	Server string `json:"server"` // "quic-go v0.65.0"
	Groups Offer  `json:"groups"`
}

// EffectiveGNMI is what the gNMI server (TCP 9339) was configured with:
// crypto/tls, TLS 1.2 and 1.3 with Go's cipher suites, and, as HTTP/3,
// the profile's groups that Go implements.
type EffectiveGNMI struct {
	Server string `json:"server"` // "openconfig/gnmi v0.14.1, grpc-go v1.85.0"
	Groups Offer  `json:"groups"`
}

// Builds are the versions of the servers' software whose defaults apply
// where a profile leaves a list open.
type Builds struct {
	OpenSSH string // "OpenSSH_9.2p1"
	OpenSSL string // "OpenSSL 3.0.17"
	Nginx   string // "nginx/1.22.1": TLS 1.2 ciphers default to nginx's string
	HTTP3   string // "quic-go v0.65.0"
	GNMI    string // "openconfig/gnmi v0.14.1, grpc-go v1.85.0"
	GoTLS   string // "go1.26.8 crypto/tls": the HTTP/3 and gNMI servers' TLS
}

// Effective describes the profile as configured on a device of those builds.
func (p Profile) Effective(b Builds) Effective {
	ssh := func(names []string) Offer { return Offer{Names: names, Defaults: b.OpenSSH} }
	tls := func(names []string) Offer { return Offer{Names: names, Defaults: b.OpenSSL} }
	var held *Hold
	if p.Held != (Hold{}) {
		held = &p.Held
	}
	goNames, _ := GoGroups(p.TLS.Groups)
	return Effective{
		Source: p.Source, Held: held,
		SSH: EffectiveSSH{Kex: ssh(p.SSH.Kex), HostKeys: ssh(p.SSH.HostKeys), Ciphers: ssh(p.SSH.Ciphers),
			MACs: ssh(p.SSH.MACs)},
		TLS: EffectiveTLS{Versions: tls(p.TLS.Versions),
			Ciphers:      Offer{Names: p.TLS.Ciphers, Defaults: b.Nginx + " with " + b.OpenSSL},
			Ciphersuites: tls(p.TLS.Ciphersuites), Groups: tls(p.TLS.Groups)},
		HTTP3: EffectiveHTTP3{Server: b.HTTP3, Groups: Offer{Names: goNames, Defaults: b.GoTLS}},
		GNMI:  EffectiveGNMI{Server: b.GNMI, Groups: Offer{Names: goNames, Defaults: b.GoTLS}},
	}
}
