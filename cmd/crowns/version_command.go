package main

import (
	"context"
	"fmt"
	"runtime/debug"
	"strings"
)

const versionUsageText = `Usage: crowns version

Prints the release this binary was built from: the version set at link time
(go build -ldflags "-X main.version=v1.2.3", as the Dockerfile does), else the
module version Go recorded, with the revision, its time and whether the work
tree had changes, when the build recorded them. crowns --version is the same.

Exit status: 0 printed, 2 bad arguments.
`

// runVersion prints the release.
func runVersion(_ context.Context, env cli, args []string) int {
	if _, code, done := parseCommand(env, "crowns version", versionUsageText, args, noArguments("crowns version")); done {
		return code
	}
	info, _ := debug.ReadBuildInfo()
	fmt.Fprintln(env.stdout, versionLine(version, info))
	return exitOK
}

// versionLine is crowns version's line: "crowns", the release — linked,
// else the main module's version, else "(devel)" — and, when the build
// recorded them, the VCS revision, its commit time and "modified" for a
// work tree with changes, then the Go release. info may be nil (no build
// information).
func versionLine(linked string, info *debug.BuildInfo) string {
	release := linked
	if release == "" && info != nil {
		release = info.Main.Version
	}
	if release == "" {
		release = "(devel)"
	}
	var vcs []string
	if info != nil {
		settings := map[string]string{}
		for _, s := range info.Settings {
			settings[s.Key] = s.Value
		}
		if rev := settings["vcs.revision"]; rev != "" {
			vcs = append(vcs, "revision "+rev)
		}
		if at := settings["vcs.time"]; at != "" {
			vcs = append(vcs, "committed "+at)
		}
		if settings["vcs.modified"] == "true" {
			vcs = append(vcs, "modified")
		}
	}
	line := "crowns " + release
	if len(vcs) > 0 {
		line += " (" + strings.Join(vcs, ", ") + ")"
	}
	if info != nil && info.GoVersion != "" {
		line += " " + info.GoVersion
	}
	return line
}
