package cryptoprofile

import (
	"fmt"
	"strconv"
	"strings"
)

// Assign gives each of the size devices of a fleet its profile (device k
// at k-1): the one fleetSpec names for it, else deviceProfile when set,
// else the platform's own. fleetSpec (DEVICE_FLEET_CRYPTO) is a
// comma-separated list of "<k>:<profile>" or "<first>-<last>:<profile>"
// items; every index must lie in 1..size and belong to one item only.
func Assign(platform string, size int, deviceProfile, fleetSpec string) ([]Profile, error) {
	base, err := deviceDefault(platform, deviceProfile)
	if err != nil {
		return nil, err
	}
	assigned := make([]Profile, size)
	for k := range assigned {
		assigned[k] = base
	}
	if fleetSpec == "" {
		return assigned, nil
	}
	owner := make([]int, size) // item number that set device k+1, 0 for none
	for n, item := range strings.Split(fleetSpec, ",") {
		first, last, profile, err := parseItem(item, size)
		if err != nil {
			return nil, fmt.Errorf("DEVICE_FLEET_CRYPTO item %d %q: %w", n+1, item, err)
		}
		for k := first; k <= last; k++ {
			if owner[k-1] != 0 {
				return nil, fmt.Errorf("DEVICE_FLEET_CRYPTO item %d %q: device %d already has a profile from item %d",
					n+1, item, k, owner[k-1])
			}
			owner[k-1] = n + 1
			assigned[k-1] = profile
		}
	}
	return assigned, nil
}

// deviceDefault is the profile of every device no fleet item names.
func deviceDefault(platform, deviceProfile string) (Profile, error) {
	if deviceProfile != "" {
		p, ok := Lookup(deviceProfile)
		if !ok {
			return Profile{}, fmt.Errorf("DEVICE_CRYPTO_PROFILE: %w", unknown(deviceProfile))
		}
		return p, nil
	}
	p, ok := Lookup(platform)
	if !ok {
		return Profile{}, fmt.Errorf("platform %q has no crypto profile of its own: set DEVICE_CRYPTO_PROFILE (%s)",
			platform, strings.Join(Names(), ", "))
	}
	return p, nil
}

// parseItem reads "<k>:<profile>" or "<first>-<last>:<profile>".
func parseItem(item string, size int) (first, last int, p Profile, err error) {
	indexes, name, found := strings.Cut(item, ":")
	if !found {
		return 0, 0, Profile{}, fmt.Errorf("want <device>:<profile> or <first>-<last>:<profile>")
	}
	p, ok := Lookup(name)
	if !ok {
		return 0, 0, Profile{}, unknown(name)
	}
	from, to, isRange := strings.Cut(indexes, "-")
	if first, err = deviceIndex(from, size); err != nil {
		return 0, 0, Profile{}, err
	}
	last = first
	if isRange {
		if last, err = deviceIndex(to, size); err != nil {
			return 0, 0, Profile{}, err
		}
		if last < first {
			return 0, 0, Profile{}, fmt.Errorf("range %d-%d runs backwards", first, last)
		}
	}
	return first, last, p, nil
}

// deviceIndex reads a device number of a fleet of size: 1..size, digits only.
func deviceIndex(text string, size int) (int, error) {
	if text == "" || strings.TrimLeft(text, "0123456789") != "" {
		return 0, fmt.Errorf("%q is not a device number", text)
	}
	k, err := strconv.Atoi(text)
	if err != nil || k < 1 || k > size {
		return 0, fmt.Errorf("device %s is not in the fleet of %d", text, size)
	}
	return k, nil
}
