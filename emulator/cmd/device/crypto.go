package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"transportlab/emulator/internal/serverconf"
	"transportlab/emulator/internal/settings"
)

// cryptoOptions are the flags of `device crypto`.
type cryptoOptions struct {
	settingsPath string
	dir          string
	sshdShared   string
	nginxShared  string
	// nginxVersion is `nginx -v`'s output; empty to ask nginx.
	nginxVersion string
	// nonlocalBind is the sysctl that lets an sshd bind a fleet address
	// before the netem sidecar puts it on the interface.
	nonlocalBind string
}

// runCrypto writes the sshd configuration of every crypto profile in use
// and nginx's server blocks into -dir, and prints the sshd configurations'
// paths, one a line: the entrypoint starts one sshd for each.
func runCrypto(args []string) int {
	flags := flag.NewFlagSet("device crypto", flag.ContinueOnError)
	var o cryptoOptions
	flags.StringVar(&o.settingsPath, "settings", settings.DefaultPath, "device settings file")
	flags.StringVar(&o.dir, "dir", "/run/device/crypto", "directory for the generated configuration")
	flags.StringVar(&o.sshdShared, "sshd-shared", "/etc/ssh/sshd_config", "sshd settings every profile's sshd includes")
	flags.StringVar(&o.nginxShared, "nginx-shared", "/etc/nginx/device-server.conf", "nginx settings every server block includes")
	flags.StringVar(&o.nginxVersion, "nginx-version", "", "`nginx -v` output (default: run nginx -v)")
	flags.StringVar(&o.nonlocalBind, "nonlocal-bind-sysctl", "/proc/sys/net/ipv4/ip_nonlocal_bind", "sysctl checked when profiles differ")
	if err := flags.Parse(args); err != nil {
		return 2
	}
	paths, err := writeCryptoConfig(o)
	if err != nil {
		fmt.Fprintf(os.Stderr, "device crypto: %v\n", err)
		return 1
	}
	for _, path := range paths {
		fmt.Println(path)
	}
	return 0
}

func writeCryptoConfig(o cryptoOptions) ([]string, error) {
	s, err := settings.Load(o.settingsPath)
	if err != nil {
		return nil, err
	}
	local, err := localAddresses()
	if err != nil {
		return nil, err
	}
	groups, err := serverconf.Groups(s.Fleet, s.Crypto, local)
	if err != nil {
		return nil, err
	}
	if len(groups) > 1 {
		// Each sshd binds its devices' addresses, which netem adds only once
		// the device is healthy.
		raw, err := os.ReadFile(o.nonlocalBind)
		if err != nil || strings.TrimSpace(string(raw)) != "1" {
			return nil, fmt.Errorf("devices with different crypto profiles need an sshd each, bound to their " +
				"addresses before the netem sidecar adds them: run the device with the sysctl " +
				"net.ipv4.ip_nonlocal_bind=1 (compose.yaml sets it)")
		}
	}
	if o.nginxVersion == "" {
		o.nginxVersion = versionOutput("nginx", "-v")
	}
	http2Directive, err := serverconf.HTTP2Directive(o.nginxVersion)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(o.dir, 0o755); err != nil {
		return nil, err
	}
	var paths []string
	for _, g := range groups {
		path := filepath.Join(o.dir, "sshd-"+g.Profile.Name+".conf")
		config := serverconf.SSHD(g, serverconf.SSHDOptions{
			PidFile: filepath.Join(o.dir, "sshd-"+g.Profile.Name+".pid"), Shared: o.sshdShared})
		if err := os.WriteFile(path, []byte(config), 0o644); err != nil {
			return nil, err
		}
		paths = append(paths, path)
	}
	nginx := serverconf.Nginx(groups, serverconf.NginxOptions{HTTP2Directive: http2Directive, Shared: o.nginxShared})
	if err := os.WriteFile(filepath.Join(o.dir, "nginx-servers.conf"), []byte(nginx), 0o644); err != nil {
		return nil, err
	}
	return paths, nil
}

// localAddresses are the container's own addresses at start.
func localAddresses() ([]netip.Addr, error) {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return nil, err
	}
	var out []netip.Addr
	for _, a := range addrs {
		prefix, err := netip.ParsePrefix(a.String())
		if err != nil {
			return nil, errors.Join(fmt.Errorf("interface address %s", a), err)
		}
		out = append(out, prefix.Addr())
	}
	return out, nil
}

// versionOutput is a tool's version banner (nginx prints it on stderr).
func versionOutput(name string, args ...string) string {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	out, _ := exec.CommandContext(ctx, name, args...).CombinedOutput()
	return string(out)
}
