package tlscert

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/x509"
	"testing"
	"time"
)

func TestGenerate(t *testing.T) {
	cert, err := Generate()
	if err != nil {
		t.Fatal(err)
	}
	key, ok := cert.PrivateKey.(*ecdsa.PrivateKey)
	if !ok || key.Curve != elliptic.P256() {
		t.Fatalf("key %T, want ECDSA P-256", cert.PrivateKey)
	}
	roots := x509.NewCertPool()
	roots.AddCert(cert.Leaf)
	for _, name := range Names {
		opts := x509.VerifyOptions{DNSName: name, Roots: roots, CurrentTime: time.Now()}
		if _, err := cert.Leaf.Verify(opts); err != nil {
			t.Errorf("not valid for %s: %v", name, err)
		}
	}
	if _, err := cert.Leaf.Verify(x509.VerifyOptions{DNSName: "device", Roots: roots}); err == nil {
		t.Error("valid for a name it was not made for")
	}
}
