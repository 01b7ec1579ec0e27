package api

import (
	"context"
	"net/http"
)

// transportKey marks, in a request's context, the transport the request
// came over, for the metrics' "transport" label.
type transportKey struct{}

// httpsTransport is every request not marked otherwise: nginx's, over
// HTTPS on TCP 443.
const httpsTransport = "https"

// WithTransport marks r as served over transport (the HTTP/3 server marks
// its requests "http3"), so commands and authentication failures are
// counted under it rather than under HTTPS.
func WithTransport(r *http.Request, transport string) *http.Request {
	return r.WithContext(context.WithValue(r.Context(), transportKey{}, transport))
}

func transportOf(r *http.Request) string {
	if transport, ok := r.Context().Value(transportKey{}).(string); ok {
		return transport
	}
	return httpsTransport
}
