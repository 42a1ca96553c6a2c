package main

import (
	"runtime/debug"
	"testing"
)

func TestVersionLine(t *testing.T) {
	vcs := func(modified string) []debug.BuildSetting {
		return []debug.BuildSetting{
			{Key: "-trimpath", Value: "true"},
			{Key: "vcs", Value: "git"},
			{Key: "vcs.revision", Value: "0123456789abcdef0123456789abcdef01234567"},
			{Key: "vcs.time", Value: "2026-11-20T08:30:00Z"},
			{Key: "vcs.modified", Value: modified},
		}
	}
	tests := []struct {
		name   string
		linked string
		info   *debug.BuildInfo
		want   string
	}{
		{"no build information", "", nil, "crowns (devel)"},
		{"linked, no build information", "v1.2.3", nil, "crowns v1.2.3"},
		{"go run", "", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}}, "crowns (devel) go1.26.8"},
		{"go install in a clean clone", "", &debug.BuildInfo{GoVersion: "go1.26.8",
			Main: debug.Module{Version: "v0.0.0-20261120083000-0123456789ab"}, Settings: vcs("false")},
			"crowns v0.0.0-20261120083000-0123456789ab (revision 0123456789abcdef0123456789abcdef01234567, committed 2026-11-20T08:30:00Z) go1.26.8"},
		{"go install with changes", "", &debug.BuildInfo{GoVersion: "go1.26.8",
			Main: debug.Module{Version: "v0.0.0-20261120083000-0123456789ab+dirty"}, Settings: vcs("true")},
			"crowns v0.0.0-20261120083000-0123456789ab+dirty (revision 0123456789abcdef0123456789abcdef01234567, committed 2026-11-20T08:30:00Z, modified) go1.26.8"},
		{"linked beats the module version", "v1.2.3", &debug.BuildInfo{GoVersion: "go1.26.8",
			Main: debug.Module{Version: "v0.0.0-20261120083000-0123456789ab"}, Settings: vcs("false")},
			"crowns v1.2.3 (revision 0123456789abcdef0123456789abcdef01234567, committed 2026-11-20T08:30:00Z) go1.26.8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := versionLine(tt.linked, tt.info); got != tt.want {
				t.Fatalf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}
