package cryptoprofile

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// Hold is what a crypto sweep holds fixed on the device: one SSH key
// exchange (DEVICE_CRYPTO_KEX) and one TLS key exchange group
// (DEVICE_CRYPTO_TLS_GROUP), for every device of the container. An empty
// field holds nothing: that list stays the profile's.
type Hold struct {
	Kex      string `json:"kex,omitempty"`
	TLSGroup string `json:"tls_group,omitempty"`
}

// The names' form only (OpenSSH's and OpenSSL's spelling); whether the
// build implements one is for sshd and nginx to say at start, which they
// do before anything listens (emulator/rootfs/entrypoint.sh).
var (
	kexName   = regexp.MustCompile(`^[a-z0-9][a-z0-9@.-]*$`)
	groupName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]*$`)
)

// Apply narrows p to the held names. A held key exchange must be one the
// profile offers when the profile lists its own (a sweep compares what a
// platform could negotiate, never what it could not); under a list left to
// the build's defaults any name is taken. TLS groups likewise.
func (h Hold) Apply(p Profile) (Profile, error) {
	if h.Kex != "" {
		if !kexName.MatchString(h.Kex) {
			return Profile{}, fmt.Errorf("DEVICE_CRYPTO_KEX: %q is not a key exchange name", h.Kex)
		}
		if p.SSH.Kex != nil && !slices.Contains(p.SSH.Kex, h.Kex) {
			return Profile{}, fmt.Errorf("DEVICE_CRYPTO_KEX: crypto profile %s does not offer %q (it offers %s)",
				p.Name, h.Kex, strings.Join(p.SSH.Kex, ", "))
		}
		p.SSH.Kex = []string{h.Kex}
	}
	if h.TLSGroup != "" {
		if !groupName.MatchString(h.TLSGroup) {
			return Profile{}, fmt.Errorf("DEVICE_CRYPTO_TLS_GROUP: %q is not a TLS group name", h.TLSGroup)
		}
		if p.TLS.Groups != nil && !slices.Contains(p.TLS.Groups, h.TLSGroup) {
			return Profile{}, fmt.Errorf("DEVICE_CRYPTO_TLS_GROUP: crypto profile %s does not offer %q (it offers %s)",
				p.Name, h.TLSGroup, strings.Join(p.TLS.Groups, ", "))
		}
		p.TLS.Groups = []string{h.TLSGroup}
	}
	p.Held = h
	return p, nil
}

// ApplyAll narrows every device's profile (Assign's result) to the held names.
func (h Hold) ApplyAll(profiles []Profile) ([]Profile, error) {
	held := make([]Profile, len(profiles))
	for k, p := range profiles {
		var err error
		if held[k], err = h.Apply(p); err != nil {
			return nil, err
		}
	}
	return held, nil
}
