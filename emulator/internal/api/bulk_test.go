package api

import (
	"io"
	"net/http"
	"testing"
)

// download GETs url and returns the status, the Content-Length header and
// how many body bytes arrived (counted, not kept).
func download(t *testing.T, url string, auth bool) (code int, contentLength int64, n int64) {
	t.Helper()
	req, err := http.NewRequest("GET", url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if auth {
		req.SetBasicAuth("labops", "s3cret")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if n, err = io.Copy(io.Discard, resp.Body); err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.ContentLength, n
}

func TestBulkNeedsAuth(t *testing.T) {
	srv, rec := newTestServer(t)
	if code, _, n := download(t, srv.URL+"/bulk/10M", false); code != http.StatusUnauthorized || n != int64(len("Unauthorized\n")) {
		t.Fatalf("no credentials: %d, %d bytes", code, n)
	}
	if rec.authFailures != 1 || rec.requests["bulk Unauthorized"] != 1 {
		t.Fatalf("failures %d, requests %v", rec.authFailures, rec.requests)
	}
}

func TestBulkSendsExactlyTheSize(t *testing.T) {
	srv, rec := newTestServer(t)
	code, length, n := download(t, srv.URL+"/bulk/10M", true)
	if code != 200 || length != 10<<20 || n != 10<<20 {
		t.Fatalf("/bulk/10M: %d, Content-Length %d, %d bytes", code, length, n)
	}
	if rec.requests["bulk OK"] != 1 {
		t.Fatalf("requests %v", rec.requests)
	}
}

// A download is counted before its first byte leaves: a scrape while it
// streams, or right after it ends, includes it.
func TestBulkCountedWhileStreaming(t *testing.T) {
	srv, rec := newTestServer(t)
	req, err := http.NewRequest("GET", srv.URL+"/bulk/1G", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.SetBasicAuth("labops", "s3cret")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if rec.requests["bulk OK"] != 1 {
		t.Fatalf("requests %v with the body still streaming", rec.requests)
	}
}

func TestBulkAnnouncesEverySize(t *testing.T) {
	srv, _ := newTestServer(t)
	for name, size := range map[string]int64{"10M": 10 << 20, "100M": 100 << 20, "1G": 1 << 30} {
		req, _ := http.NewRequest("HEAD", srv.URL+"/bulk/"+name, nil)
		req.SetBasicAuth("labops", "s3cret")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 || resp.ContentLength != size {
			t.Errorf("HEAD /bulk/%s: %d, Content-Length %d", name, resp.StatusCode, resp.ContentLength)
		}
	}
}

func TestBulkUnknownSizeIs404(t *testing.T) {
	srv, rec := newTestServer(t)
	for _, path := range []string{"/bulk/2G", "/bulk/stream", "/bulk/"} {
		if code, _, _ := do(t, "GET", srv.URL+path, "", true); code != http.StatusNotFound {
			t.Errorf("%s: %d", path, code)
		}
	}
	// "/bulk/" has no size segment, so the mux answers it without reaching the route.
	if rec.requests["bulk Not Found"] != 2 {
		t.Fatalf("requests %v", rec.requests)
	}
}
