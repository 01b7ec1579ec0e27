package h3

import "runtime/debug"

const quicGoModule = "github.com/quic-go/quic-go"

// Software names the HTTP/3 server and its version as the build recorded
// it (go.mod pins it): "quic-go v0.65.0".
func Software() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "quic-go (no build information)"
	}
	return softwareIn(info)
}

// softwareIn finds quic-go among a build's modules. A test binary records
// none: the device binary's answer is checked in the image
// (tests/integration/device/test_http3.py).
func softwareIn(info *debug.BuildInfo) string {
	for _, dep := range info.Deps {
		if dep.Path != quicGoModule {
			continue
		}
		if dep.Replace != nil {
			dep = dep.Replace
		}
		return "quic-go " + dep.Version
	}
	return "quic-go (not in the build information)"
}
