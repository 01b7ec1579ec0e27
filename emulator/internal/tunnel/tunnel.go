// Package tunnel is the device's tunnel target: an HTTP server, bound to
// loopback inside the container, that only SSH local forwarding
// (ssh -L 8080:127.0.0.1:8080) reaches. It serves fixed-size payloads and
// an endless stream for throughput measurements through the tunnel.
package tunnel

import (
	"io"
	"net/http"
	"strconv"
)

// Sizes are the fixed payloads by path.
var Sizes = map[string]int64{
	"/10M":  10 << 20,
	"/100M": 100 << 20,
	"/1G":   1 << 30,
}

// chunk is written repeatedly; generated once so serving costs no CPU
// beyond the copy.
var chunk = func() []byte {
	b := make([]byte, 64<<10)
	for i := range b {
		b[i] = byte('a' + i%26)
	}
	return b
}()

// Handler serves GET/HEAD /10M, /100M, /1G (Content-Length set) and
// /stream (never ends; the client closes it).
func Handler() http.Handler {
	mux := http.NewServeMux()
	for path, size := range Sizes {
		mux.HandleFunc("GET "+path, func(w http.ResponseWriter, r *http.Request) {
			ServePayload(w, r, size)
		})
	}
	mux.HandleFunc("GET /stream", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/octet-stream")
		_, _ = io.Copy(w, repeater{})
	})
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, "tunnel target: /10M /100M /1G /stream\n")
	})
	return mux
}

// ServePayload answers GET or HEAD with size bytes of the payload and a
// Content-Length: the tunnel target's downloads, and the same bytes wherever
// else the device serves them (the HTTPS API's direct download).
func ServePayload(w http.ResponseWriter, r *http.Request, size int64) {
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Content-Length", strconv.FormatInt(size, 10))
	if r.Method == http.MethodHead {
		return
	}
	_, _ = io.CopyN(w, repeater{}, size)
}

// repeater reads the chunk forever.
type repeater struct{}

func (repeater) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		n += copy(p[n:], chunk)
	}
	return n, nil
}
