package main

import (
	"flag"
	"fmt"
	"os"
	"time"

	"transportlab/emulator/internal/health"
)

// runHealthcheck prints one line and exits 0 when sshd, nginx (through to
// the API), the HTTP/3 server (likewise), the gNMI server (Capabilities,
// with the device account of the container's environment) and the metrics
// endpoint all answer, 1 otherwise.
func runHealthcheck(args []string) int {
	flags := flag.NewFlagSet("device healthcheck", flag.ContinueOnError)
	var t health.Targets
	flags.StringVar(&t.SSHAddr, "ssh", "127.0.0.1:22", "sshd address")
	flags.StringVar(&t.HTTPSURL, "https", "https://127.0.0.1/healthz", "health URL served through nginx")
	flags.StringVar(&t.HTTP3URL, "http3", "https://127.0.0.1/healthz", "health URL served over HTTP/3 (UDP)")
	flags.StringVar(&t.GNMIAddr, "gnmi", "127.0.0.1:9339", "gNMI address (TCP)")
	flags.StringVar(&t.MetricsURL, "metrics", "http://127.0.0.1:9100/healthz", "metrics health URL")
	timeout := flags.Duration("timeout", 3*time.Second, "timeout per probe")
	if err := flags.Parse(args); err != nil {
		return 2
	}
	t.GNMIUsername, t.GNMIPassword = os.Getenv("DEVICE_USERNAME"), os.Getenv("DEVICE_PASSWORD")
	if err := health.Check(t, *timeout); err != nil {
		fmt.Printf("unhealthy: %v\n", err)
		return 1
	}
	fmt.Println("healthy: ssh, https, http3, gnmi, metrics answer")
	return 0
}
