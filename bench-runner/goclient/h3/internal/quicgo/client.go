// Package quicgo is the HTTP/3 modes with quic-go's HTTP/3 client (package http3) against
// the device's API on its UDP port: GET /admin/exec/<command> (or every command in one
// path) with HTTP Basic auth, on a QUIC connection per command (a full handshake, a resumed
// one, or one carrying the request as 0-RTT early data) or on one kept connection; and
// against the head-end's API on its UDP port: one POST of every command per iteration, on
// a new connection or on one kept.
package quicgo

import (
	"crypto/tls"
	"encoding/base64"
	"net"
	"strconv"
	"time"

	"github.com/quic-go/quic-go"
	"github.com/quic-go/quic-go/http3"

	"transportlab/goclient/internal/job"
)

// keepAlivePeriod is what quic-go's http3.Transport sets when it configures a connection
// itself; the modes dial their own connections (to choose the handshake), so they set it:
// a kept connection outlives quic-go's 30 s idle timeout between two runner steps.
const keepAlivePeriod = 10 * time.Second

// client is what every connection of a job shares.
type client struct {
	host          string
	addr          string
	authorization string
	timeout       time.Duration
	quic          *quic.Config
	http          *http3.Transport
	recovery      *recoveryCounter
}

func newClient(j job.Job, creds job.Credentials) *client {
	credentials := base64.StdEncoding.EncodeToString([]byte(creds.Username + ":" + creds.Password))
	recovery := &recoveryCounter{}
	return &client{
		host:          j.Host,
		addr:          net.JoinHostPort(j.Host, strconv.Itoa(j.Port)),
		authorization: "Basic " + credentials,
		timeout:       j.Timeout(),
		// The server may open no bidirectional stream on an HTTP/3 client's connection
		// (as http3.Transport's own configuration says).
		// The tracer counts each connection's loss recovery from its qlog events.
		quic: &quic.Config{
			MaxIncomingStreams: -1,
			KeepAlivePeriod:    keepAlivePeriod,
			Tracer:             recovery.tracer,
		},
		http:     &http3.Transport{},
		recovery: recovery,
	}
}

// tlsConfig is TLS 1.3 (QUIC's only version) offering h3, with cache the session tickets
// it keeps and offers (nil: none, every handshake is a full one). Certificate checks are
// off, as in the runner's own HTTPS clients (bench_runner/tls.py): the lab device generates
// a self-signed certificate at first start, and the lab network is isolated.
func (c *client) tlsConfig(cache tls.ClientSessionCache) *tls.Config {
	return &tls.Config{
		// Also the key the cache files tickets under (no SNI is sent for an address).
		ServerName:         c.host,
		InsecureSkipVerify: true,
		MinVersion:         tls.VersionTLS13,
		NextProtos:         []string{http3.NextProtoH3},
		ClientSessionCache: cache,
	}
}
