package main

import (
	"bytes"
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/crownsdev/crowns/upstream/sandbox"
)

func TestConfigReadsRoles(t *testing.T) {
	tests := []struct {
		value string
		want  roles
	}{
		{"", roles{API: true, Bot: true, Scheduler: true}},
		{"api", roles{API: true}},
		{"scheduler", roles{Scheduler: true}},
		{"bot", roles{Bot: true}},
		{" API , Scheduler ", roles{API: true, Scheduler: true}},
		{"api,,bot,", roles{API: true, Bot: true}},
	}
	for _, tt := range tests {
		cfg, _ := loadConfigExpecting(t, map[string]string{"CROWNS_ROLES": tt.value}, "")
		if cfg.Roles != tt.want {
			t.Errorf("CROWNS_ROLES=%q selects %+v, want %+v", tt.value, cfg.Roles, tt.want)
		}
	}
}

// TestServeRejectsAnUnknownRole: a bad CROWNS_ROLES, or one that runs
// nothing (the bot alone without a Discord token), stops serve before it
// touches anything, with exit 2 and one line that names the variable.
func TestServeRejectsAnUnknownRole(t *testing.T) {
	tests := []struct {
		value  string
		reason string
	}{
		{"api,cron", `CROWNS_ROLES lists unknown role "cron" (known: api, bot, scheduler)`},
		{"web", `CROWNS_ROLES lists unknown role "web" (known: api, bot, scheduler)`},
		{",", "CROWNS_ROLES selects no role (known: api, bot, scheduler)"},
		{"bot", "CROWNS_ROLES selects the bot alone, which runs only with CROWNS_DISCORD_TOKEN: without it this process would run no role"},
	}
	for _, tt := range tests {
		dataDir := filepath.Join(t.TempDir(), "data")
		var stdout, stderr bytes.Buffer
		// A serve that wrongly starts ends (and fails) rather than hanging.
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		code := run(ctx, []string{"serve"}, testCLI(&stdout, &stderr, map[string]string{
			"CROWNS_ROLES":    tt.value,
			"CROWNS_DATA_DIR": dataDir,
			"CROWNS_ADDR":     freeAddr(t),
		}))
		cancel()
		want := "crowns: invalid configuration: " + tt.reason + "\n"
		if code != exitUsage || stderr.String() != want || stdout.Len() != 0 {
			t.Errorf("CROWNS_ROLES=%q: exit %d, stdout %q, stderr %q; want exit %d and stderr %q", tt.value, code, stdout.String(), stderr.String(), exitUsage, want)
		}
		if _, err := os.Stat(dataDir); !os.IsNotExist(err) {
			t.Errorf("CROWNS_ROLES=%q: the data dir was created before the configuration was checked (%v)", tt.value, err)
		}
	}
}

// TestServeWithOnlyTheAPIRoleTakesNoSnapshots: a process with roles api
// answers requests but runs no scheduler, so a tracked clan's due slot
// waits for a process that has the scheduler role.
func TestServeWithOnlyTheAPIRoleTakesNoSnapshots(t *testing.T) {
	for _, engine := range commandEngines() {
		t.Run(engine.name, func(t *testing.T) {
			trial, tag := newDueSlotTrial(t, engine.databaseURL(t))
			trial.env["CROWNS_ROLES"] = "api"
			n := startServeAt(t, trial.env, trial.clock)
			auth := "Bearer " + trial.command("keys", "issue", "--discord-user", "42")
			trial.expectSnapshots(n, tag, auth, 1)
			n.stop(t) // every line serve was going to write is written
			for _, line := range []string{"scheduler started", "scheduler tick"} {
				if strings.Contains(n.stderr.String(), line) {
					t.Fatalf("a process with roles api logged %q:\n%s", line, n.stderr.String())
				}
			}
			if count, last := trial.snapshotsOf(tag); count != "1" || last != "2024-06-04-08-00" {
				t.Fatalf("after the api-only process: %s snapshots, last slot %s; want 1, 2024-06-04-08-00", count, last)
			}

			// The same database and clock with the scheduler role: the due
			// slot is taken, so the set-up above could have shown one.
			trial.env["CROWNS_ROLES"] = "api,scheduler"
			n = trial.start("planned=1 stored=1 alreadyStored=0")
			n.stop(t)
			if count, last := trial.snapshotsOf(tag); count != "2" || last != "2024-06-04-12-00" {
				t.Fatalf("after the scheduler: %s snapshots, last slot %s; want 2, 2024-06-04-12-00", count, last)
			}
		})
	}
}

// TestServeWithOnlyTheSchedulerRoleDoesNotListen: a process with roles
// scheduler takes the due snapshots but serves no API: nothing listens on
// CROWNS_ADDR and no welcome key is printed.
func TestServeWithOnlyTheSchedulerRoleDoesNotListen(t *testing.T) {
	for _, engine := range commandEngines() {
		t.Run(engine.name, func(t *testing.T) {
			trial, tag := newDueSlotTrial(t, engine.databaseURL(t))
			trial.env["CROWNS_ROLES"] = "scheduler"
			n := startServeUntil(t, trial.env, trial.clock, `msg="scheduler tick done"`)
			if line := lineContaining(n.stderr.String(), `msg="scheduler tick done"`); !strings.Contains(line, " planned=1 stored=1 alreadyStored=0 missed=0 retried=0 failed=0") {
				t.Fatalf("the scheduler-only process's first tick reported %q, want the due slot stored", line)
			}
			if conn, err := net.DialTimeout("tcp", n.addr, 5*time.Second); err == nil {
				conn.Close()
				t.Fatalf("a process with roles scheduler listens on CROWNS_ADDR %s", n.addr)
			}
			n.stop(t) // every line serve was going to write is written
			if strings.Contains(n.stderr.String(), "API listening") {
				t.Fatalf("a process with roles scheduler started the API:\n%s", n.stderr.String())
			}
			if out := n.stdout.String(); out != "" {
				t.Fatalf("a process with roles scheduler printed:\n%s", out)
			}
			if count, last := trial.snapshotsOf(tag); count != "2" || last != "2024-06-04-12-00" {
				t.Fatalf("after the scheduler-only process: %s snapshots, last slot %s; want 2, 2024-06-04-12-00", count, last)
			}
		})
	}
}

// newDueSlotTrial tracks the sandbox's trackable clan from the CLI on a
// Tuesday at 09:30 (which stores the 08:00 slot), then sets the clock to
// 12:05, when the 12:00 slot is due.
func newDueSlotTrial(t *testing.T, databaseURL string) (*slotTrial, string) {
	t.Helper()
	trial := newSlotTrial(t, databaseURL, time.Date(2024, 6, 4, 9, 30, 0, 0, time.UTC))
	tag := sandbox.NewWorld(sandbox.Config{TrackAddress: defaultTrackAddress}).TrackableClanTags()[0]
	if out := trial.command("clans", "track", tag); !strings.HasSuffix(out, "snapshot of slot 2024-06-04-08-00 stored") {
		t.Fatalf("clans track %s: %q", tag, out)
	}
	trial.clock.Set(time.Date(2024, 6, 4, 12, 5, 0, 0, time.UTC))
	return trial, tag
}

// snapshotsOf is the snapshot count and last slot `crowns clans list`
// shows for tag.
func (s *slotTrial) snapshotsOf(tag string) (count, lastSlot string) {
	s.t.Helper()
	fields := strings.Fields(lineContaining(s.command("clans", "list"), tag))
	if len(fields) != 8 {
		s.t.Fatalf("clans list has no row of 8 fields for %s: %v", tag, fields)
	}
	return fields[5], fields[6]
}
