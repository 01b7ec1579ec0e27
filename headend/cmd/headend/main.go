// Command headend is the Transport Lab's head-end: automation reaches it over
// HTTPS or HTTP/3 across the WAN, and it runs the commands on the devices
// over SSH across the LAN, on connections dialed per request or pooled.
//
//	headend              serve; configuration from HEADEND_* variables (README.md)
//	headend healthcheck  exit 0 when the API answers GET /healthz over HTTPS on
//	                     HEADEND_LISTEN's port, 1 otherwise (the container's health check)
package main

import (
	"context"
	"crypto/tls"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"transportlab/headend/internal/api"
	"transportlab/headend/internal/config"
	"transportlab/headend/internal/metrics"
	"transportlab/headend/internal/serve"
	"transportlab/headend/internal/sshpool"
	"transportlab/headend/internal/tlscert"
)

const usage = "usage: headend [healthcheck]"

func main() {
	os.Exit(run(os.Args[1:], os.Getenv))
}

func run(args []string, getenv func(string) string) int {
	switch {
	case len(args) == 0:
		return serveAPI(getenv)
	case len(args) == 1 && args[0] == "healthcheck":
		return healthcheck(getenv)
	default:
		fmt.Fprintln(os.Stderr, usage)
		return 2
	}
}

func serveAPI(getenv func(string) string) int {
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	cfg, err := config.Load(getenv)
	if err != nil {
		log.Error("invalid configuration", "error", err)
		return 2
	}
	cert, err := tlscert.Generate()
	if err != nil {
		log.Error("TLS certificate", "error", err)
		return 1
	}
	listeners, err := serve.Listen(cfg.Listen, cfg.MetricsListen)
	if err != nil {
		log.Error("listen", "error", err)
		return 1
	}
	m := metrics.New()
	pool := sshpool.New(sshpool.Config{
		Port:        cfg.SSHPort,
		User:        cfg.DeviceUsername,
		Password:    cfg.DevicePassword,
		DialTimeout: cfg.SSHTimeout,
		MaxIdle:     cfg.PoolIdle,
		Observer:    m,
	})
	handler := api.New(api.Config{
		Username:       cfg.Username,
		Password:       cfg.Password,
		Targets:        cfg.Targets,
		CommandTimeout: cfg.CommandTimeout,
		Runner:         pool,
		Observer:       m,
		Logger:         log,
	})
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	log.Info("starting", "ssh_port", cfg.SSHPort, "ssh_timeout", cfg.SSHTimeout,
		"command_timeout", cfg.CommandTimeout, "pool_idle", cfg.PoolIdle)
	err = serve.Run(ctx, listeners, handler, m.Handler(), cert, log)
	// Only now: requests in flight had their connections until they ended.
	pool.Close()
	if err != nil {
		log.Error("stopped", "error", err)
		return 1
	}
	log.Info("stopped")
	return 0
}

func healthcheck(getenv func(string) string) int {
	addr, err := config.Listen(getenv)
	if err == nil {
		err = check(healthURL(addr))
	}
	if err != nil {
		fmt.Printf("unhealthy: %v\n", err)
		return 1
	}
	fmt.Println("healthy")
	return 0
}

// healthURL is the API's /healthz on loopback, or on the listen address's
// host when it names one.
func healthURL(listen string) string {
	host, port, _ := net.SplitHostPort(listen)
	if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
		host = "127.0.0.1"
	}
	return "https://" + net.JoinHostPort(host, port) + "/healthz"
}

// check asks url for a 200. The certificate is not verified: it is made at
// start, and what matters here is that the API answers.
func check(url string) error {
	client := &http.Client{
		Timeout:   2 * time.Second,
		Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}},
	}
	resp, err := client.Get(url)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: status %d", url, resp.StatusCode)
	}
	return nil
}
