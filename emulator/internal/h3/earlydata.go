package h3

import (
	"net/http"
)

// earlyDataPolicy runs a request that arrived in 0-RTT early data only if
// its method is safe (GET, HEAD, OPTIONS): early data can be replayed by
// anyone who captured it, and a safe request changes nothing when it runs
// twice. Any other method in early data gets 425 Too Early (RFC 8470;
// RFC 9114 section 10.9) and is not executed: the client repeats it once
// the handshake is complete. Every request is counted by both facts.
func (s *Server) earlyDataPolicy(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		early := arrivedInEarlyData(r)
		if early && !safeMethod(r.Method) {
			s.o.Recorder.HTTP3Request(true, true)
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			w.WriteHeader(http.StatusTooEarly)
			_, _ = w.Write([]byte("% Too Early: a " + r.Method + " request sent in 0-RTT early data is not executed; " +
				"send it again once the handshake is complete\n"))
			return
		}
		s.o.Recorder.HTTP3Request(early, false)
		next.ServeHTTP(w, r)
	})
}

// arrivedInEarlyData tells whether the request came in 0-RTT packets.
// quic-go's http3 copies the connection's TLS state into the request when
// it has decoded the request's headers. The server's handshake completes
// only on the client's Finished, which the client sends a round trip
// after its first flight, and a server processes no 1-RTT packet before
// its handshake completes (RFC 9001, section 5.7): a request decoded
// before then arrived in 0-RTT packets. A 0-RTT request decoded after the
// Finished was processed (possible only when the request took longer to
// decode than that round trip) counts as not early, and a non-safe method
// then runs: safely, since a replayed first flight never completes a
// handshake.
func arrivedInEarlyData(r *http.Request) bool {
	return r.TLS != nil && !r.TLS.HandshakeComplete
}

func safeMethod(method string) bool {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return true
	}
	return false
}
