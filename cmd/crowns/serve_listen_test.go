package main

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestServeRefusesATakenPortBeforeStartingAnything: serve binds the API's
// and the metrics' ports before anything else, so with either taken it
// exits 1 with one line naming the address and the variable that set it
// (an operator who meets "address already in use" learns what to change),
// and nothing was started (and
// torn down) meanwhile: no database opened, no role's background work.
func TestServeRefusesATakenPortBeforeStartingAnything(t *testing.T) {
	for _, variable := range []string{"CROWNS_ADDR", "CROWNS_METRICS_ADDR"} {
		t.Run(variable, func(t *testing.T) {
			taken, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			defer taken.Close()
			dataDir := filepath.Join(t.TempDir(), "data")
			env := map[string]string{
				"CROWNS_DATA_DIR":     dataDir,
				"CROWNS_ADDR":         freeAddr(t),
				"CROWNS_METRICS_ADDR": "127.0.0.1:0",
			}
			env[variable] = taken.Addr().String()
			code, stdout, stderr := runCrowns(env, "serve")
			var logged []string
			for line := range strings.Lines(stderr) {
				if strings.HasPrefix(line, "time=") { // past the configuration table
					logged = append(logged, strings.TrimSpace(line))
				}
			}
			if code != exitFailure || stdout != "" || len(logged) != 1 ||
				!strings.Contains(logged[0], `msg="cannot start"`) || !strings.Contains(logged[0], taken.Addr().String()+" ("+variable+")") {
				t.Fatalf("%s taken: exit %d, want %d and one line, cannot start naming %s (%s); stdout %q, log:\n%s",
					variable, code, exitFailure, taken.Addr(), variable, stdout, strings.Join(logged, "\n"))
			}
			if _, err := os.Stat(dataDir); !os.IsNotExist(err) {
				t.Errorf("%s taken: the data dir was created, so the database was opened (%v)", variable, err)
			}
		})
	}
}
