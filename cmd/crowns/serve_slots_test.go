package main

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/crownsdev/crowns/models"
)

var loggedTrackableClan = regexp.MustCompile(`trackableClan=([0289CGJLPQRUVY]+)`)

// TestServeTakesOneSnapshotPerSlotAcrossRestarts is a new user's trial of
// clan tracking: start crowns serve, track the clan the start-up log
// names, switch weekly collection on from the CLI, then restart the
// service across slot boundaries (and twice within one slot) on a test
// clock: every slot has exactly one snapshot.
func TestServeTakesOneSnapshotPerSlotAcrossRestarts(t *testing.T) {
	for _, engine := range commandEngines() {
		t.Run(engine.name, func(t *testing.T) {
			trial := newSlotTrial(t, engine.databaseURL(t), time.Date(2024, 6, 3, 22, 30, 0, 0, time.UTC)) // a Monday
			n := trial.start("planned=0 stored=0 alreadyStored=0")
			match := loggedTrackableClan.FindStringSubmatch(n.stderr.String())
			if match == nil {
				t.Fatalf("the start-up log names no trackable clan:\n%s", n.stderr.String())
			}
			tag := match[1]
			auth := "Bearer " + trial.command("keys", "issue", "--discord-user", "42")

			var tracked struct {
				Success bool `json:"success"`
			}
			if code := getJSON(t, n.url("/clan/"+tag+"/track"), auth, &tracked); code != http.StatusOK || !tracked.Success {
				t.Fatalf("track %s: %d %+v", tag, code, tracked)
			}
			trial.expectSnapshots(n, tag, auth, 1) // the track request's 20:00 slot
			if code := getJSON(t, n.url("/clan/"+tag+"/history/weekly"), auth, nil); code != http.StatusExpectationFailed {
				t.Fatalf("weekly history before weekly collection: %d, want 417", code)
			}
			if out := trial.command("clans", "weekly", tag, "on"); out != "weekly: collection for "+tag+" is now on" {
				t.Fatalf("clans weekly on: %q", out)
			}

			steps := []struct {
				at time.Time
				// tick is what the first tick after the restart did.
				tick      string
				snapshots int64
			}{
				// The weekly 23:00 slot; the track request took the 20:00
				// one (and recorded its job as done).
				{time.Date(2024, 6, 3, 23, 1, 0, 0, time.UTC), "planned=1 stored=1 alreadyStored=0", 2},
				{time.Date(2024, 6, 4, 0, 5, 0, 0, time.UTC), "planned=1 stored=1 alreadyStored=0", 3},
				// Again within the 00:00 slot: nothing to plan or take.
				{time.Date(2024, 6, 4, 0, 6, 0, 0, time.UTC), "planned=0 stored=0 alreadyStored=0", 3},
				{time.Date(2024, 6, 4, 4, 2, 0, 0, time.UTC), "planned=1 stored=1 alreadyStored=0", 4},
			}
			for _, step := range steps {
				n.stop(t)
				trial.clock.Set(step.at)
				n = trial.start(step.tick)
				trial.expectSnapshots(n, tag, auth, step.snapshots)
			}

			trial.expectHistory(n, "/clan/"+tag+"/history?days=1", auth, "2024-06-03-20-00", "2024-06-04-00-00", "2024-06-04-04-00")
			trial.expectHistory(n, "/clan/"+tag+"/history/weekly?days=1", auth, "2024-06-03-23-00")
			// The line ends with weekly, snapshots, last slot, legible.
			list := lineContaining(trial.command("clans", "list"), tag)
			if fields := strings.Fields(list); len(fields) < 4 || strings.Join(fields[len(fields)-4:], " ") != "on 4 2024-06-04-04-00 yes" {
				t.Fatalf("clans list line %q, want weekly on, 4 snapshots, last slot 2024-06-04-04-00, legible", list)
			}
		})
	}
}

// slotTrial runs crowns serve and crowns commands on one database and one
// manual clock.
type slotTrial struct {
	t     *testing.T
	env   map[string]string
	clock *models.ManualClock
}

func newSlotTrial(t *testing.T, databaseURL string, start time.Time) *slotTrial {
	// DEBUG shows when the scheduler has finished a tick.
	env := useDatabase(map[string]string{"CROWNS_DATA_DIR": t.TempDir(), "CROWNS_LOG_LEVEL": "debug"}, databaseURL)
	return &slotTrial{t: t, env: env, clock: models.NewManualClock(start)}
}

// start runs crowns serve at the clock's time and waits until its
// scheduler has finished its first tick, which must report tick (planned,
// stored and alreadyStored counts) and no missed, retried or failed job.
func (s *slotTrial) start(tick string) *servingNode {
	s.t.Helper()
	n := startServeAt(s.t, s.env, s.clock)
	waitForLog(s.t, n.stderr, `msg="scheduler tick done"`)
	line := lineContaining(n.stderr.String(), `msg="scheduler tick done"`)
	if !strings.Contains(line, " "+tick+" missed=0 retried=0 failed=0") {
		s.t.Fatalf("at %s the first tick reported %q, want %s and no missed, retried or failed job\n%s", s.clock.Now(), line, tick, n.stderr.String())
	}
	return n
}

// command runs a crowns command at the clock's time and returns its
// output, trimmed.
func (s *slotTrial) command(args ...string) string {
	s.t.Helper()
	stdout, stderr := newWatchedBuffer(""), newWatchedBuffer("")
	if code := run(context.Background(), args, cli{getenv: func(name string) string { return s.env[name] }, stdout: stdout, stderr: stderr, clock: s.clock}); code != exitOK {
		s.t.Fatalf("crowns %s: exit %d:\n%s", strings.Join(args, " "), code, stderr.String())
	}
	return strings.TrimSpace(stdout.String())
}

// expectSnapshots checks the tracking status of tag: tracked, with
// count snapshots.
func (s *slotTrial) expectSnapshots(n *servingNode, tag, auth string, count int64) {
	s.t.Helper()
	var status models.ClanTracking
	if code := getJSON(s.t, n.url("/clan/"+tag+"/tracking"), auth, &status); code != http.StatusOK {
		s.t.Fatalf("tracking of %s: %d", tag, code)
	}
	if !status.Active || !status.Available || !status.Legible || status.SnapshotCount != count {
		s.t.Fatalf("at %s the tracking of %s is %+v, want active, available, legible, %d snapshots", s.clock.Now(), tag, status, count)
	}
}

// expectHistory checks that the history answer of path has exactly the
// slots want.
func (s *slotTrial) expectHistory(n *servingNode, path, auth string, want ...string) {
	s.t.Helper()
	var history map[string]struct {
		MemberCount int `json:"memberCount"`
	}
	if code := getJSON(s.t, n.url(path), auth, &history); code != http.StatusOK {
		s.t.Fatalf("%s: %d", path, code)
	}
	var slots []string
	for slot, snapshot := range history {
		if snapshot.MemberCount == 0 {
			s.t.Errorf("%s: slot %s has no members", path, slot)
		}
		slots = append(slots, slot)
	}
	slices.Sort(slots)
	if fmt.Sprint(slots) != fmt.Sprint(want) {
		s.t.Fatalf("%s has slots %v, want %v", path, slots, want)
	}
}
