// Package metrics owns the device's Prometheus metrics and the :9100 HTTP
// endpoints (/metrics, /healthz, /version).
package metrics

import (
	"strconv"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// Transport label values.
const (
	TransportSSH     = "ssh"
	TransportHTTPS   = "https"
	TransportNETCONF = "netconf"
	// TransportHTTP3 is the API over HTTP/3, served by the daemon itself.
	TransportHTTP3 = "http3"
)

// Sources tell the collectors where to read container and nginx state.
type Sources struct {
	CgroupRoot        string // e.g. /sys/fs/cgroup
	NginxStatusSocket string // unix socket serving nginx stub_status
}

// Metrics records what the device serves. Its methods are safe for
// concurrent use.
type Metrics struct {
	registry      *prometheus.Registry
	devices       []string
	ssh           *sshSessions
	netconf       *deviceSessions
	http3Sessions *deviceSessions
	http3         http3Counters
	gnmi          gnmiCounters
	commands      *prometheus.CounterVec
	deviceCmds    *prometheus.CounterVec
	commandErrors *prometheus.CounterVec
	apiRequests   *prometheus.CounterVec
	authFailures  *prometheus.CounterVec
	badEvents     prometheus.Counter
}

// New registers every device metric on a fresh registry. devices names
// the emulated devices of the fleet (device k at k-1, at most
// fleet.MaxSize): the "device" label of the per-device series.
func New(src Sources, info VersionInfo, devices []string) *Metrics {
	m := &Metrics{
		registry: prometheus.NewRegistry(),
		devices:  devices,
		ssh:      newSSHSessions(len(devices)),
		netconf:  newDeviceSessions(len(devices)),
		// QUIC connections of the HTTP/3 server, per device it was reached on.
		http3Sessions: newDeviceSessions(len(devices)),
		http3:         newHTTP3Counters(),
		gnmi:          newGNMICounters(),
		commands: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "device_commands_total", Help: "Commands executed, per transport.",
		}, []string{"transport"}),
		deviceCmds: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "device_fleet_commands_total", Help: "Commands executed, per transport and emulated device of the fleet.",
		}, []string{"transport", "device"}),
		commandErrors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "device_command_errors_total", Help: "Commands rejected (invalid, ambiguous, incomplete), per transport.",
		}, []string{"transport", "kind"}),
		apiRequests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "device_api_requests_total", Help: "HTTP API requests answered, per route and status code.",
		}, []string{"route", "code"}),
		authFailures: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "device_auth_failures_total", Help: "Requests rejected for bad credentials, per transport.",
		}, []string{"transport"}),
		badEvents: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "device_events_malformed_total", Help: "Undecodable datagrams on the SSH event socket.",
		}),
	}
	buildInfo := prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "device_build_info", Help: "Device emulator identity; always 1.",
		ConstLabels: prometheus.Labels{"version": info.DeviceVersion, "platform": info.Platform, "hostname": info.Hostname},
	})
	buildInfo.Set(1)
	fleetSize := prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "device_fleet_size", Help: "Emulated devices this container presents.",
	})
	fleetSize.Set(float64(len(devices)))
	m.registry.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		m.commands, m.deviceCmds, m.commandErrors, m.apiRequests, m.authFailures, m.badEvents, buildInfo, fleetSize,
		m.http3.requests, m.http3.handshakes,
		newCgroupCollector(src.CgroupRoot),
		newSessionsCollector(m.ssh, m.netconf, m.http3Sessions, newNginxStatusClient(src.NginxStatusSocket), devices),
	)
	m.registry.MustRegister(m.gnmi.collectors()...)
	for _, transport := range []string{TransportSSH, TransportHTTPS, TransportNETCONF, TransportHTTP3} {
		m.commands.WithLabelValues(transport) // export zeros before the first command
		for _, name := range devices {
			m.deviceCmds.WithLabelValues(transport, name)
		}
	}
	return m
}

// CommandServed counts one executed command on device (the fleet index);
// errorKind is empty on success.
func (m *Metrics) CommandServed(transport string, device int, errorKind string) {
	m.commands.WithLabelValues(transport).Inc()
	if device >= 1 && device <= len(m.devices) {
		m.deviceCmds.WithLabelValues(transport, m.devices[device-1]).Inc()
	}
	if errorKind != "" {
		m.commandErrors.WithLabelValues(transport, errorKind).Inc()
	}
}

// APIRequest counts one answered HTTP API request.
func (m *Metrics) APIRequest(route string, code int) {
	m.apiRequests.WithLabelValues(route, strconv.Itoa(code)).Inc()
}

// AuthFailed counts a request rejected for bad credentials.
func (m *Metrics) AuthFailed(transport string) {
	m.authFailures.WithLabelValues(transport).Inc()
}

// SSHSessionOpened records a shell session on device, identified by its
// process.
func (m *Metrics) SSHSessionOpened(pid, device int) { m.ssh.add(pid, device) }

// SSHSessionClosed records the end of a shell session.
func (m *Metrics) SSHSessionClosed(pid int) { m.ssh.remove(pid) }

// NetconfSessionOpened records a NETCONF session on device served by the
// daemon.
func (m *Metrics) NetconfSessionOpened(device int) { m.netconf.open(device) }

// NetconfSessionClosed records the end of a NETCONF session on device.
func (m *Metrics) NetconfSessionClosed(device int) { m.netconf.close(device) }

// MalformedEvent counts an undecodable event datagram.
func (m *Metrics) MalformedEvent() { m.badEvents.Inc() }
