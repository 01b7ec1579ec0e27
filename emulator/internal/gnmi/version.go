package gnmi

import (
	"runtime/debug"
	"strings"
)

// Software names the gNMI server's proto and gRPC modules as the build
// recorded them (go.mod pins them): "openconfig/gnmi v0.14.1, grpc-go
// v1.85.0".
func Software() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "openconfig/gnmi, grpc-go (no build information)"
	}
	return softwareIn(info)
}

// softwareIn finds both modules among a build's. A test binary records
// none: the device binary's answer is checked in the image
// (tests/integration/device/test_gnmi.py).
func softwareIn(info *debug.BuildInfo) string {
	names := []struct{ module, name string }{
		{"github.com/openconfig/gnmi", "openconfig/gnmi"}, {"google.golang.org/grpc", "grpc-go"}}
	parts := make([]string, len(names))
	for k, n := range names {
		parts[k] = n.name + " (not in the build information)"
		for _, dep := range info.Deps {
			if dep.Path != n.module {
				continue
			}
			if dep.Replace != nil {
				dep = dep.Replace
			}
			parts[k] = n.name + " " + dep.Version
		}
	}
	return strings.Join(parts, ", ")
}
