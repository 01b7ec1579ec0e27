package h3

import (
	"context"

	"github.com/quic-go/quic-go"
)

// trackConnection counts a QUIC connection on the device it reached while
// it is open, and, once its handshake completes, whether TLS resumed a
// session and whether 0-RTT was accepted. http3 calls it for every
// connection it serves (as ConnContext), which makes it the one place a
// connection is seen from its start.
func (s *Server) trackConnection(ctx context.Context, conn *quic.Conn) context.Context {
	device := s.deviceOf(conn.LocalAddr())
	s.o.Recorder.HTTP3SessionOpened(device)
	go func() {
		defer s.o.Recorder.HTTP3SessionClosed(device)
		select {
		case <-conn.HandshakeComplete():
			state := conn.ConnectionState()
			s.o.Recorder.HTTP3Handshake(state.TLS.DidResume, state.Used0RTT)
		case <-conn.Context().Done():
			return
		}
		<-conn.Context().Done()
	}()
	return ctx
}
