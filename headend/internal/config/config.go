// Package config reads the head-end's settings from its environment and
// checks all of them at start, so a mistake stops it at once with an error
// naming the variable rather than failing the first request.
package config

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"time"

	"transportlab/headend/internal/targets"
)

// Config is the head-end's validated configuration.
type Config struct {
	// Username and Password are the API's Basic auth credentials.
	Username, Password string
	// DeviceUsername and DevicePassword are the SSH login to the devices.
	DeviceUsername, DevicePassword string
	Targets                        targets.List
	SSHPort                        int
	// Listen is the TCP (HTTPS) and UDP (HTTP/3) address.
	Listen         string
	MetricsListen  string
	SSHTimeout     time.Duration
	CommandTimeout time.Duration
	PoolIdle       int
}

// DefaultListen is where the API listens when HEADEND_LISTEN is unset.
const DefaultListen = ":443"

// Load reads the configuration through getenv (os.Getenv in production) and
// returns every problem found, one per variable.
func Load(getenv func(string) string) (Config, error) {
	var c Config
	var errs []error
	required := func(name string) string {
		v := getenv(name)
		if v == "" {
			errs = append(errs, fmt.Errorf("%s: required", name))
		}
		return v
	}
	c.Username = required("HEADEND_USERNAME")
	c.Password = required("HEADEND_PASSWORD")
	c.DeviceUsername = required("HEADEND_DEVICE_USERNAME")
	c.DevicePassword = required("HEADEND_DEVICE_PASSWORD")
	if v := required("HEADEND_TARGETS"); v != "" {
		list, err := targets.Parse(v)
		if err != nil {
			errs = append(errs, fmt.Errorf("HEADEND_TARGETS: %w", err))
		}
		c.Targets = list
	}

	var err error
	if c.SSHPort, err = port(or(getenv("HEADEND_SSH_PORT"), "22"), false); err != nil {
		errs = append(errs, fmt.Errorf("HEADEND_SSH_PORT: %w", err))
	}
	if c.Listen, err = Listen(getenv); err != nil {
		errs = append(errs, err)
	}
	c.MetricsListen = or(getenv("HEADEND_METRICS_LISTEN"), ":9102")
	if err := checkAddress(c.MetricsListen); err != nil {
		errs = append(errs, fmt.Errorf("HEADEND_METRICS_LISTEN: %w", err))
	}
	if c.SSHTimeout, err = duration(or(getenv("HEADEND_SSH_TIMEOUT"), "10s")); err != nil {
		errs = append(errs, fmt.Errorf("HEADEND_SSH_TIMEOUT: %w", err))
	}
	if c.CommandTimeout, err = duration(or(getenv("HEADEND_COMMAND_TIMEOUT"), "30s")); err != nil {
		errs = append(errs, fmt.Errorf("HEADEND_COMMAND_TIMEOUT: %w", err))
	}
	idle := or(getenv("HEADEND_POOL_IDLE"), "8")
	if c.PoolIdle, err = strconv.Atoi(idle); err != nil || c.PoolIdle < 0 {
		errs = append(errs, fmt.Errorf("HEADEND_POOL_IDLE: %q is not a whole number ≥ 0", idle))
	}
	return c, errors.Join(errs...)
}

// Listen is HEADEND_LISTEN, checked; the health check needs only this one.
func Listen(getenv func(string) string) (string, error) {
	addr := or(getenv("HEADEND_LISTEN"), DefaultListen)
	if err := checkAddress(addr); err != nil {
		return "", fmt.Errorf("HEADEND_LISTEN: %w", err)
	}
	return addr, nil
}

func or(v, fallback string) string {
	if v == "" {
		return fallback
	}
	return v
}

// checkAddress accepts host:port with a port in 0..65535 (0: any free port).
func checkAddress(addr string) error {
	_, p, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("%q is not host:port (e.g. :443)", addr)
	}
	_, err = port(p, true)
	return err
}

func port(s string, zeroAllowed bool) (int, error) {
	p, err := strconv.Atoi(s)
	low := 1
	if zeroAllowed {
		low = 0
	}
	if err != nil || p < low || p > 65535 {
		return 0, fmt.Errorf("%q is not a port number (%d..65535)", s, low)
	}
	return p, nil
}

func duration(s string) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("%q is not a positive duration (e.g. 10s)", s)
	}
	return d, nil
}
