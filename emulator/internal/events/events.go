// Package events carries session and command events from SSH shell
// processes (spawned by sshd, one per session) to the device daemon, which
// owns the metrics. Events are fire-and-forget datagrams on a unix socket:
// a shell never waits for, or fails because of, the daemon.
package events

import (
	"encoding/json"
	"errors"
	"net"
	"os"
	"time"
)

// Kind of event.
type Kind string

// Event kinds.
const (
	SessionOpen  Kind = "session_open"
	SessionClose Kind = "session_close"
	Command      Kind = "command"
)

// Event is one datagram.
type Event struct {
	Kind      Kind   `json:"kind"`
	Transport string `json:"transport"`
	// Mode is "exec" or "pty" for session events.
	Mode string `json:"mode,omitempty"`
	// PID identifies the session; the daemon also uses it to notice
	// sessions whose process died without a close event.
	PID int `json:"pid"`
	// Device is the emulated device of the fleet the session is on (its
	// index, 1..N).
	Device int `json:"device"`
	// Error is the engine error kind of a failed command, empty on success.
	Error string `json:"error,omitempty"`
}

// maxDatagram bounds what the listener reads; events are far smaller.
const maxDatagram = 4096

// sendTimeout keeps a full receive queue from stalling a shell.
const sendTimeout = 50 * time.Millisecond

// Emitter sends events; a nil conn (daemon not running) makes it a no-op.
type Emitter struct {
	conn *net.UnixConn
}

// Dial connects to the daemon's event socket. It never fails: without a
// daemon, events are dropped, and the shell works the same.
func Dial(path string) *Emitter {
	conn, err := net.DialUnix("unixgram", nil, &net.UnixAddr{Name: path, Net: "unixgram"})
	if err != nil {
		return &Emitter{}
	}
	return &Emitter{conn: conn}
}

// Emit sends one event, dropping it on any error.
func (e *Emitter) Emit(ev Event) {
	if e.conn == nil {
		return
	}
	payload, err := json.Marshal(ev)
	if err != nil {
		return
	}
	_ = e.conn.SetWriteDeadline(time.Now().Add(sendTimeout))
	_, _ = e.conn.Write(payload)
}

// Close releases the socket.
func (e *Emitter) Close() {
	if e.conn != nil {
		_ = e.conn.Close()
	}
}

// Listener receives events on a unix datagram socket.
type Listener struct {
	conn *net.UnixConn
	path string
}

// Listen binds path, replacing a stale socket from a previous run. The
// socket is writable by everyone because shells run as the login user.
func Listen(path string) (*Listener, error) {
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	conn, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: path, Net: "unixgram"})
	if err != nil {
		return nil, err
	}
	if err := os.Chmod(path, 0o622); err != nil {
		conn.Close()
		return nil, err
	}
	return &Listener{conn: conn, path: path}, nil
}

// Serve decodes datagrams until Close, passing each event to handle and
// each undecodable datagram to malformed. It returns nil after Close.
func (l *Listener) Serve(handle func(Event), malformed func()) error {
	buf := make([]byte, maxDatagram)
	for {
		n, err := l.conn.Read(buf)
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return nil
			}
			return err
		}
		var ev Event
		if err := json.Unmarshal(buf[:n], &ev); err != nil || ev.Kind == "" {
			malformed()
			continue
		}
		handle(ev)
	}
}

// Close stops Serve and removes the socket file.
func (l *Listener) Close() error {
	err := l.conn.Close()
	_ = os.Remove(l.path)
	return err
}
