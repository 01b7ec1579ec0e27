package main

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"sync"
	"sync/atomic"

	"golang.org/x/term"

	"transportlab/emulator/internal/metrics"
	"transportlab/emulator/internal/netconf/datastore"
	"transportlab/emulator/internal/netconf/server"
	"transportlab/emulator/internal/netconf/xmltree"
	"transportlab/emulator/internal/settings"
)

// netconfSubsystem is the sshd_config "Subsystem netconf" command. sshd
// runs it through the account's login shell (device-shell -c "<command>"),
// so the shell recognises it and relays instead of running CLI commands.
const netconfSubsystem = "/usr/local/bin/device netconf"

// maxNetconfMessage bounds one incoming NETCONF message (edit-config).
const maxNetconfMessage = 32 << 20

// runNetconf is the sshd subsystem process: it relays the SSH channel
// (stdin/stdout) to the daemon's NETCONF socket, where every session shares
// one datastore, its locks and the metrics.
func runNetconf(settingsPath string) int {
	s, err := settings.Load(settingsPath)
	if err != nil {
		fmt.Fprintf(os.Stderr, "netconf: device not ready: %v\n", err)
		return 1
	}
	// A client that asked for a PTY must not get echo or "\r\n" translation.
	if fd := int(os.Stdin.Fd()); term.IsTerminal(fd) {
		if saved, err := term.MakeRaw(fd); err == nil {
			defer term.Restore(fd, saved)
		}
	}
	conn, err := net.Dial("unix", s.NetconfSocket)
	if err != nil {
		fmt.Fprintf(os.Stderr, "netconf: device not ready: %v\n", err)
		return 1
	}
	if err := relay(conn.(*net.UnixConn), os.Stdin, os.Stdout); err != nil {
		fmt.Fprintf(os.Stderr, "netconf: %v\n", err)
		return 1
	}
	return 0
}

// relay copies in both directions until the daemon ends the session (its
// side closes) or the client does (stdin ends).
func relay(conn *net.UnixConn, in io.Reader, out io.Writer) error {
	defer conn.Close()
	go func() {
		_, _ = io.Copy(conn, in)
		_ = conn.CloseWrite()
	}()
	_, err := io.Copy(out, conn)
	return err
}

// netconfServer accepts relayed sessions on the daemon's NETCONF socket.
type netconfServer struct {
	store   *datastore.Store
	base11  bool
	metrics *metrics.Metrics
	log     *slog.Logger
	nextID  atomic.Uint32
	wg      sync.WaitGroup
}

func newNetconfServer(store *datastore.Store, s settings.Settings, m *metrics.Metrics, log *slog.Logger) *netconfServer {
	return &netconfServer{store: store, base11: s.NetconfBase == "1.1", metrics: m, log: log}
}

// listenNetconf creates the socket; the SSH account (any local user) must
// reach it, as it may reach the NETCONF subsystem anyway.
func listenNetconf(path string) (net.Listener, error) {
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, err
	}
	if err := os.Chmod(path, 0o666); err != nil {
		ln.Close()
		return nil, err
	}
	return ln, nil
}

// Serve runs sessions until the listener is closed.
func (n *netconfServer) Serve(ln net.Listener) error {
	for {
		conn, err := ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				n.wg.Wait()
				return nil
			}
			return err
		}
		id := n.nextID.Add(1)
		n.wg.Add(1)
		go func() {
			defer n.wg.Done()
			defer conn.Close()
			n.metrics.NetconfSessionOpened()
			defer n.metrics.NetconfSessionClosed()
			err := server.Serve(conn, conn, server.Options{SessionID: id, Base11: n.base11, Store: n.store,
				MaxMessage: maxNetconfMessage, Recorder: rpcRecorder{n.metrics}})
			if err != nil {
				n.log.Warn("netconf session closed on error", "session", id, "err", err)
			}
		}()
	}
}

type rpcRecorder struct{ m *metrics.Metrics }

func (r rpcRecorder) RPCServed(_, errorTag string) {
	r.m.CommandServed(metrics.TransportNETCONF, errorTag)
}

// nativeModule and nativeNS name the IOS-XE native model used by the
// initial configuration (the RESTCONF path prefix and the XML namespace).
const (
	nativeModule = "Cisco-IOS-XE-native"
	nativeNS     = "http://cisco.com/ns/yang/Cisco-IOS-XE-native"
)

// initialConfig is the running configuration a fresh device starts with.
func initialConfig(hostname string) []*xmltree.Node {
	iface := func(name, description, address string) *xmltree.Node {
		return xmltree.Elem(nativeNS, "GigabitEthernet",
			xmltree.Leaf(nativeNS, "name", name),
			xmltree.Leaf(nativeNS, "description", description),
			xmltree.Elem(nativeNS, "ip", xmltree.Elem(nativeNS, "address", xmltree.Elem(nativeNS, "primary",
				xmltree.Leaf(nativeNS, "address", address), xmltree.Leaf(nativeNS, "mask", "255.255.255.0")))))
	}
	return []*xmltree.Node{xmltree.Elem(nativeNS, "native",
		xmltree.Leaf(nativeNS, "version", "17.9"),
		xmltree.Leaf(nativeNS, "hostname", hostname),
		xmltree.Elem(nativeNS, "interface",
			iface("1", "uplink to core", "198.18.10.1"),
			iface("2", "lab access", "198.18.20.1"),
			iface("3", "unused", "198.18.30.1")),
	)}
}
