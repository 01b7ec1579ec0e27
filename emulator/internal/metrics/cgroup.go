package metrics

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
)

// cgroupCollector reports the whole container's CPU time and memory, which
// is what a transport costs the device (sshd, nginx and the device daemon
// together), read from the container's own cgroup at scrape time.
type cgroupCollector struct {
	root        string // usually /sys/fs/cgroup
	cpu, memory *prometheus.Desc
	errors      *collectErrors
}

func newCgroupCollector(root string) *cgroupCollector {
	return &cgroupCollector{
		root: root,
		cpu: prometheus.NewDesc("device_container_cpu_seconds_total",
			"CPU time consumed by all processes of the device container (cgroup).", nil, nil),
		memory: prometheus.NewDesc("device_container_memory_bytes",
			"Memory charged to the device container (cgroup), page cache included.", nil, nil),
		errors: newCollectErrors("cgroup"),
	}
}

func (c *cgroupCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.cpu
	ch <- c.memory
	ch <- c.errors.desc
}

func (c *cgroupCollector) Collect(ch chan<- prometheus.Metric) {
	if seconds, ok := c.cpuSeconds(); ok {
		ch <- prometheus.MustNewConstMetric(c.cpu, prometheus.CounterValue, seconds)
	} else {
		c.errors.failed()
	}
	if bytes, ok := c.memoryBytes(); ok {
		ch <- prometheus.MustNewConstMetric(c.memory, prometheus.GaugeValue, bytes)
	} else {
		c.errors.failed()
	}
	ch <- c.errors.metric()
}

// cpuSeconds reads cgroup v2 cpu.stat usage_usec, falling back to the v1
// cpuacct.usage (nanoseconds) for hosts still on cgroup v1.
func (c *cgroupCollector) cpuSeconds() (float64, bool) {
	if stat, err := os.ReadFile(filepath.Join(c.root, "cpu.stat")); err == nil {
		for _, line := range strings.Split(string(stat), "\n") {
			if value, found := strings.CutPrefix(line, "usage_usec "); found {
				usec, err := strconv.ParseFloat(strings.TrimSpace(value), 64)
				return usec / 1e6, err == nil
			}
		}
	}
	for _, dir := range []string{"cpuacct", "cpu,cpuacct"} {
		if ns, ok := readNumber(filepath.Join(c.root, dir, "cpuacct.usage")); ok {
			return ns / 1e9, true
		}
	}
	return 0, false
}

// memoryBytes reads cgroup v2 memory.current or v1 memory.usage_in_bytes.
func (c *cgroupCollector) memoryBytes() (float64, bool) {
	if bytes, ok := readNumber(filepath.Join(c.root, "memory.current")); ok {
		return bytes, true
	}
	return readNumber(filepath.Join(c.root, "memory", "memory.usage_in_bytes"))
}

func readNumber(path string) (float64, bool) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(string(raw)), 64)
	return v, err == nil
}
