package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"
)

// healthcheckTimeout bounds crowns healthcheck's request, connection
// included.
const healthcheckTimeout = 3 * time.Second

const healthcheckUsageText = `Usage: crowns healthcheck

Asks the server on this machine for GET /healthz at CROWNS_ADDR (default :8080;
an empty, 0.0.0.0 or :: host is asked on 127.0.0.1) and exits 0 when it answers
200 within 3 seconds, 1 otherwise with one line on stderr saying why. It is the
Docker image's HEALTHCHECK (the image has no curl).

Exit status: 0 healthy, 1 not healthy or not answering, 2 bad arguments.
`

// runHealthcheck asks the local server's /healthz.
func runHealthcheck(ctx context.Context, env cli, args []string) int {
	if _, code, done := parseCommand(env, "crowns healthcheck", healthcheckUsageText, args, noArguments("crowns healthcheck")); done {
		return code
	}
	addr := (&envReader{getenv: env.getenv}).str("CROWNS_ADDR", defaultAddr)
	url := "http://" + loopbackHostPort(addr, "127.0.0.1") + "/healthz"
	if err := checkHealth(ctx, url); err != nil {
		commandFailed(env, "crowns healthcheck", err.Error())
		return exitFailure
	}
	fmt.Fprintf(env.stdout, "healthy: %s answered 200\n", url)
	return exitOK
}

// checkHealth GETs url and reports why the answer is not a 200.
func checkHealth(ctx context.Context, url string) error {
	ctx, cancel := context.WithTimeout(ctx, healthcheckTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	client := &http.Client{Transport: &http.Transport{Proxy: nil, DisableKeepAlives: true}}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer func() { _ = resp.Body.Close() }()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s answered %s", url, resp.Status)
	}
	return nil
}

// loopbackHostPort turns a listen address into one a client on this
// machine can reach: an unspecified host (":8080", "0.0.0.0:8080",
// "[::]:8080") becomes loopback. An address without a port is returned as
// it is.
func loopbackHostPort(addr, loopback string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return addr
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		host = loopback
	}
	return net.JoinHostPort(host, port)
}
