package cryptoprofile

import (
	"crypto/tls"
	"slices"
	"strings"
	"testing"
)

func TestGoGroups(t *testing.T) {
	if kept, ids := GoGroups(nil); kept != nil || ids != nil {
		t.Errorf("the build's defaults: %v %v", kept, ids)
	}
	kept, ids := GoGroups([]string{"X448", "secp384r1", "X25519MLKEM768", "ffdhe2048", "P-256", "SecP256r1MLKEM768"})
	want := []tls.CurveID{tls.CurveP384, tls.X25519MLKEM768, tls.CurveP256, tls.SecP256r1MLKEM768}
	if strings.Join(kept, ",") != "secp384r1,X25519MLKEM768,P-256,SecP256r1MLKEM768" || !slices.Equal(ids, want) {
		t.Errorf("kept %v, ids %v", kept, ids)
	}
	if kept, ids := GoGroups([]string{"X448"}); kept == nil || ids == nil || len(kept)+len(ids) != 0 {
		t.Errorf("none Go implements: %v %v", kept, ids)
	}
	// Every group a profile names is one Go or OpenSSL alone implements.
	for _, p := range profiles {
		kept, _ := GoGroups(p.TLS.Groups)
		for _, name := range p.TLS.Groups {
			if !slices.Contains(kept, name) && name != "X448" && !strings.HasPrefix(name, "ffdhe") {
				t.Errorf("%s: Go would drop %s", p.Name, name)
			}
		}
	}
}
