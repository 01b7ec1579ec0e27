package cryptoprofile

import (
	"crypto/tls"
	"fmt"
	"net"
)

// PerDeviceGroups is base for a server answering every device of a fleet
// on one socket: crypto/tls asks it with the local address the client
// reached (deviceOf names the device owning it, from 1), and it answers
// with that device's crypto profile's groups, groups[k-1] for device k
// (GoGroups: nil for Go's defaults, empty for none, whose handshakes
// fail). The HTTP/3 and gNMI servers share it.
func PerDeviceGroups(base *tls.Config, deviceOf func(local net.Addr) int, groups [][]tls.CurveID) *tls.Config {
	perDevice := base.Clone()
	perDevice.GetConfigForClient = func(hello *tls.ClientHelloInfo) (*tls.Config, error) {
		device := deviceOf(hello.Conn.LocalAddr())
		deviceGroups := groups[device-1]
		switch {
		case deviceGroups == nil:
			return nil, nil // Go's defaults
		case len(deviceGroups) == 0:
			return nil, fmt.Errorf("device %d's crypto profile offers no TLS group Go implements", device)
		}
		c := base.Clone()
		c.CurvePreferences = deviceGroups
		return c, nil
	}
	return perDevice
}
