package fleet

import (
	"fmt"
	"strconv"
	"strings"
)

// maxHostname is the longest hostname (one DNS label).
const maxHostname = 63

// Hostnames names the devices of a fleet of size from the first device's
// hostname, which the caller has validated. A hostname ending in a number
// n numbers the fleet from there, keeping the number's width (lab-r1 ..
// lab-r100; sw08, sw09, sw10); any other hostname gets "-k" from the
// second device on (core, core-2, core-3). Appending digits to a valid
// hostname keeps it valid except for its length, the one thing checked.
func Hostnames(first string, size int) ([]string, error) {
	names := []string{first}
	if size == 1 {
		return names, nil
	}
	digits := len(first) - len(strings.TrimRight(first, "0123456789"))
	prefix, number := first[:len(first)-digits], first[len(first)-digits:]
	start := 0
	if digits > 0 {
		n, err := strconv.ParseUint(number, 10, 32)
		if err != nil {
			return nil, fmt.Errorf("hostname %q: its number is too large to number a fleet from", first)
		}
		start = int(n)
	}
	for k := 2; k <= size; k++ {
		name := fmt.Sprintf("%s-%d", first, k)
		if digits > 0 {
			name = fmt.Sprintf("%s%0*d", prefix, digits, start+k-1)
		}
		if len(name) > maxHostname {
			return nil, fmt.Errorf("hostname of device %d, %q, is longer than %d characters", k, name, maxHostname)
		}
		names = append(names, name)
	}
	return names, nil
}
