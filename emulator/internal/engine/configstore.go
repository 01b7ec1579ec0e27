package engine

import (
	"strings"
	"sync"
)

// configStore remembers configuration entered in config mode, in memory only
// (like an unsaved running-config). One store is shared by every session of
// an Engine, so it is safe for concurrent use.
type configStore struct {
	mu       sync.Mutex
	hostname string
	blocks   []configBlock
}

// configBlock is a top-level line and the sub-mode lines under it, e.g.
// "interface Loopback0" with " ip address 10.0.0.1 255.255.255.255".
type configBlock struct {
	header string
	lines  []string
}

// newConfigStore starts with the device's configured hostname.
func newConfigStore(hostname string) *configStore {
	return &configStore{hostname: hostname}
}

// Hostname is the current hostname (it changes with "hostname NAME").
func (c *configStore) Hostname() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.hostname
}

// SetHostname applies "hostname NAME".
func (c *configStore) SetHostname(name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.hostname = name
}

// Apply records a top-level line. Entering the same line twice keeps one
// copy; "no X" removes a recorded "X", or is itself recorded when there is
// nothing to remove (e.g. "no ip domain lookup" disables a default).
func (c *configStore) Apply(line string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if target, negated := strings.CutPrefix(line, "no "); negated {
		if i := c.find(target); i >= 0 {
			c.blocks = append(c.blocks[:i], c.blocks[i+1:]...)
			return
		}
	}
	if c.find(line) < 0 {
		c.blocks = append(c.blocks, configBlock{header: line})
	}
}

// ApplySub records a line entered in the sub-mode opened by header.
func (c *configStore) ApplySub(header, line string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	i := c.find(header)
	if i < 0 {
		c.blocks = append(c.blocks, configBlock{header: header})
		i = len(c.blocks) - 1
	}
	c.blocks[i].lines = append(c.blocks[i].lines, line)
}

// Lines renders the recorded configuration in running-config form.
func (c *configStore) Lines() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var lines []string
	for _, b := range c.blocks {
		lines = append(lines, b.header)
		if len(b.lines) == 0 {
			continue
		}
		for _, l := range b.lines {
			lines = append(lines, " "+l)
		}
		lines = append(lines, "!")
	}
	return lines
}

func (c *configStore) find(header string) int {
	for i, b := range c.blocks {
		if strings.EqualFold(b.header, header) {
			return i
		}
	}
	return -1
}
