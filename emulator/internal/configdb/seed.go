package configdb

import (
	"embed"
	"errors"
	"fmt"
	"strings"

	"transportlab/emulator/internal/netconf/datastore"
	"transportlab/emulator/internal/netconf/xmltree"
)

// seeds holds one seed configuration per platform, seed/PLATFORM.cfg, in
// running-config form: "!" lines are comments, a line without indentation
// is global (and opens the block that indented lines below it belong to).
//
//go:embed seed/*.cfg
var seeds embed.FS

// Seeded returns the configuration store of a device that has just
// started, on a fresh datastore: the native tree with its version and the
// hostname, then the platform's seed configuration applied line by line,
// as a device applies its startup-config, so the seed takes the same
// mapping as every later CLI line.
func Seeded(platform, hostname string) (*Store, error) {
	seed, err := seeds.ReadFile("seed/" + platform + ".cfg")
	if err != nil {
		return nil, fmt.Errorf("no seed configuration for platform %q: %w", platform, err)
	}
	// version has no CLI line (the transcripts print their own), so it is
	// the one leaf that does not come from the seed.
	ds := datastore.New([]*xmltree.Node{native(xmltree.Leaf(NativeNS, "version", "17.9"),
		xmltree.Leaf(NativeNS, "hostname", hostname))})
	s := New(ds, hostname)
	if err := s.applyConfig(string(seed)); err != nil {
		return nil, fmt.Errorf("seed/%s.cfg:%w", platform, err)
	}
	return s, nil
}

// applyConfig applies configuration in running-config form; an error
// names the line ("12: ...").
func (s *Store) applyConfig(config string) error {
	block := ""
	for n, line := range strings.Split(config, "\n") {
		text := strings.TrimSpace(line)
		var err error
		switch {
		case text == "" || strings.HasPrefix(text, "!"):
			continue
		case text == line:
			err = s.Apply("", text)
			block = text
		case block == "":
			err = errors.New("indented line outside a block")
		default:
			err = s.Apply(block, text)
		}
		if err != nil {
			return fmt.Errorf("%d: %w", n+1, err)
		}
	}
	return nil
}

// Datastore is the NETCONF datastore the store keeps its tree in, which
// the NETCONF and RESTCONF servers use directly.
func (s *Store) Datastore() *datastore.Store { return s.ds }
