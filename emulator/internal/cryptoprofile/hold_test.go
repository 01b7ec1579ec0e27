package cryptoprofile

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

func TestHoldNarrowsToOneName(t *testing.T) {
	cisco, _ := Lookup("cisco_iosxe")
	held, err := Hold{Kex: "diffie-hellman-group14-sha256", TLSGroup: "prime256v1"}.Apply(cisco)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(held.SSH.Kex, []string{"diffie-hellman-group14-sha256"}) ||
		!slices.Equal(held.TLS.Groups, []string{"prime256v1"}) {
		t.Errorf("held %+v %+v", held.SSH.Kex, held.TLS.Groups)
	}
	// Only those two lists change, and the profile table is left alone.
	if !slices.Equal(held.SSH.Ciphers, cisco.SSH.Ciphers) || !slices.Equal(held.TLS.Ciphersuites, cisco.TLS.Ciphersuites) ||
		held.Name != "cisco_iosxe" {
		t.Errorf("other lists changed: %+v", held)
	}
	if again, _ := Lookup("cisco_iosxe"); len(again.SSH.Kex) == 1 {
		t.Error("the profile table was modified")
	}
	// A profile leaving the list to the build takes any well-formed name:
	// the post-quantum hybrids of the sweep are held on `modern`.
	modern, _ := Lookup("modern")
	if held, err := (Hold{Kex: "mlkem768x25519-sha256", TLSGroup: "X25519MLKEM768"}).Apply(modern); err != nil ||
		held.SSH.Kex[0] != "mlkem768x25519-sha256" || held.TLS.Groups[0] != "X25519MLKEM768" {
		t.Errorf("modern: %+v, %v", held, err)
	}
	// Nothing held: the profile as it is.
	if same, err := (Hold{}).Apply(cisco); err != nil || same.SSH.Kex == nil || len(same.SSH.Kex) != len(cisco.SSH.Kex) {
		t.Errorf("empty hold: %+v, %v", same, err)
	}
}

func TestHoldRefusesWhatTheProfileDoesNotOffer(t *testing.T) {
	cisco, _ := Lookup("cisco_iosxe")
	for _, c := range []struct {
		hold Hold
		want string
	}{
		{Hold{Kex: "sntrup761x25519-sha512@openssh.com"},
			`DEVICE_CRYPTO_KEX: crypto profile cisco_iosxe does not offer "sntrup761x25519-sha512@openssh.com" (it offers curve25519-sha256, `},
		{Hold{Kex: "curve25519-sha256,ecdh-sha2-nistp256"}, `DEVICE_CRYPTO_KEX: "curve25519-sha256,ecdh-sha2-nistp256" is not a key exchange name`},
		{Hold{Kex: "+curve25519-sha256"}, `is not a key exchange name`},
		{Hold{TLSGroup: "X25519:prime256v1"}, `DEVICE_CRYPTO_TLS_GROUP: "X25519:prime256v1" is not a TLS group name`},
		{Hold{TLSGroup: "X25519MLKEM768"},
			`DEVICE_CRYPTO_TLS_GROUP: crypto profile cisco_iosxe does not offer "X25519MLKEM768" (it offers X25519, prime256v1, `},
	} {
		if _, err := c.hold.Apply(cisco); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.hold, err, c.want)
		}
	}
	listed := cisco
	listed.TLS.Groups = []string{"X25519"}
	if _, err := (Hold{TLSGroup: "prime256v1"}).Apply(listed); err == nil ||
		!strings.Contains(err.Error(), `does not offer "prime256v1" (it offers X25519)`) {
		t.Errorf("group outside a listed profile: %v", err)
	}
}

func TestHoldIsRecordedInTheEffectiveLists(t *testing.T) {
	b := Builds{OpenSSH: "OpenSSH_9.2p1", OpenSSL: "OpenSSL 3.0.17", Nginx: "nginx/1.22.1"}
	eos, _ := Lookup("arista_eos")
	plain, _ := json.Marshal(eos.Effective(b))
	if strings.Contains(string(plain), `"held"`) {
		t.Errorf("nothing held, yet: %s", plain)
	}
	held, err := Hold{TLSGroup: "X25519"}.ApplyAll([]Profile{eos, eos})
	if err != nil {
		t.Fatal(err)
	}
	doc, _ := json.Marshal(held[1].Effective(b))
	for _, want := range []string{`"held":{"tls_group":"X25519"}`, `"groups":["X25519"]`, `"kex":["curve25519-sha256",`} {
		if !strings.Contains(string(doc), want) {
			t.Errorf("%s missing from %s", want, doc)
		}
	}
}
