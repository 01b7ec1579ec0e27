package main

import (
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
)

func TestUsage(t *testing.T) {
	if code := run([]string{"serve", "now"}, func(string) string { return "" }); code != 2 {
		t.Fatalf("exit %d, want 2", code)
	}
}

func TestInvalidConfiguration(t *testing.T) {
	if code := run(nil, func(string) string { return "" }); code != 2 {
		t.Fatalf("exit %d, want 2 (nothing configured)", code)
	}
}

func TestHealthURL(t *testing.T) {
	cases := map[string]string{
		":443":            "https://127.0.0.1:443/healthz",
		"0.0.0.0:8443":    "https://127.0.0.1:8443/healthz",
		"[::]:443":        "https://127.0.0.1:443/healthz",
		"198.18.1.5:443":  "https://198.18.1.5:443/healthz",
		"127.0.0.1:12345": "https://127.0.0.1:12345/healthz",
	}
	for listen, want := range cases {
		if got := healthURL(listen); got != want {
			t.Errorf("healthURL(%q) = %q, want %q", listen, got, want)
		}
	}
}

func TestCheck(t *testing.T) {
	var status atomic.Int64
	status.Store(http.StatusOK)
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(int(status.Load()))
	}))
	defer srv.Close()
	if err := check(srv.URL + "/healthz"); err != nil {
		t.Fatalf("healthy server: %v", err)
	}
	status.Store(http.StatusServiceUnavailable)
	if err := check(srv.URL + "/healthz"); err == nil {
		t.Fatal("a 503 passed")
	}
	srv.Close()
	if err := check(srv.URL + "/healthz"); err == nil {
		t.Fatal("a closed port passed")
	}
}

// TestHealthcheck runs the subcommand against a server on HEADEND_LISTEN's
// port.
func TestHealthcheck(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {}))
	defer srv.Close()
	env := map[string]string{"HEADEND_LISTEN": srv.Listener.Addr().String()}
	if code := run([]string{"healthcheck"}, func(k string) string { return env[k] }); code != 0 {
		t.Fatalf("exit %d, want 0", code)
	}
	srv.Close()
	if code := run([]string{"healthcheck"}, func(k string) string { return env[k] }); code != 1 {
		t.Fatalf("exit %d after the server stopped, want 1", code)
	}
}
