package main

import (
	"fmt"
	"math"
	"net/netip"
	"os"
	"strconv"
	"strings"
	"time"
)

// envReader reads typed variables and collects what is wrong with them.
type envReader struct {
	getenv   func(string) string
	problems []string
}

func (r *envReader) fail(format string, args ...any) {
	r.problems = append(r.problems, fmt.Sprintf(format, args...))
}

func (r *envReader) check(ok bool, problem string) {
	if !ok {
		r.problems = append(r.problems, problem)
	}
}

// prefixes reads a comma-separated list of addresses and CIDR prefixes
// (an address stands for itself alone); empty by default.
func (r *envReader) prefixes(name string) []netip.Prefix {
	var out []netip.Prefix
	for item := range strings.SplitSeq(r.getenv(name), ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		if addr, err := netip.ParseAddr(item); err == nil {
			out = append(out, netip.PrefixFrom(addr.Unmap(), addr.Unmap().BitLen()))
			continue
		}
		prefix, err := netip.ParsePrefix(item)
		if err == nil && prefix.Addr().Is4In6() {
			// An IPv4 prefix written mapped: addresses are compared unmapped.
			if prefix.Bits() < 96 {
				r.fail("%s: %q: an IPv4 prefix written mapped needs at least /96 (write it as IPv4)", name, item)
				continue
			}
			prefix = netip.PrefixFrom(prefix.Addr().Unmap(), prefix.Bits()-96)
		}
		if err != nil {
			r.fail("%s: %q is neither an address nor a CIDR prefix (like 10.0.0.0/8)", name, item)
			continue
		}
		out = append(out, prefix.Masked())
	}
	return out
}

func (r *envReader) str(name, def string) string {
	if v := strings.TrimSpace(r.getenv(name)); v != "" {
		return v
	}
	return def
}

func (r *envReader) integer(name string, def, min, max int) int {
	raw := strings.TrimSpace(r.getenv(name))
	if raw == "" {
		return def
	}
	n, err := strconv.Atoi(raw)
	if err != nil || n < min || n > max {
		r.fail("%s must be a whole number from %d to %d, got %q", name, min, max, raw)
		return def
	}
	return n
}

func (r *envReader) float(name string, def float64) float64 {
	raw := strings.TrimSpace(r.getenv(name))
	if raw == "" {
		return def
	}
	f, err := strconv.ParseFloat(raw, 64)
	if err != nil {
		r.fail("%s must be a number, got %q", name, raw)
		return def
	}
	if math.IsInf(f, 0) || math.IsNaN(f) {
		r.fail("%s must be a finite number, got %q", name, raw)
		return def
	}
	return f
}

func (r *envReader) duration(name string, def time.Duration) time.Duration {
	raw := strings.TrimSpace(r.getenv(name))
	if raw == "" {
		return def
	}
	d, err := time.ParseDuration(raw)
	if err != nil {
		r.fail("%s must be a duration such as 3m or 10s, got %q", name, raw)
		return def
	}
	return d
}

// secret is the variable name's value, or the content of file (trimmed)
// when that is set instead; setting both is a problem. refused reports a
// problem found here, so that the secret is not also reported missing or
// malformed.
func (r *envReader) secret(name, file string) (value string, refused bool) {
	value = strings.TrimSpace(r.getenv(name))
	if file == "" {
		return value, false
	}
	if value != "" {
		r.fail("set %s or %s_FILE, not both", name, name)
		return value, true
	}
	content, err := os.ReadFile(file)
	if err != nil {
		r.fail("%s_FILE: cannot read the secret: %v", name, err)
		return "", true
	}
	if value = strings.TrimSpace(string(content)); value == "" {
		r.fail("%s_FILE: %s is empty", name, file)
		return "", true
	}
	return value, false
}

// discordID reads a Discord id, the number Discord's Copy Server ID or
// Copy Channel ID gives (a snowflake); empty by default.
func (r *envReader) discordID(name string) string {
	value := strings.TrimSpace(r.getenv(name))
	if _, err := strconv.ParseUint(value, 10, 64); value != "" && err != nil {
		r.fail("%s must be a Discord id, the number Copy Server ID or Copy Channel ID gives (such as 1101234567890123456), got %q", name, value)
	}
	return value
}

func (r *envReader) onOff(name string, def bool) bool {
	switch strings.ToLower(strings.TrimSpace(r.getenv(name))) {
	case "":
		return def
	case "on", "true", "1", "yes":
		return true
	case "off", "false", "0", "no":
		return false
	default:
		r.fail("%s must be on or off, got %q", name, r.getenv(name))
		return def
	}
}

func (r *envReader) oneOf(name, def string, allowed ...string) string {
	v := strings.ToLower(r.str(name, def))
	for _, a := range allowed {
		if v == a {
			return v
		}
	}
	r.fail("%s must be one of %s, got %q", name, strings.Join(allowed, ", "), v)
	return def
}

// logLevel reads CROWNS_LOG_LEVEL, the lowest level logged.
func (r *envReader) logLevel() string {
	return r.oneOf("CROWNS_LOG_LEVEL", "info", "debug", "info", "warn", "error")
}

// logFormat reads CROWNS_LOG_FORMAT, text or json.
func (r *envReader) logFormat() string { return r.oneOf("CROWNS_LOG_FORMAT", "text", "text", "json") }

func (r *envReader) roles(name, def string) roles {
	var out roles
	unknown := false
	for _, part := range strings.Split(r.str(name, def), ",") {
		switch strings.ToLower(strings.TrimSpace(part)) {
		case "api":
			out.API = true
		case "bot":
			out.Bot = true
		case "scheduler":
			out.Scheduler = true
		case "":
		default:
			r.fail("%s lists unknown role %q (known: api, bot, scheduler)", name, part)
			unknown = true
		}
	}
	// A value of unknown roles only has its reason already.
	if !unknown && !out.API && !out.Bot && !out.Scheduler {
		r.fail("%s selects no role (known: api, bot, scheduler)", name)
	}
	return out
}
