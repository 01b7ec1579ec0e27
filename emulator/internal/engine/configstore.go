package engine

import (
	"strings"
	"sync"
)

// ConfigStore holds the device configuration that configuration mode edits
// and "show running-config" shows. The device daemon owns the real one
// (shared with NETCONF and RESTCONF); SSH shells reach it over a socket.
// Implementations must be safe for concurrent use.
type ConfigStore interface {
	// Hostname is the current hostname. A store that cannot be reached
	// answers with the last hostname it knew.
	Hostname() string
	// Apply records one configuration line. block is "" for a global line
	// (including "hostname NAME", "no X" and a sub-mode header such as
	// "interface Loopback0"), otherwise the header of the sub-mode the line
	// was entered in. The error text is shown to the user after "% ".
	Apply(block, line string) error
	// Lines renders the configuration that the running-config transcript
	// shows at its end (sub-mode lines indented by one space).
	Lines() ([]string, error)
}

// memoryStore remembers configuration in memory only (like an unsaved
// running-config). It is the store of an engine built without one.
type memoryStore struct {
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

// NewMemoryStore starts an in-memory store with the given hostname.
func NewMemoryStore(hostname string) ConfigStore {
	return &memoryStore{hostname: hostname}
}

func (c *memoryStore) Hostname() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.hostname
}

func (c *memoryStore) Apply(block, line string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if block == "" {
		if name, ok := strings.CutPrefix(line, "hostname "); ok {
			c.hostname = name
			return nil
		}
		c.blocks = applyLine(c.blocks, line)
		return nil
	}
	i := findBlock(c.blocks, block)
	if i < 0 {
		c.blocks = append(c.blocks, configBlock{header: block})
		i = len(c.blocks) - 1
	}
	c.blocks[i].lines = append(c.blocks[i].lines, line)
	return nil
}

func (c *memoryStore) Lines() ([]string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return renderBlocks(c.blocks), nil
}

// applyLine records a top-level line in blocks. Entering the same line
// twice keeps one copy; "no X" removes a recorded "X", or is itself
// recorded when there is nothing to remove (e.g. "no ip domain lookup"
// disables a default).
func applyLine(blocks []configBlock, line string) []configBlock {
	if target, negated := strings.CutPrefix(line, "no "); negated {
		if i := findBlock(blocks, target); i >= 0 {
			return append(blocks[:i], blocks[i+1:]...)
		}
	}
	if findBlock(blocks, line) < 0 {
		blocks = append(blocks, configBlock{header: line})
	}
	return blocks
}

// renderBlocks renders blocks in running-config form.
func renderBlocks(blocks []configBlock) []string {
	var lines []string
	for _, b := range blocks {
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

func findBlock(blocks []configBlock, header string) int {
	for i, b := range blocks {
		if strings.EqualFold(b.header, header) {
			return i
		}
	}
	return -1
}
