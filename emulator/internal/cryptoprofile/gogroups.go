package cryptoprofile

import (
	"crypto/tls"
	"strings"
)

// goGroups are the TLS key exchange groups Go's crypto/tls implements,
// under every name OpenSSL accepts for them (its group names match
// case-insensitively). Go has no X448 and no finite-field (ffdhe) groups.
var goGroups = map[string]tls.CurveID{
	"x25519mlkem768":     tls.X25519MLKEM768,
	"secp256r1mlkem768":  tls.SecP256r1MLKEM768,
	"secp384r1mlkem1024": tls.SecP384r1MLKEM1024,
	"x25519":             tls.X25519,
	"prime256v1":         tls.CurveP256,
	"secp256r1":          tls.CurveP256,
	"p-256":              tls.CurveP256,
	"secp384r1":          tls.CurveP384,
	"p-384":              tls.CurveP384,
	"secp521r1":          tls.CurveP521,
	"p-521":              tls.CurveP521,
}

// GoGroups is a profile's TLS group list as a server built on Go's
// crypto/tls (the HTTP/3 server) can offer it: the names Go implements, in
// the profile's order, and their curve IDs. A nil list (the build's
// defaults) stays nil: Go's own defaults apply. A list naming only groups
// Go lacks gives empty, non-nil slices: that server can offer nothing.
func GoGroups(names []string) (kept []string, ids []tls.CurveID) {
	if names == nil {
		return nil, nil
	}
	kept, ids = []string{}, []tls.CurveID{}
	for _, name := range names {
		if id, ok := goGroups[strings.ToLower(name)]; ok {
			kept = append(kept, name)
			ids = append(ids, id)
		}
	}
	return kept, ids
}
