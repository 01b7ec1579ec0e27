package metrics

import (
	"errors"
	"sync"
	"syscall"

	"github.com/prometheus/client_golang/prometheus"
)

// perDevice holds one count per emulated device (device k at k-1); a
// device outside the fleet is counted in no element.
type perDevice []float64

func (p perDevice) add(device int, v float64) {
	if device >= 1 && device <= len(p) {
		p[device-1] += v
	}
}

func (p perDevice) sum() float64 {
	total := 0.0
	for _, v := range p {
		total += v
	}
	return total
}

// sshSessions tracks open SSH sessions by the PID of their shell process,
// with the device each is on. A shell killed by a dropped connection never
// sends its close event, so sessions whose process is gone are pruned at
// every scrape.
type sshSessions struct {
	mu     sync.Mutex
	open   map[int]int // pid -> device
	alive  func(pid int) bool
	opened float64
	// openedOn counts opened sessions per device.
	openedOn perDevice
}

func newSSHSessions(devices int) *sshSessions {
	return &sshSessions{open: map[int]int{}, alive: processAlive, openedOn: make(perDevice, devices)}
}

func (s *sshSessions) add(pid, device int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, known := s.open[pid]; !known {
		s.open[pid] = device
		s.opened++
		s.openedOn.add(device, 1)
	}
}

func (s *sshSessions) remove(pid int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.open, pid)
}

// counts prunes dead sessions and returns the sessions open now (in all,
// and per device) and opened ever (in all, and per device).
func (s *sshSessions) counts() (open float64, openOn perDevice, opened float64, openedOn perDevice) {
	s.mu.Lock()
	defer s.mu.Unlock()
	openOn = make(perDevice, len(s.openedOn))
	for pid, device := range s.open {
		if !s.alive(pid) {
			delete(s.open, pid)
			continue
		}
		openOn.add(device, 1)
	}
	return float64(len(s.open)), openOn, s.opened, append(perDevice(nil), s.openedOn...)
}

// processAlive uses signal 0, which checks existence without delivering.
func processAlive(pid int) bool {
	return !errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}

// deviceSessions counts sessions the daemon serves itself (NETCONF, HTTP/3
// connections), per device.
type deviceSessions struct {
	mu             sync.Mutex
	openNow, total perDevice
}

func newDeviceSessions(devices int) *deviceSessions {
	return &deviceSessions{openNow: make(perDevice, devices), total: make(perDevice, devices)}
}

func (c *deviceSessions) open(device int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.openNow.add(device, 1)
	c.total.add(device, 1)
}

func (c *deviceSessions) close(device int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.openNow.add(device, -1)
}

func (c *deviceSessions) counts() (openOn, openedOn perDevice) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append(perDevice(nil), c.openNow...), append(perDevice(nil), c.total...)
}

// sessionsCollector reports sessions per transport from their sources: the
// SSH tracker, the NETCONF and HTTP/3 counts and nginx's connection
// counters; and per device where the source knows the device (SSH,
// NETCONF, HTTP/3; nginx's counters are the server's).
type sessionsCollector struct {
	ssh                      *sshSessions
	netconf, http3           *deviceSessions
	nginx                    *nginxStatusClient
	devices                  []string
	open, opened             *prometheus.Desc
	deviceOpen, deviceOpened *prometheus.Desc
	nginxErrors              *collectErrors
}

func newSessionsCollector(ssh *sshSessions, netconf, http3 *deviceSessions, nginx *nginxStatusClient, devices []string) *sessionsCollector {
	return &sessionsCollector{
		ssh:     ssh,
		netconf: netconf,
		http3:   http3,
		nginx:   nginx,
		devices: devices,
		open: prometheus.NewDesc("device_sessions_open",
			"Open management sessions (SSH: shell sessions; NETCONF: subsystem sessions; HTTPS: client connections to nginx; HTTP/3: QUIC connections).", []string{"transport"}, nil),
		opened: prometheus.NewDesc("device_sessions_total",
			"Management sessions opened since start.", []string{"transport"}, nil),
		deviceOpen: prometheus.NewDesc("device_fleet_sessions_open",
			"Open SSH, NETCONF and HTTP/3 sessions per emulated device of the fleet.", []string{"transport", "device"}, nil),
		deviceOpened: prometheus.NewDesc("device_fleet_sessions_total",
			"SSH, NETCONF and HTTP/3 sessions opened since start per emulated device of the fleet.", []string{"transport", "device"}, nil),
		nginxErrors: newCollectErrors("nginx"),
	}
}

func (c *sessionsCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.open
	ch <- c.opened
	ch <- c.deviceOpen
	ch <- c.deviceOpened
	ch <- c.nginxErrors.desc
}

func (c *sessionsCollector) Collect(ch chan<- prometheus.Metric) {
	open, openOn, opened, openedOn := c.ssh.counts()
	ch <- prometheus.MustNewConstMetric(c.open, prometheus.GaugeValue, open, TransportSSH)
	ch <- prometheus.MustNewConstMetric(c.opened, prometheus.CounterValue, opened, TransportSSH)
	c.perDevice(ch, TransportSSH, openOn, openedOn)
	openOn, openedOn = c.netconf.counts()
	ch <- prometheus.MustNewConstMetric(c.open, prometheus.GaugeValue, openOn.sum(), TransportNETCONF)
	ch <- prometheus.MustNewConstMetric(c.opened, prometheus.CounterValue, openedOn.sum(), TransportNETCONF)
	c.perDevice(ch, TransportNETCONF, openOn, openedOn)
	openOn, openedOn = c.http3.counts()
	ch <- prometheus.MustNewConstMetric(c.open, prometheus.GaugeValue, openOn.sum(), TransportHTTP3)
	ch <- prometheus.MustNewConstMetric(c.opened, prometheus.CounterValue, openedOn.sum(), TransportHTTP3)
	c.perDevice(ch, TransportHTTP3, openOn, openedOn)
	status, err := c.nginx.fetch()
	if err != nil {
		c.nginxErrors.failed()
	} else {
		ch <- prometheus.MustNewConstMetric(c.open, prometheus.GaugeValue, status.active, TransportHTTPS)
		ch <- prometheus.MustNewConstMetric(c.opened, prometheus.CounterValue, status.accepted, TransportHTTPS)
	}
	ch <- c.nginxErrors.metric()
}

func (c *sessionsCollector) perDevice(ch chan<- prometheus.Metric, transport string, openOn, openedOn perDevice) {
	for k, name := range c.devices {
		ch <- prometheus.MustNewConstMetric(c.deviceOpen, prometheus.GaugeValue, openOn[k], transport, name)
		ch <- prometheus.MustNewConstMetric(c.deviceOpened, prometheus.CounterValue, openedOn[k], transport, name)
	}
}
