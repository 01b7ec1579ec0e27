package configdb

import "transportlab/emulator/internal/netconf/datastore"

// Fleet is the configuration of every emulated device of a container: one
// store, on its own datastore (with its own locks), per device. Device k's
// is element k-1.
type Fleet []*Store

// SeededFleet seeds one store per device, device k named hostnames[k-1],
// each as Seeded seeds the store of a single device.
func SeededFleet(platform string, hostnames []string) (Fleet, error) {
	f := make(Fleet, len(hostnames))
	for k, hostname := range hostnames {
		s, err := Seeded(platform, hostname)
		if err != nil {
			return nil, err
		}
		f[k] = s
	}
	return f, nil
}

// Device is device k's store, if the fleet has device k.
func (f Fleet) Device(k int) (*Store, bool) {
	if k < 1 || k > len(f) {
		return nil, false
	}
	return f[k-1], true
}

// Datastore is device k's NETCONF datastore, if the fleet has device k.
func (f Fleet) Datastore(k int) (*datastore.Store, bool) {
	s, ok := f.Device(k)
	if !ok {
		return nil, false
	}
	return s.Datastore(), true
}
