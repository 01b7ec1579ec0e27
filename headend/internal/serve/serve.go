// Package serve runs the head-end's servers: the API over HTTPS (TCP) and
// HTTP/3 (UDP) on one address, the metrics over plain HTTP on another, and
// stops them gracefully.
package serve

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/quic-go/quic-go/http3"
)

// shutdownGrace is how long requests in flight may finish at shutdown:
// within Docker's default 10 s between SIGTERM and SIGKILL.
const shutdownGrace = 8 * time.Second

// Listeners are the sockets, bound before serving so that a busy port fails
// the start and tests can listen on port 0.
type Listeners struct {
	TCP     net.Listener   // HTTPS
	UDP     net.PacketConn // HTTP/3, on the TCP listener's port
	Metrics net.Listener
}

// Listen binds the API's TCP and UDP sockets on apiAddr and the metrics
// socket on metricsAddr.
func Listen(apiAddr, metricsAddr string) (Listeners, error) {
	tcp, udp, err := listenPair(apiAddr)
	if err != nil {
		return Listeners{}, err
	}
	metrics, err := net.Listen("tcp", metricsAddr)
	if err != nil {
		tcp.Close()
		udp.Close()
		return Listeners{}, err
	}
	return Listeners{TCP: tcp, UDP: udp, Metrics: metrics}, nil
}

// listenPair binds TCP and UDP on one port. With port 0 the UDP socket takes
// the port TCP got, which some other UDP socket may hold: then both are
// tried again on a new port.
func listenPair(addr string) (net.Listener, net.PacketConn, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, nil, err
	}
	for attempt := 1; ; attempt++ {
		tcp, err := net.Listen("tcp", addr)
		if err != nil {
			return nil, nil, err
		}
		udpAddr := net.JoinHostPort(host, strconv.Itoa(tcp.Addr().(*net.TCPAddr).Port))
		udp, err := net.ListenPacket("udp", udpAddr)
		if err == nil {
			return tcp, udp, nil
		}
		tcp.Close()
		if port != "0" || attempt == 10 {
			return nil, nil, err
		}
	}
}

// Run serves until ctx ends or a server fails, then shuts every server down,
// letting requests in flight finish, and closes the listeners.
func Run(ctx context.Context, l Listeners, api, metrics http.Handler, cert tls.Certificate, log *slog.Logger) error {
	tlsConfig := &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	altSvc := fmt.Sprintf(`h3=":%d"; ma=86400`, l.UDP.LocalAddr().(*net.UDPAddr).Port)
	errorLog := slog.NewLogLogger(log.Handler(), slog.LevelWarn)
	https := &http.Server{
		Handler:           advertiseHTTP3(api, altSvc),
		TLSConfig:         tlsConfig,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          errorLog,
	}
	h3 := &http3.Server{Handler: api, TLSConfig: tlsConfig.Clone(), IdleTimeout: 2 * time.Minute, Logger: log}
	metricsMux := http.NewServeMux()
	metricsMux.Handle("GET /metrics", metrics)
	metricsServer := &http.Server{Handler: metricsMux, ReadHeaderTimeout: 10 * time.Second, ErrorLog: errorLog}

	errs := make(chan error, 3)
	go func() { errs <- fmt.Errorf("https: %w", https.ServeTLS(l.TCP, "", "")) }()
	go func() { errs <- fmt.Errorf("http3: %w", h3.Serve(l.UDP)) }()
	go func() { errs <- fmt.Errorf("metrics: %w", metricsServer.Serve(l.Metrics)) }()
	log.Info("listening", "https", l.TCP.Addr().String(), "http3", l.UDP.LocalAddr().String(),
		"metrics", l.Metrics.Addr().String())

	running := 3
	var failed error
	select {
	case <-ctx.Done():
	case failed = <-errs:
		running--
	}
	log.Info("shutting down")
	shutdownCtx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	// All at once: none takes new requests while another drains.
	var wg sync.WaitGroup
	var httpsErr, h3Err, metricsErr error
	wg.Go(func() { httpsErr = https.Shutdown(shutdownCtx) })
	wg.Go(func() {
		// http3 leaves open a socket it was given.
		h3Err = errors.Join(h3.Shutdown(shutdownCtx), l.UDP.Close())
	})
	wg.Go(func() { metricsErr = metricsServer.Shutdown(shutdownCtx) })
	wg.Wait()
	for range running {
		if err := <-errs; !errors.Is(err, http.ErrServerClosed) {
			failed = errors.Join(failed, err)
		}
	}
	return errors.Join(failed, httpsErr, h3Err, metricsErr)
}

// advertiseHTTP3 adds Alt-Svc to answers over TCP, so clients that speak
// HTTP/3 know to try UDP on the same port.
func advertiseHTTP3(next http.Handler, altSvc string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ProtoMajor < 3 {
			w.Header().Set("Alt-Svc", altSvc)
		}
		next.ServeHTTP(w, r)
	})
}
