package metrics

import (
	"context"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"strings"
	"time"

	"transportlab/emulator/internal/cryptoprofile"
)

// VersionInfo is the /version document; the benchmark runner stores it with
// every result so numbers can be traced to the software that produced them.
type VersionInfo struct {
	DeviceVersion  string `json:"device_version"`
	Platform       string `json:"platform"`
	Hostname       string `json:"hostname"`
	OpenSSHVersion string `json:"openssh_version"`
	NginxVersion   string `json:"nginx_version"`
	// OpenSSLVersion is the OpenSSL nginx and sshd use ("OpenSSL 3.0.17").
	OpenSSLVersion string `json:"openssl_version"`
	Kernel         string `json:"kernel"`
	GoVersion      string `json:"go_version"`
	// HTTP3 names the server of HTTP/3 on UDP 443 and its version as the
	// build recorded it ("quic-go v0.65.0"); HTTPS on TCP 443 is nginx's.
	HTTP3 string `json:"http3"`
	// GNMI names the gNMI server on TCP 9339: its proto and gRPC modules
	// as the build recorded them ("openconfig/gnmi v0.14.1, grpc-go v1.85.0").
	GNMI string `json:"gnmi"`
	// CryptoProfile and Crypto are the crypto profile of the device the
	// client reached, and its lists as sshd and nginx were configured with
	// them (internal/cryptoprofile).
	CryptoProfile string                  `json:"crypto_profile"`
	Crypto        cryptoprofile.Effective `json:"crypto"`
}

// unknown stands in for a component whose version could not be read.
const unknown = "unknown"

// ProbeVersions asks the installed components for their versions. It runs
// once at start-up: the answers cannot change while the container lives.
func ProbeVersions(deviceVersion, platform, hostname string) VersionInfo {
	return VersionInfo{
		DeviceVersion: deviceVersion,
		Platform:      platform,
		Hostname:      hostname,
		// "ssh -V" prints e.g. "OpenSSH_9.2p1 Debian-2+deb12u3, OpenSSL 3.0.15 3 Sep 2024";
		// sshd shares the client's version and has no reliable flag for it.
		OpenSSHVersion: firstMatch(commandOutput("ssh", "-V"), `OpenSSH_\S+`),
		// "nginx -v" prints "nginx version: nginx/1.22.1".
		NginxVersion: firstMatch(commandOutput("nginx", "-v"), `nginx/\S+`),
		// "openssl version" prints "OpenSSL 3.0.17 1 Jul 2025 (Library: ...)".
		OpenSSLVersion: firstMatch(commandOutput("openssl", "version"), `OpenSSL \S+`),
		Kernel:         kernelRelease(),
		GoVersion:      runtime.Version(),
	}
}

// commandOutput returns stdout and stderr together: both tools print their
// version on stderr.
func commandOutput(name string, args ...string) string {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	out, _ := exec.CommandContext(ctx, name, args...).CombinedOutput()
	return string(out)
}

func firstMatch(text, pattern string) string {
	if m := regexp.MustCompile(pattern).FindString(text); m != "" {
		return strings.TrimSuffix(m, ",")
	}
	return unknown
}

func kernelRelease() string {
	raw, err := os.ReadFile("/proc/sys/kernel/osrelease")
	if err != nil {
		return unknown
	}
	return strings.TrimSpace(string(raw))
}
