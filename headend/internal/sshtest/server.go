// Package sshtest is an in-process SSH server for the head-end's tests, on
// loopback: password login, and exec requests answered by a few scripted
// commands. Knobs drop every connection (a pooled connection gone dead) and
// change the host key (a device whose key is no longer the one first seen).
//
// Commands:
//
//	hang     answers nothing until the connection goes (a request's timeout)
//	fail     "partial\n" on stdout, "denied\n" on stderr, exit status 1
//	noexit   closes the channel without an exit status
//	drop     closes the whole connection
//	anything else: "output of <command>\n", exit status 0
package sshtest

import (
	"crypto/ed25519"
	"crypto/rand"
	"fmt"
	"io"
	"net"
	"sync"
	"testing"

	"golang.org/x/crypto/ssh"
)

// The account the server accepts.
const (
	User     = "labops"
	Password = "device-pw"
)

// Server is a running test server.
type Server struct {
	// Addr is 127.0.0.1:<Port>.
	Addr string
	Port int

	listener net.Listener
	wg       sync.WaitGroup

	mu     sync.Mutex
	signer ssh.Signer
	conns  map[net.Conn]bool
	closed bool
	logins int
}

// Start starts a server that stops when the test ends.
func Start(t testing.TB) *Server {
	t.Helper()
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{
		Addr:     listener.Addr().String(),
		Port:     listener.Addr().(*net.TCPAddr).Port,
		listener: listener,
		signer:   newSigner(t),
		conns:    map[net.Conn]bool{},
	}
	s.wg.Go(s.accept)
	t.Cleanup(func() {
		listener.Close()
		s.mu.Lock()
		s.closed = true
		s.mu.Unlock()
		s.DropConnections()
		s.wg.Wait()
	})
	return s
}

func newSigner(t testing.TB) ssh.Signer {
	_, key, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	signer, err := ssh.NewSignerFromKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return signer
}

// Logins is how many connections logged in so far.
func (s *Server) Logins() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.logins
}

// DropConnections closes every open connection, as a device that restarted
// would.
func (s *Server) DropConnections() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for conn := range s.conns {
		conn.Close()
	}
}

// RotateHostKey gives later handshakes a new host key.
func (s *Server) RotateHostKey(t testing.TB) {
	signer := newSigner(t)
	s.mu.Lock()
	s.signer = signer
	s.mu.Unlock()
}

func (s *Server) accept() {
	for {
		conn, err := s.listener.Accept()
		if err != nil {
			return
		}
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			conn.Close()
			return
		}
		s.conns[conn] = true
		s.mu.Unlock()
		s.wg.Go(func() { s.serve(conn) })
	}
}

func (s *Server) config() *ssh.ServerConfig {
	config := &ssh.ServerConfig{
		PasswordCallback: func(meta ssh.ConnMetadata, password []byte) (*ssh.Permissions, error) {
			if meta.User() == User && string(password) == Password {
				return nil, nil
			}
			return nil, fmt.Errorf("wrong password for %q", meta.User())
		},
	}
	s.mu.Lock()
	config.AddHostKey(s.signer)
	s.mu.Unlock()
	return config
}

func (s *Server) serve(conn net.Conn) {
	defer func() {
		conn.Close()
		s.mu.Lock()
		delete(s.conns, conn)
		s.mu.Unlock()
	}()
	server, channels, requests, err := ssh.NewServerConn(conn, s.config())
	if err != nil {
		return
	}
	defer server.Close()
	s.mu.Lock()
	s.logins++
	s.mu.Unlock()
	go ssh.DiscardRequests(requests)
	var sessions sync.WaitGroup
	defer sessions.Wait()
	for newChannel := range channels {
		if newChannel.ChannelType() != "session" {
			newChannel.Reject(ssh.UnknownChannelType, "session channels only")
			continue
		}
		channel, requests, err := newChannel.Accept()
		if err != nil {
			continue
		}
		sessions.Go(func() { session(conn, channel, requests) })
	}
}

// session answers the channel's exec request; anything else is refused.
func session(conn net.Conn, channel ssh.Channel, requests <-chan *ssh.Request) {
	defer channel.Close()
	for req := range requests {
		var exec struct{ Command string }
		if req.Type != "exec" || ssh.Unmarshal(req.Payload, &exec) != nil {
			req.Reply(false, nil)
			continue
		}
		req.Reply(true, nil)
		switch exec.Command {
		case "hang":
			for range requests {
			}
		case "drop":
			conn.Close()
		case "noexit":
		case "fail":
			io.WriteString(channel, "partial\n")
			io.WriteString(channel.Stderr(), "denied\n")
			exit(channel, 1)
		default:
			fmt.Fprintf(channel, "output of %s\n", exec.Command)
			exit(channel, 0)
		}
		return
	}
}

func exit(channel ssh.Channel, status uint32) {
	channel.SendRequest("exit-status", false, ssh.Marshal(struct{ Status uint32 }{status}))
}
