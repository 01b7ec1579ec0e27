package main

import (
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"os"
	"os/signal"
	"os/user"
	"runtime"
	"strconv"
	"sync"
	"syscall"
	"time"

	"transportlab/emulator/internal/api"
	"transportlab/emulator/internal/configdb"
	"transportlab/emulator/internal/cryptoprofile"
	"transportlab/emulator/internal/events"
	"transportlab/emulator/internal/gnmi"
	"transportlab/emulator/internal/h3"
	"transportlab/emulator/internal/metrics"
	"transportlab/emulator/internal/netconf/subsystem"
	"transportlab/emulator/internal/restconf"
	"transportlab/emulator/internal/settings"
	"transportlab/emulator/internal/tunnel"
	"transportlab/emulator/internal/version"
)

// serveOptions are the daemon's flags: where it listens and what it reads.
type serveOptions struct {
	settingsPath string
	apiSocket    string
	// apiGroup may connect to the API socket (nginx workers' group).
	apiGroup    string
	metricsAddr string
	tunnelAddr  string
	// http3Addr is the UDP address of HTTP/3, with the certificate nginx
	// serves.
	http3Addr string
	// gnmiAddr is the TCP address of gNMI, with the same certificate.
	gnmiAddr       string
	tlsCertificate string
	tlsKey         string
	sources        metrics.Sources
	log            *slog.Logger
}

// runServe runs the device daemon until SIGTERM/SIGINT or a server fails.
func runServe(args []string) int {
	flags := flag.NewFlagSet("device serve", flag.ContinueOnError)
	var o serveOptions
	flags.StringVar(&o.settingsPath, "settings", settings.DefaultPath, "device settings file")
	flags.StringVar(&o.apiSocket, "api-socket", "/run/device/api.sock", "unix socket for the HTTP API (nginx proxies to it)")
	flags.StringVar(&o.apiGroup, "api-socket-group", "", "group allowed to connect to the API socket (nginx workers' group)")
	flags.StringVar(&o.metricsAddr, "metrics-listen", ":9100", "address for /metrics, /healthz and /version")
	flags.StringVar(&o.sources.NginxStatusSocket, "nginx-status-socket", "/run/device/nginx-status.sock", "unix socket of nginx stub_status")
	flags.StringVar(&o.sources.CgroupRoot, "cgroup-root", "/sys/fs/cgroup", "cgroup filesystem of the container")
	flags.StringVar(&o.tunnelAddr, "tunnel-listen", "127.0.0.1:8080", "tunnel target HTTP server (loopback: reachable through ssh -L only)")
	flags.StringVar(&o.http3Addr, "http3-listen", "0.0.0.0:443", "UDP address for HTTP/3 (the wildcard: every device of the fleet)")
	flags.StringVar(&o.gnmiAddr, "gnmi-listen", "0.0.0.0:9339", "TCP address for gNMI (the wildcard: every device of the fleet)")
	flags.StringVar(&o.tlsCertificate, "tls-cert", "/var/lib/device/tls/cert.pem", "TLS certificate (nginx's)")
	flags.StringVar(&o.tlsKey, "tls-key", "/var/lib/device/tls/key.pem", "TLS private key (nginx's)")
	if err := flags.Parse(args); err != nil {
		return 2
	}
	o.log = slog.New(slog.NewTextHandler(os.Stderr, nil)).With("component", "device")
	if err := serve(o); err != nil {
		o.log.Error("device serve stopped", "err", err)
		return 1
	}
	return 0
}

func serve(o serveOptions) error {
	creds := api.Credentials{Username: os.Getenv("DEVICE_USERNAME"), Password: os.Getenv("DEVICE_PASSWORD")}
	if creds.Username == "" || creds.Password == "" {
		return errors.New("DEVICE_USERNAME and DEVICE_PASSWORD must be set")
	}
	s, err := settings.Load(o.settingsPath)
	if err != nil {
		return err
	}
	// One configuration store per emulated device, shared by every
	// transport: the device's NETCONF running datastore (also RESTCONF's),
	// seen as CLI lines by the command engine of the HTTPS API here and of
	// SSH shells through the config socket. One engine serves them all.
	var names []string
	for _, d := range s.Fleet.Devices() {
		names = append(names, d.Name)
	}
	configs, err := configdb.SeededFleet(s.Platform, names)
	if err != nil {
		return err
	}
	// NETCONF's interface counters grow from the boot time the CLI uses.
	for _, config := range configs {
		config.SetBootTime(s.StartedAt)
	}
	e, err := newEngine(s, configs[0])
	if err != nil {
		return err
	}
	info := metrics.ProbeVersions(version.Version, s.Platform, s.Hostname)
	info.HTTP3 = h3.Software()
	info.GNMI = gnmi.Software()
	m := metrics.New(o.sources, info, names)

	eventListener, err := events.Listen(s.EventsSocket)
	if err != nil {
		return fmt.Errorf("event socket: %w", err)
	}
	defer eventListener.Close()
	// Root and nginx's group only: the SSH user must not reach the API
	// around nginx.
	apiListener, err := listenUnix(o.apiSocket, 0o660, o.apiGroup)
	if err != nil {
		return fmt.Errorf("API socket: %w", err)
	}
	// Every local user: the SSH account reaches the NETCONF subsystem and
	// configuration mode anyway.
	netconfListener, err := listenUnix(s.NetconfSocket, 0o666, "")
	if err != nil {
		return fmt.Errorf("NETCONF socket: %w", err)
	}
	defer netconfListener.Close()
	configListener, err := listenUnix(s.ConfigSocket, 0o666, "")
	if err != nil {
		return fmt.Errorf("config socket: %w", err)
	}
	defer configListener.Close()
	metricsListener, err := net.Listen("tcp", o.metricsAddr)
	if err != nil {
		return fmt.Errorf("metrics listener: %w", err)
	}
	tunnelListener, err := net.Listen("tcp", o.tunnelAddr)
	if err != nil {
		return fmt.Errorf("tunnel target listener: %w", err)
	}
	certificate, err := tls.LoadX509KeyPair(o.tlsCertificate, o.tlsKey)
	if err != nil {
		return fmt.Errorf("TLS certificate for HTTP/3 and gNMI: %w", err)
	}
	// IPv4 only, as nginx's listen 443.
	http3Addr, err := net.ResolveUDPAddr("udp4", o.http3Addr)
	if err != nil {
		return fmt.Errorf("HTTP/3 address: %w", err)
	}
	http3Conn, err := net.ListenUDP("udp4", http3Addr)
	if err != nil {
		return fmt.Errorf("HTTP/3 listener: %w", err)
	}
	defer http3Conn.Close()
	gnmiListener, err := net.Listen("tcp4", o.gnmiAddr)
	if err != nil {
		return fmt.Errorf("gNMI listener: %w", err)
	}
	defer gnmiListener.Close()

	devices := api.Fleet{Platform: s.Platform, Plan: s.Fleet}
	builds := cryptoprofile.Builds{OpenSSH: info.OpenSSHVersion, OpenSSL: info.OpenSSLVersion, Nginx: info.NginxVersion,
		HTTP3: info.HTTP3, GNMI: info.GNMI, GoTLS: runtime.Version() + " crypto/tls"}
	var groups [][]tls.CurveID
	for k, config := range configs {
		profile := s.Crypto[k]
		devices.Devices = append(devices.Devices, api.Device{Config: config,
			RESTCONF:      restconf.New(config.Datastore(), map[string]string{configdb.NativeModule: configdb.NativeNS}),
			CryptoProfile: profile.Name, Crypto: profile.Effective(builds)})
		_, ids := cryptoprofile.GoGroups(profile.TLS.Groups)
		groups = append(groups, ids)
	}
	apiHandler, err := api.NewHandler(e, creds, m, devices)
	if err != nil {
		return err
	}
	http3Server, err := h3.New(h3.Options{Handler: apiHandler, Certificate: certificate, Plan: s.Fleet, Groups: groups,
		Recorder: m, Log: o.log.With("server", "http3")})
	if err != nil {
		return err
	}
	gnmiServer, err := gnmi.New(gnmi.Options{Platform: s.Platform, Stores: configs, Plan: s.Fleet, Credentials: creds,
		Certificate: certificate, Groups: groups, Recorder: m, Log: o.log.With("server", "gnmi")})
	if err != nil {
		return err
	}
	apiServer := &http.Server{Handler: apiHandler, ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout: 120 * time.Second} // longer than nginx's upstream keepalive_timeout
	metricsServer := &http.Server{Handler: m.Handler(deviceVersion(info, devices)), ReadHeaderTimeout: 10 * time.Second}
	tunnelServer := &http.Server{Handler: tunnel.Handler(), ReadHeaderTimeout: 10 * time.Second}

	failed := make(chan error, 8)
	go func() { failed <- configdb.Serve(configListener, configs) }()
	go func() { failed <- tunnelServer.Serve(tunnelListener) }()
	go func() {
		failed <- subsystem.NewServer(configs, s.NetconfBase == "1.1", m, o.log).Serve(netconfListener)
	}()
	go func() { failed <- apiServer.Serve(apiListener) }()
	go func() { failed <- http3Server.Serve(http3Conn) }()
	go func() { failed <- gnmiServer.Serve(gnmiListener) }()
	go func() { failed <- metricsServer.Serve(metricsListener) }()
	go func() { failed <- eventListener.Serve(sshEventHandler(m, s.Fleet.Size()), m.MalformedEvent) }()
	o.log.Info("device ready", "hostname", s.Hostname, "fleet_size", s.Fleet.Size(), "fleet_addresses", s.FleetAddresses,
		"platform", s.Platform, "version", version.Version,
		"api_socket", o.apiSocket, "netconf_socket", s.NetconfSocket, "config_socket", s.ConfigSocket, "netconf_base", s.NetconfBase, "metrics", o.metricsAddr, "tunnel_target", o.tunnelAddr,
		"http3", o.http3Addr+"/udp", "http3_server", info.HTTP3, "gnmi", o.gnmiAddr+"/tcp", "gnmi_server", info.GNMI)

	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT)
	var result error
	select {
	case sig := <-stop:
		o.log.Info("shutting down", "signal", sig.String())
	case result = <-failed:
		if result == nil {
			result = errors.New("a server stopped unexpectedly")
		}
	}
	// Side by side, so the whole stop takes at most 5 s: an HTTP/3 client
	// that keeps its connection after GOAWAY holds its server that long, a
	// gNMI call in progress likewise (subscriptions are ended at once).
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var stopping sync.WaitGroup
	for _, shutdown := range []func(context.Context) error{apiServer.Shutdown, http3Server.Shutdown, gnmiServer.Shutdown,
		metricsServer.Shutdown} {
		stopping.Go(func() { _ = shutdown(ctx) })
	}
	stopping.Wait()
	_ = tunnelServer.Close() // streams never finish on their own
	return result
}

// deviceVersion is the /version document for a client that reached the
// local address: the device's versions and the crypto profile of the
// device of the fleet owning that address.
func deviceVersion(info metrics.VersionInfo, devices api.Fleet) func(netip.Addr) metrics.VersionInfo {
	return func(local netip.Addr) metrics.VersionInfo {
		state := devices.Devices[devices.Plan.ForAddress(local).Index-1]
		info.CryptoProfile, info.Crypto = state.CryptoProfile, state.Crypto
		return info
	}
}

// sshEventHandler turns events from SSH shell processes on the devices of
// a fleet of fleetSize into metrics.
func sshEventHandler(m *metrics.Metrics, fleetSize int) func(events.Event) {
	return func(ev events.Event) {
		if ev.Transport != metrics.TransportSSH || ev.PID <= 0 || ev.Device < 1 || ev.Device > fleetSize {
			m.MalformedEvent()
			return
		}
		switch ev.Kind {
		case events.SessionOpen:
			m.SSHSessionOpened(ev.PID, ev.Device)
		case events.SessionClose:
			m.SSHSessionClosed(ev.PID)
		case events.Command:
			m.CommandServed(metrics.TransportSSH, ev.Device, ev.Error)
		default:
			m.MalformedEvent()
		}
	}
}

// listenUnix creates a unix socket with mode perm, in group when one is
// named, replacing one left by an earlier daemon.
func listenUnix(path string, perm os.FileMode, group string) (net.Listener, error) {
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, err
	}
	if err := setOwnership(path, perm, group); err != nil {
		ln.Close()
		return nil, err
	}
	return ln, nil
}

func setOwnership(path string, perm os.FileMode, group string) error {
	if group != "" {
		g, err := user.LookupGroup(group)
		if err != nil {
			return err
		}
		gid, err := strconv.Atoi(g.Gid)
		if err != nil {
			return err
		}
		if err := os.Chown(path, -1, gid); err != nil {
			return err
		}
	}
	return os.Chmod(path, perm)
}
