package metrics

import (
	"errors"
	"sync"
	"syscall"

	"github.com/prometheus/client_golang/prometheus"
)

// sshSessions tracks open SSH sessions by the PID of their shell process.
// A shell killed by a dropped connection never sends its close event, so
// sessions whose process is gone are pruned at every scrape.
type sshSessions struct {
	mu     sync.Mutex
	open   map[int]struct{}
	alive  func(pid int) bool
	opened float64
}

func newSSHSessions() *sshSessions {
	return &sshSessions{open: map[int]struct{}{}, alive: processAlive}
}

func (s *sshSessions) add(pid int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, known := s.open[pid]; !known {
		s.open[pid] = struct{}{}
		s.opened++
	}
}

func (s *sshSessions) remove(pid int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.open, pid)
}

// counts prunes dead sessions and returns (open now, opened ever).
func (s *sshSessions) counts() (float64, float64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for pid := range s.open {
		if !s.alive(pid) {
			delete(s.open, pid)
		}
	}
	return float64(len(s.open)), s.opened
}

// processAlive uses signal 0, which checks existence without delivering.
func processAlive(pid int) bool {
	return !errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}

// counterPair counts sessions the daemon serves itself (NETCONF).
type counterPair struct {
	mu           sync.Mutex
	openNow, all float64
}

func (c *counterPair) open() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.openNow++
	c.all++
}

func (c *counterPair) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.openNow--
}

func (c *counterPair) counts() (float64, float64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.openNow, c.all
}

// sessionsCollector reports sessions per transport from their sources: the
// SSH tracker and nginx's connection counters.
type sessionsCollector struct {
	ssh          *sshSessions
	netconf      *counterPair
	nginx        *nginxStatusClient
	open, opened *prometheus.Desc
	nginxErrors  *collectErrors
}

func newSessionsCollector(ssh *sshSessions, netconf *counterPair, nginx *nginxStatusClient) *sessionsCollector {
	return &sessionsCollector{
		ssh:     ssh,
		netconf: netconf,
		nginx:   nginx,
		open: prometheus.NewDesc("device_sessions_open",
			"Open management sessions (SSH: shell sessions; NETCONF: subsystem sessions; HTTPS: client connections to nginx).", []string{"transport"}, nil),
		opened: prometheus.NewDesc("device_sessions_total",
			"Management sessions opened since start.", []string{"transport"}, nil),
		nginxErrors: newCollectErrors("nginx"),
	}
}

func (c *sessionsCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.open
	ch <- c.opened
	ch <- c.nginxErrors.desc
}

func (c *sessionsCollector) Collect(ch chan<- prometheus.Metric) {
	open, opened := c.ssh.counts()
	ch <- prometheus.MustNewConstMetric(c.open, prometheus.GaugeValue, open, "ssh")
	ch <- prometheus.MustNewConstMetric(c.opened, prometheus.CounterValue, opened, "ssh")
	open, opened = c.netconf.counts()
	ch <- prometheus.MustNewConstMetric(c.open, prometheus.GaugeValue, open, TransportNETCONF)
	ch <- prometheus.MustNewConstMetric(c.opened, prometheus.CounterValue, opened, TransportNETCONF)
	status, err := c.nginx.fetch()
	if err != nil {
		c.nginxErrors.failed()
	} else {
		ch <- prometheus.MustNewConstMetric(c.open, prometheus.GaugeValue, status.active, "https")
		ch <- prometheus.MustNewConstMetric(c.opened, prometheus.CounterValue, status.accepted, "https")
	}
	ch <- c.nginxErrors.metric()
}
