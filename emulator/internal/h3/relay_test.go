package h3

import (
	"net"
	"sync"
	"testing"
)

// relay forwards UDP datagrams between one client and the server, and
// holds the server's while its gate is closed. A client that has heard
// nothing from the server has only its 0-RTT keys: whatever it sends is
// early data, and the server cannot complete its handshake (that takes
// the client's Finished, which needs the server's first flight). What the
// server does with a request meanwhile, it does with a request that
// arrived in early data, however slowly the machine runs.
type relay struct {
	client   *net.UDPConn // the client's side: its address is what the client dials
	upstream *net.UDPConn // connected to the server
	mu       sync.Mutex
	open     bool
	peer     *net.UDPAddr // the client, once it has sent
	held     [][]byte
}

func newRelay(t *testing.T, server string) *relay {
	t.Helper()
	client, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	serverAddr, err := net.ResolveUDPAddr("udp4", server)
	if err != nil {
		t.Fatal(err)
	}
	upstream, err := net.DialUDP("udp4", nil, serverAddr)
	if err != nil {
		t.Fatal(err)
	}
	r := &relay{client: client, upstream: upstream}
	t.Cleanup(func() {
		client.Close()
		upstream.Close()
	})
	go r.fromClient()
	go r.fromServer()
	return r
}

func (r *relay) addr() string { return r.client.LocalAddr().String() }

func (r *relay) fromClient() {
	buf := make([]byte, 65536)
	for {
		n, peer, err := r.client.ReadFromUDP(buf)
		if err != nil {
			return
		}
		r.mu.Lock()
		r.peer = peer
		r.mu.Unlock()
		_, _ = r.upstream.Write(buf[:n])
	}
}

func (r *relay) fromServer() {
	buf := make([]byte, 65536)
	for {
		n, err := r.upstream.Read(buf)
		if err != nil {
			return
		}
		r.mu.Lock()
		if r.open {
			_, _ = r.client.WriteToUDP(buf[:n], r.peer)
		} else {
			r.held = append(r.held, append([]byte(nil), buf[:n]...))
		}
		r.mu.Unlock()
	}
}

// release opens the gate: the held datagrams go to the client in order,
// and every later one at once.
func (r *relay) release() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.open = true
	for _, datagram := range r.held {
		_, _ = r.client.WriteToUDP(datagram, r.peer)
	}
	r.held = nil
}
