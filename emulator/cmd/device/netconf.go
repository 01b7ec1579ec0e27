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

	"transportlab/emulator/internal/configdb"
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

// listenShared creates a socket every local user may reach: the SSH
// account reaches the NETCONF subsystem and configuration mode anyway.
func listenShared(path string) (net.Listener, error) {
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

// initialConfig is the running configuration a fresh device starts with:
// for cisco_iosxe the interfaces its running-config transcript used to
// show, now held (and rendered) by the configuration store; other
// platforms keep their interfaces in their transcripts.
func initialConfig(hostname, platform string) []*xmltree.Node {
	ns := configdb.NativeNS
	iface := func(kind, name, description, address, mask string) *xmltree.Node {
		n := xmltree.Elem(ns, kind, xmltree.Leaf(ns, "name", name))
		if description != "" {
			n.Children = append(n.Children, xmltree.Leaf(ns, "description", description))
		}
		n.Children = append(n.Children, xmltree.Elem(ns, "ip", xmltree.Elem(ns, "address", xmltree.Elem(ns, "primary",
			xmltree.Leaf(ns, "address", address), xmltree.Leaf(ns, "mask", mask)))))
		return n
	}
	native := xmltree.Elem(ns, "native", xmltree.Leaf(ns, "version", "17.9"), xmltree.Leaf(ns, "hostname", hostname))
	if platform == defaultPlatform {
		native.Children = append(native.Children, xmltree.Elem(ns, "interface",
			iface("Loopback", "0", "Router ID", "198.19.255.1", "255.255.255.255"),
			iface("GigabitEthernet", "1", "Link to WAN emulator (lab transport under test)", "198.18.0.2", "255.255.255.252"),
			iface("GigabitEthernet", "2", "Lab LAN A", "198.18.10.1", "255.255.255.0"),
			iface("GigabitEthernet", "3", "Lab LAN B", "198.18.20.1", "255.255.255.0"),
			iface("VirtualPortGroup", "0", "", "198.19.35.1", "255.255.255.0")))
	}
	return []*xmltree.Node{native}
}

// initialCLIConfig are the {block, line} pairs of the initial
// configuration that have no place in the tree (see configdb).
func initialCLIConfig(platform string) [][2]string {
	if platform != defaultPlatform {
		return nil
	}
	var lines [][2]string
	for _, block := range []string{"interface GigabitEthernet1", "interface GigabitEthernet2", "interface GigabitEthernet3"} {
		lines = append(lines, [2]string{block, "negotiation auto"})
	}
	for _, block := range []string{"interface GigabitEthernet1", "interface GigabitEthernet2", "interface GigabitEthernet3",
		"interface VirtualPortGroup0"} {
		lines = append(lines, [2]string{block, "no mop enabled"}, [2]string{block, "no mop sysid"})
	}
	return lines
}
