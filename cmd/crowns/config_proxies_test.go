package main

import (
	"net/netip"
	"slices"
	"testing"
)

func TestTrustedProxiesSetting(t *testing.T) {
	tests := []struct {
		name    string
		value   string
		want    []netip.Prefix
		problem string
	}{
		{"none by default", "", nil, ""},
		{"prefixes and addresses", " 10.0.0.0/8, 192.0.2.7 ,::1,::ffff:198.51.100.1, 2001:db8::/32", []netip.Prefix{
			netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("192.0.2.7/32"), netip.MustParsePrefix("::1/128"),
			netip.MustParsePrefix("198.51.100.1/32"), netip.MustParsePrefix("2001:db8::/32"),
		}, ""},
		{"a prefix with host bits", "10.1.2.3/8", []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}, ""},
		{"an IPv4 prefix written mapped", "::ffff:10.0.0.0/104", []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}, ""},
		{"a mapped prefix wider than IPv4", "::ffff:0.0.0.0/90", nil, `CROWNS_TRUSTED_PROXIES: "::ffff:0.0.0.0/90": an IPv4 prefix written mapped needs at least /96 (write it as IPv4)`},
		{"neither", "10.0.0/8", nil, `CROWNS_TRUSTED_PROXIES: "10.0.0/8" is neither an address nor a CIDR prefix (like 10.0.0.0/8)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, ok := loadConfigExpecting(t, map[string]string{"CROWNS_TRUSTED_PROXIES": tt.value}, tt.problem)
			if !ok {
				return
			}
			if !slices.Equal(cfg.TrustedProxies, tt.want) {
				t.Fatalf("trusted proxies %v, want %v", cfg.TrustedProxies, tt.want)
			}
		})
	}
}
