package quicgo

import (
	"context"
	"crypto/tls"
	"fmt"

	"github.com/quic-go/quic-go"
	"github.com/quic-go/quic-go/http3"

	"transportlab/goclient/internal/report"
)

// conn is one QUIC connection with the HTTP/3 client connection on it.
type conn struct {
	quic *quic.Conn
	http *http3.ClientConn
}

// dial opens a connection on a UDP socket of its own (closed with it). Without early it
// returns once the handshake is complete; with early (0-RTT) as soon as the ClientHello is
// out and requests may follow it in early data.
func (c *client) dial(tlsConf *tls.Config, early bool) (*conn, error) {
	ctx, cancel := context.WithTimeout(context.Background(), c.timeout)
	defer cancel()
	dial := quic.DialAddr
	if early {
		dial = quic.DialAddrEarly
	}
	qc, err := dial(ctx, c.addr, tlsConf, c.quic)
	if err != nil {
		return nil, fmt.Errorf("dial %s: %w", c.addr, err)
	}
	return &conn{quic: qc, http: c.http.NewClientConn(qc)}, nil
}

// awaitHandshake waits until the handshake is complete: a connection dialled early knows
// only then whether the server accepted its early data.
func (cn *conn) awaitHandshake(ctx context.Context) error {
	select {
	case <-cn.quic.HandshakeComplete():
		return nil
	case <-cn.quic.Context().Done():
		return fmt.Errorf("handshake: %w", context.Cause(cn.quic.Context()))
	case <-ctx.Done():
		return fmt.Errorf("handshake: %w", ctx.Err())
	}
}

// negotiated is what the connection's handshake settled, as quic-go reports it.
func (cn *conn) negotiated() report.Connection {
	state := cn.quic.ConnectionState()
	return report.Connection{
		TLSVersion:  state.TLS.Version,
		CipherSuite: state.TLS.CipherSuite,
		Group:       uint16(state.TLS.CurveID),
		ALPN:        state.TLS.NegotiatedProtocol,
		Resumed:     state.TLS.DidResume,
		Used0RTT:    state.Used0RTT,
	}
}

// close sends CONNECTION_CLOSE (H3_NO_ERROR) and releases the socket; no answer is awaited.
func (cn *conn) close() error {
	return cn.http.CloseWithError(quic.ApplicationErrorCode(http3.ErrCodeNoError), "")
}
