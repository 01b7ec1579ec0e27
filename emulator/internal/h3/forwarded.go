package h3

import (
	"net"
	"net/http"
	"net/netip"
	"time"

	"transportlab/emulator/internal/api"
	"transportlab/emulator/internal/metrics"
)

// asNginxForwards gives the API a request as nginx would forward it
// (emulator/rootfs/nginx-device-server.conf): the address the client
// reached in X-Device-Address, which picks the device of the fleet; the
// client's address in X-Forwarded-For and the scheme in
// X-Forwarded-Proto, each replacing any copy the client sent. As nginx's
// client_max_body_size, a body over the API's limit gets 413.
func (s *Server) asNginxForwards(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Header.Del(api.DeviceAddressHeader)
		if local := addrOf(localAddr(r)); local.IsValid() {
			r.Header.Set(api.DeviceAddressHeader, local.String())
		}
		r.Header.Del("X-Forwarded-For")
		if remote, err := netip.ParseAddrPort(r.RemoteAddr); err == nil {
			r.Header.Set("X-Forwarded-For", remote.Addr().Unmap().String())
		}
		r.Header.Set("X-Forwarded-Proto", "https")
		if r.ContentLength > api.MaxBodyBytes {
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			w.WriteHeader(http.StatusRequestEntityTooLarge)
			_, _ = w.Write([]byte("% Request body larger than 1 MiB\n"))
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, api.MaxBodyBytes)
		_ = http.NewResponseController(w).SetReadDeadline(time.Now().Add(bodyTimeout))
		next.ServeHTTP(w, api.WithTransport(r, metrics.TransportHTTP3))
	})
}

// localAddr is the address the request's connection was accepted on, as
// http3 records it.
func localAddr(r *http.Request) net.Addr {
	addr, _ := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	return addr
}

// addrOf is a socket address's IP; the zero Addr for anything else.
func addrOf(addr net.Addr) netip.Addr {
	if udp, ok := addr.(*net.UDPAddr); ok {
		if ip, ok := netip.AddrFromSlice(udp.IP); ok {
			return ip.Unmap()
		}
	}
	return netip.Addr{}
}

// deviceOf is the fleet index of the device owning the local address.
func (s *Server) deviceOf(local net.Addr) int {
	return s.o.Plan.ForAddress(addrOf(local)).Index
}
