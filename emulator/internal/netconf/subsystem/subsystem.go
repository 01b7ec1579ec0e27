// Package subsystem connects sshd's NETCONF subsystem to the device daemon.
// sshd starts one subsystem process per session; the process only relays
// its SSH channel to the daemon's NETCONF socket (Relay), and the daemon
// runs every session (Server), so sessions share one datastore, its locks
// and the metrics.
package subsystem

import (
	"errors"
	"io"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"

	"transportlab/emulator/internal/netconf/datastore"
	"transportlab/emulator/internal/netconf/server"
)

// maxMessage bounds one incoming NETCONF message (an edit-config).
const maxMessage = 32 << 20

// Recorder receives what the sessions serve; *metrics.Metrics implements it.
type Recorder interface {
	NetconfSessionOpened()
	NetconfSessionClosed()
	CommandServed(transport, errorKind string)
}

// Server runs the NETCONF sessions relayed to the daemon's socket.
type Server struct {
	store    *datastore.Store
	base11   bool
	recorder Recorder
	log      *slog.Logger
	nextID   atomic.Uint32
	wg       sync.WaitGroup
}

// NewServer serves sessions on store; base11 offers :base:1.1 (chunked
// framing) besides :base:1.0.
func NewServer(store *datastore.Store, base11 bool, recorder Recorder, log *slog.Logger) *Server {
	return &Server{store: store, base11: base11, recorder: recorder, log: log}
}

// Serve runs sessions until ln is closed, then waits for the open ones.
func (s *Server) Serve(ln net.Listener) error {
	for {
		conn, err := ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				s.wg.Wait()
				return nil
			}
			return err
		}
		id := s.nextID.Add(1)
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			defer conn.Close()
			s.recorder.NetconfSessionOpened()
			defer s.recorder.NetconfSessionClosed()
			err := server.Serve(conn, conn, server.Options{SessionID: id, Base11: s.base11, Store: s.store,
				MaxMessage: maxMessage, Recorder: rpcRecorder{s.recorder}})
			if err != nil {
				s.log.Warn("netconf session closed on error", "session", id, "err", err)
			}
		}()
	}
}

// rpcRecorder counts every RPC as a command of the netconf transport.
type rpcRecorder struct{ r Recorder }

func (r rpcRecorder) RPCServed(_, errorTag string) {
	r.r.CommandServed("netconf", errorTag)
}

// Relay copies in both directions until the daemon ends the session (its
// side closes) or the client does (in ends).
func Relay(conn *net.UnixConn, in io.Reader, out io.Writer) error {
	defer conn.Close()
	go func() {
		_, _ = io.Copy(conn, in)
		_ = conn.CloseWrite()
	}()
	_, err := io.Copy(out, conn)
	return err
}
