package config

import (
	"strings"
	"testing"
	"time"
)

func env(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func required() map[string]string {
	return map[string]string{
		"HEADEND_USERNAME":        "automation",
		"HEADEND_PASSWORD":        "s3cret",
		"HEADEND_DEVICE_USERNAME": "labops",
		"HEADEND_DEVICE_PASSWORD": "device-pw",
		"HEADEND_TARGETS":         "device,198.18.100.128/25",
	}
}

func TestDefaults(t *testing.T) {
	c, err := Load(env(required()))
	if err != nil {
		t.Fatal(err)
	}
	if c.SSHPort != 22 || c.Listen != ":443" || c.MetricsListen != ":9102" ||
		c.SSHTimeout != 10*time.Second || c.CommandTimeout != 30*time.Second || c.PoolIdle != 8 {
		t.Fatalf("defaults: %+v", c)
	}
	if c.Username != "automation" || c.DevicePassword != "device-pw" {
		t.Fatalf("credentials not read: %+v", c)
	}
	if !c.Targets.Allows("device") || !c.Targets.Allows("198.18.100.200") || c.Targets.Allows("198.18.100.1") {
		t.Fatal("HEADEND_TARGETS not applied")
	}
}

func TestOverrides(t *testing.T) {
	m := required()
	m["HEADEND_SSH_PORT"] = "2222"
	m["HEADEND_LISTEN"] = "127.0.0.1:0"
	m["HEADEND_METRICS_LISTEN"] = "127.0.0.1:9999"
	m["HEADEND_SSH_TIMEOUT"] = "1500ms"
	m["HEADEND_COMMAND_TIMEOUT"] = "1m"
	m["HEADEND_POOL_IDLE"] = "0"
	c, err := Load(env(m))
	if err != nil {
		t.Fatal(err)
	}
	if c.SSHPort != 2222 || c.Listen != "127.0.0.1:0" || c.MetricsListen != "127.0.0.1:9999" ||
		c.SSHTimeout != 1500*time.Millisecond || c.CommandTimeout != time.Minute || c.PoolIdle != 0 {
		t.Fatalf("overrides: %+v", c)
	}
}

// TestErrorsNameTheVariable: every bad or missing variable is reported, by name.
func TestErrorsNameTheVariable(t *testing.T) {
	bad := map[string]string{
		"HEADEND_TARGETS":         "device,2001:db8::/32",
		"HEADEND_SSH_PORT":        "0",
		"HEADEND_LISTEN":          "443",
		"HEADEND_METRICS_LISTEN":  ":http",
		"HEADEND_SSH_TIMEOUT":     "-1s",
		"HEADEND_COMMAND_TIMEOUT": "soon",
		"HEADEND_POOL_IDLE":       "-2",
	}
	_, err := Load(env(bad))
	if err == nil {
		t.Fatal("no error")
	}
	names := []string{"HEADEND_USERNAME", "HEADEND_PASSWORD", "HEADEND_DEVICE_USERNAME", "HEADEND_DEVICE_PASSWORD"}
	for name := range bad {
		names = append(names, name)
	}
	for _, name := range names {
		if !strings.Contains(err.Error(), name+":") {
			t.Errorf("error does not name %s:\n%v", name, err)
		}
	}
}

func TestListen(t *testing.T) {
	if addr, err := Listen(env(nil)); err != nil || addr != DefaultListen {
		t.Fatalf("Listen() = %q, %v", addr, err)
	}
	if _, err := Listen(env(map[string]string{"HEADEND_LISTEN": "x"})); err == nil ||
		!strings.Contains(err.Error(), "HEADEND_LISTEN") {
		t.Fatalf("Listen(x): %v", err)
	}
}
