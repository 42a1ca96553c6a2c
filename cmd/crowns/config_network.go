package main

import (
	"net"
	"net/url"
	"strconv"
	"strings"
)

// validListenAddr reports whether addr is host:port with a numeric port
// from 0 to 65535 (host may be empty: every interface).
func validListenAddr(addr string) bool {
	host, port, err := net.SplitHostPort(addr)
	if err != nil || strings.ContainsAny(host, " \t") {
		return false
	}
	n, err := strconv.Atoi(port)
	return err == nil && n >= 0 && n <= 65535 && port == strconv.Itoa(n)
}

// tokenInClear reports whether a game-API token would be sent to upstream
// unencrypted across a network: plain http:// to a host other than the
// loopback (a local sandbox or proxy is fine).
func tokenInClear(upstream *url.URL, token string) bool {
	return token != "" && upstream.Scheme == "http" && !loopbackHost(upstream.Hostname())
}

// loopbackHost reports whether host names this machine: localhost or a
// loopback address.
func loopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") || strings.HasSuffix(strings.ToLower(host), ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// hasControlCharacter reports whether s holds a character an HTTP header
// value cannot (a control character other than tab).
func hasControlCharacter(s string) bool {
	return strings.ContainsFunc(s, func(c rune) bool { return (c < ' ' && c != '\t') || c == 0x7f })
}
