package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"os/user"
	"strconv"
	"syscall"
	"time"

	"transportlab/emulator/internal/api"
	"transportlab/emulator/internal/configdb"
	"transportlab/emulator/internal/events"
	"transportlab/emulator/internal/metrics"
	"transportlab/emulator/internal/netconf/datastore"
	"transportlab/emulator/internal/restconf"
	"transportlab/emulator/internal/settings"
	"transportlab/emulator/internal/tunnel"
	"transportlab/emulator/internal/version"
)

// runServe runs the device daemon until SIGTERM/SIGINT or a server fails.
func runServe(args []string) int {
	flags := flag.NewFlagSet("device serve", flag.ContinueOnError)
	settingsPath := flags.String("settings", settings.DefaultPath, "device settings file")
	apiSocket := flags.String("api-socket", "/run/device/api.sock", "unix socket for the HTTP API (nginx proxies to it)")
	apiGroup := flags.String("api-socket-group", "", "group allowed to connect to the API socket (nginx workers' group)")
	metricsAddr := flags.String("metrics-listen", ":9100", "address for /metrics, /healthz and /version")
	nginxStatus := flags.String("nginx-status-socket", "/run/device/nginx-status.sock", "unix socket of nginx stub_status")
	cgroupRoot := flags.String("cgroup-root", "/sys/fs/cgroup", "cgroup filesystem of the container")
	tunnelAddr := flags.String("tunnel-listen", "127.0.0.1:8080", "tunnel target HTTP server (loopback: reachable through ssh -L only)")
	if err := flags.Parse(args); err != nil {
		return 2
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, nil)).With("component", "device")
	if err := serve(*settingsPath, *apiSocket, *apiGroup, *metricsAddr, *tunnelAddr, metrics.Sources{
		CgroupRoot: *cgroupRoot, NginxStatusSocket: *nginxStatus,
	}, log); err != nil {
		log.Error("device serve stopped", "err", err)
		return 1
	}
	return 0
}

func serve(settingsPath, apiSocket, apiGroup, metricsAddr, tunnelAddr string, sources metrics.Sources, log *slog.Logger) error {
	creds := api.Credentials{Username: os.Getenv("DEVICE_USERNAME"), Password: os.Getenv("DEVICE_PASSWORD")}
	if creds.Username == "" || creds.Password == "" {
		return errors.New("DEVICE_USERNAME and DEVICE_PASSWORD must be set")
	}
	s, err := settings.Load(settingsPath)
	if err != nil {
		return err
	}
	// One configuration store for every transport: the NETCONF running
	// datastore (also RESTCONF's), seen as CLI lines by the command engine
	// of the HTTPS API here and of SSH shells through the config socket.
	store := datastore.New(initialConfig(s.Hostname, s.Platform))
	config := configdb.New(store, s.Hostname)
	for _, line := range initialCLIConfig(s.Platform) {
		if err := config.Apply(line[0], line[1]); err != nil {
			return fmt.Errorf("initial configuration: %w", err)
		}
	}
	e, err := newEngine(s, config)
	if err != nil {
		return err
	}
	info := metrics.ProbeVersions(version.Version, s.Platform, s.Hostname)
	m := metrics.New(sources, info)

	eventListener, err := events.Listen(s.EventsSocket)
	if err != nil {
		return fmt.Errorf("event socket: %w", err)
	}
	defer eventListener.Close()
	apiListener, err := listenAPISocket(apiSocket, apiGroup)
	if err != nil {
		return fmt.Errorf("API socket: %w", err)
	}
	netconfListener, err := listenShared(s.NetconfSocket)
	if err != nil {
		return fmt.Errorf("NETCONF socket: %w", err)
	}
	defer netconfListener.Close()
	configListener, err := listenShared(s.ConfigSocket)
	if err != nil {
		return fmt.Errorf("config socket: %w", err)
	}
	defer configListener.Close()
	metricsListener, err := net.Listen("tcp", metricsAddr)
	if err != nil {
		return fmt.Errorf("metrics listener: %w", err)
	}
	tunnelListener, err := net.Listen("tcp", tunnelAddr)
	if err != nil {
		return fmt.Errorf("tunnel target listener: %w", err)
	}

	rc := restconf.New(store, map[string]string{configdb.NativeModule: configdb.NativeNS})
	apiServer := &http.Server{Handler: api.NewHandler(e, creds, m, rc), ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout: 120 * time.Second} // longer than nginx's upstream keepalive_timeout
	metricsServer := &http.Server{Handler: m.Handler(info), ReadHeaderTimeout: 10 * time.Second}
	tunnelServer := &http.Server{Handler: tunnel.Handler(), ReadHeaderTimeout: 10 * time.Second}

	failed := make(chan error, 6)
	go func() { failed <- configdb.Serve(configListener, config) }()
	go func() { failed <- tunnelServer.Serve(tunnelListener) }()
	go func() { failed <- newNetconfServer(store, s, m, log).Serve(netconfListener) }()
	go func() { failed <- apiServer.Serve(apiListener) }()
	go func() { failed <- metricsServer.Serve(metricsListener) }()
	go func() { failed <- eventListener.Serve(sshEventHandler(m), m.MalformedEvent) }()
	log.Info("device ready", "hostname", s.Hostname, "platform", s.Platform, "version", version.Version,
		"api_socket", apiSocket, "netconf_socket", s.NetconfSocket, "config_socket", s.ConfigSocket, "netconf_base", s.NetconfBase, "metrics", metricsAddr, "tunnel_target", tunnelAddr)

	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT)
	var result error
	select {
	case sig := <-stop:
		log.Info("shutting down", "signal", sig.String())
	case result = <-failed:
		if result == nil {
			result = errors.New("a server stopped unexpectedly")
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = apiServer.Shutdown(ctx)
	_ = metricsServer.Shutdown(ctx)
	_ = tunnelServer.Close() // streams never finish on their own
	return result
}

// sshEventHandler turns events from SSH shell processes into metrics.
func sshEventHandler(m *metrics.Metrics) func(events.Event) {
	return func(ev events.Event) {
		if ev.Transport != metrics.TransportSSH || ev.PID <= 0 {
			m.MalformedEvent()
			return
		}
		switch ev.Kind {
		case events.SessionOpen:
			m.SSHSessionOpened(ev.PID)
		case events.SessionClose:
			m.SSHSessionClosed(ev.PID)
		case events.Command:
			m.CommandServed(metrics.TransportSSH, ev.Error)
		default:
			m.MalformedEvent()
		}
	}
}

// listenAPISocket creates the API socket, readable and writable by root
// and group only: the SSH user must not reach the API around nginx.
func listenAPISocket(path, group string) (net.Listener, error) {
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, err
	}
	gid := -1
	if group != "" {
		g, err := user.LookupGroup(group)
		if err != nil {
			ln.Close()
			return nil, err
		}
		if gid, err = strconv.Atoi(g.Gid); err != nil {
			ln.Close()
			return nil, err
		}
	}
	if err := os.Chown(path, -1, gid); err != nil {
		ln.Close()
		return nil, err
	}
	if err := os.Chmod(path, 0o660); err != nil {
		ln.Close()
		return nil, err
	}
	return ln, nil
}
