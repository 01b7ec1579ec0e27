package tunnel

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestFixedSizes(t *testing.T) {
	srv := httptest.NewServer(Handler())
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/10M")
	if err != nil {
		t.Fatal(err)
	}
	n, err := io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if err != nil || n != 10<<20 || resp.ContentLength != 10<<20 {
		t.Fatalf("got %d bytes (content-length %d): %v", n, resp.ContentLength, err)
	}
	resp, err = http.Head(srv.URL + "/1G")
	if err != nil || resp.ContentLength != 1<<30 {
		t.Fatalf("HEAD /1G: %v %d", err, resp.ContentLength)
	}
	resp, _ = http.Get(srv.URL + "/nope")
	if resp.StatusCode != http.StatusNotFound {
		t.Fatalf("unknown path: %d", resp.StatusCode)
	}
	resp, _ = http.Post(srv.URL+"/10M", "text/plain", nil)
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Fatalf("POST: %d", resp.StatusCode)
	}
}

func TestStreamIsEndless(t *testing.T) {
	srv := httptest.NewServer(Handler())
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/stream")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if n, err := io.CopyN(io.Discard, resp.Body, 50<<20); err != nil || n != 50<<20 {
		t.Fatalf("stream ended after %d bytes: %v", n, err)
	}
}
