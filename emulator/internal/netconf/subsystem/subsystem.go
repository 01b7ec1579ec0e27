// Package subsystem connects sshd's NETCONF subsystem to the device daemon.
// sshd starts one subsystem process per session; the process only relays
// its SSH channel to the daemon's NETCONF socket (Relay), and the daemon
// runs every session (Server), so the sessions of a device share its
// datastore, its locks and the metrics.
//
// The socket protocol: the relay first sends one preamble line naming the
// emulated device of the fleet the session is for, by index,
//
//	device 2\n
//
// then the NETCONF session's bytes, unchanged, in both directions. The
// daemon closes a connection whose preamble is not such a line or names a
// device the fleet does not have, without a word (it is not a NETCONF
// peer yet).
package subsystem

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"transportlab/emulator/internal/netconf/datastore"
	"transportlab/emulator/internal/netconf/server"
)

// maxMessage bounds one incoming NETCONF message (an edit-config).
const maxMessage = 32 << 20

// preambleTimeout bounds the wait for the preamble, which the relay sends
// as soon as it connects.
const preambleTimeout = 10 * time.Second

// Recorder receives what the sessions serve; *metrics.Metrics implements it.
type Recorder interface {
	NetconfSessionOpened(device int)
	NetconfSessionClosed(device int)
	CommandServed(transport string, device int, errorKind string)
}

// Datastores finds the datastore of device k of the fleet;
// configdb.Fleet implements it.
type Datastores interface {
	Datastore(k int) (*datastore.Store, bool)
}

// Server runs the NETCONF sessions relayed to the daemon's socket.
type Server struct {
	stores   Datastores
	base11   bool
	recorder Recorder
	log      *slog.Logger
	nextID   atomic.Uint32
	wg       sync.WaitGroup
}

// NewServer serves sessions on the devices' datastores; base11 offers
// :base:1.1 (chunked framing) besides :base:1.0. Session IDs are unique
// across the devices.
func NewServer(stores Datastores, base11 bool, recorder Recorder, log *slog.Logger) *Server {
	return &Server{stores: stores, base11: base11, recorder: recorder, log: log}
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
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			defer conn.Close()
			s.serveConn(conn)
		}()
	}
}

func (s *Server) serveConn(conn net.Conn) {
	// A buffer of the preamble's size: the session's own (larger) reads
	// then go straight to the connection.
	in := bufio.NewReaderSize(conn, maxPreamble)
	_ = conn.SetReadDeadline(time.Now().Add(preambleTimeout))
	device, err := readPreamble(in)
	if err != nil {
		s.log.Warn("netconf connection refused", "err", err)
		return
	}
	store, ok := s.stores.Datastore(device)
	if !ok {
		s.log.Warn("netconf connection refused", "err", fmt.Sprintf("no device %d in the fleet", device))
		return
	}
	_ = conn.SetReadDeadline(time.Time{})
	id := s.nextID.Add(1)
	s.recorder.NetconfSessionOpened(device)
	defer s.recorder.NetconfSessionClosed(device)
	err = server.Serve(in, conn, server.Options{SessionID: id, Base11: s.base11, Store: store,
		MaxMessage: maxMessage, Recorder: rpcRecorder{s.recorder, device}})
	if err != nil {
		s.log.Warn("netconf session closed on error", "session", id, "device", device, "err", err)
	}
}

// maxPreamble bounds the preamble line ("device 250\n" is 11 bytes).
const maxPreamble = 32

// readPreamble reads "device K\n" and returns K.
func readPreamble(in *bufio.Reader) (int, error) {
	line, err := in.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		return 0, errors.New("preamble too long")
	}
	if err != nil {
		return 0, fmt.Errorf("reading the preamble: %w", err)
	}
	text, ok := strings.CutPrefix(strings.TrimSuffix(string(line), "\n"), "device ")
	device, convErr := strconv.Atoi(text)
	if !ok || convErr != nil {
		return 0, fmt.Errorf("bad preamble %q", line)
	}
	return device, nil
}

// rpcRecorder counts every RPC as a command of the netconf transport on
// the session's device.
type rpcRecorder struct {
	r      Recorder
	device int
}

func (r rpcRecorder) RPCServed(_, errorTag string) {
	r.r.CommandServed("netconf", r.device, errorTag)
}

// Relay sends the preamble for device (the fleet index), then copies in
// both directions until the daemon ends the session (its side closes) or
// the client does (in ends).
func Relay(conn *net.UnixConn, device int, in io.Reader, out io.Writer) error {
	defer conn.Close()
	if _, err := fmt.Fprintf(conn, "device %d\n", device); err != nil {
		return err
	}
	go func() {
		_, _ = io.Copy(conn, in)
		_ = conn.CloseWrite()
	}()
	_, err := io.Copy(out, conn)
	return err
}
