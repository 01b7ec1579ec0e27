package main

import (
	"net/netip"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"

	"transportlab/emulator/internal/api"
	"transportlab/emulator/internal/fleet"
	"transportlab/emulator/internal/metrics"
)

func TestListenUnixReplacesAStaleSocketAndSetsAccess(t *testing.T) {
	path := filepath.Join(t.TempDir(), "api.sock")
	if err := os.WriteFile(path, nil, 0o600); err != nil { // left by an earlier daemon
		t.Fatal(err)
	}
	group, err := user.LookupGroupId(strconv.Itoa(os.Getgid()))
	if err != nil {
		// A missing prerequisite fails under CI rather than passing as a skip.
		if os.Getenv("CI") == "true" {
			t.Fatalf("no name for this process's group: %v", err)
		}
		t.Skipf("SKIPPED, prerequisite missing: no name for this process's group: %v", err)
	}
	ln, err := listenUnix(path, 0o660, group.Name)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode()&os.ModeSocket == 0 || info.Mode().Perm() != 0o660 {
		t.Errorf("mode %v", info.Mode())
	}
	if gid := info.Sys().(*syscall.Stat_t).Gid; strconv.Itoa(int(gid)) != group.Gid {
		t.Errorf("group %d, want %s", gid, group.Gid)
	}
	if _, err := listenUnix(filepath.Join(t.TempDir(), "x.sock"), 0o666, "no-such-group-here"); err == nil {
		t.Error("unknown group accepted")
	}
}

func TestVersionIsForTheDeviceReached(t *testing.T) {
	plan, err := fleet.New("lab-r1", 3, "198.18.117.128/25")
	if err != nil {
		t.Fatal(err)
	}
	devices := api.Fleet{Plan: plan}
	for _, name := range []string{"cisco_iosxe", "modern", "arista_eos"} {
		devices.Devices = append(devices.Devices, api.Device{CryptoProfile: name})
	}
	version := deviceVersion(metrics.VersionInfo{DeviceVersion: "test"}, devices)
	for addr, want := range map[string]string{"198.18.117.130": "modern", "198.18.117.131": "arista_eos",
		"198.18.117.129": "cisco_iosxe", "127.0.0.1": "cisco_iosxe", "": "cisco_iosxe"} {
		local, _ := netip.ParseAddr(addr) // "": the zero Addr, a server that did not record it
		if got := version(local); got.CryptoProfile != want || got.DeviceVersion != "test" {
			t.Errorf("%q: %+v, want %s", addr, got, want)
		}
	}
}
