package store_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/crownsdev/crowns/models/store"

	"github.com/crownsdev/crowns/models"
)

const lease = 2 * time.Minute

func claim(t *testing.T, clans *store.Store, owner string, now time.Time) (models.SnapshotJob, bool) {
	t.Helper()
	job, ok, err := clans.ClaimSnapshotJob(context.Background(), owner, now, lease)
	if err != nil {
		t.Fatalf("claim: %v", err)
	}
	return job, ok
}

func jobState(t *testing.T, clans *store.Store, clanID int64, kind models.SnapshotKind, slot time.Time) models.SnapshotJobStatus {
	t.Helper()
	status, err := clans.SnapshotJobStatus(context.Background(), clanID, kind, slot)
	if err != nil {
		t.Fatalf("job status: %v", err)
	}
	return status
}

func TestSnapshotJobLifecycle(t *testing.T) {
	eachClanStore(t, func(t *testing.T, ctx context.Context, clans *store.Store) {
		tracked := trackedAt
		id := trackFixture(t, clans, "2CCCP", tracked).Clan.ID
		now := at("2026-03-10T12:00:05Z")
		slot := models.SnapshotFourHourly.SlotAt(now)

		planned, err := clans.PlanSnapshotJobs(ctx, models.SnapshotFourHourly, slot, now)
		if err != nil || planned != 1 {
			t.Fatalf("plan = %d, %v; want 1 job", planned, err)
		}
		if again, _ := clans.PlanSnapshotJobs(ctx, models.SnapshotFourHourly, slot, now); again != 0 {
			t.Fatalf("planning twice created %d more jobs", again)
		}
		if weekly, _ := clans.PlanSnapshotJobs(ctx, models.SnapshotWeekly, models.SnapshotWeekly.SlotAt(now), now); weekly != 0 {
			t.Fatalf("weekly plan created %d jobs for a clan without weekly collection", weekly)
		}

		job, ok := claim(t, clans, "a", now)
		if !ok || job.Tag != "2CCCP" || job.ClanID != id || !job.Slot.Equal(slot) || job.Attempts != 1 || !job.Deadline.Equal(slot.Add(4*time.Hour)) {
			t.Fatalf("claimed %+v, %v; want the 12:00 job of 2CCCP, attempt 1, deadline 16:00", job, ok)
		}
		if _, ok := claim(t, clans, "b", now); ok {
			t.Fatal("a leased job was claimed twice")
		}

		retryAt := now.Add(30 * time.Second)
		if err := clans.RetrySnapshotJob(ctx, job, retryAt, "upstream unavailable"); err != nil {
			t.Fatal(err)
		}
		if _, ok := claim(t, clans, "b", now.Add(29*time.Second)); ok {
			t.Fatal("a job was claimed before its retry time")
		}
		retried, ok := claim(t, clans, "b", retryAt)
		if !ok || retried.Attempts != 2 || retried.Owner != "b" {
			t.Fatalf("retry claim = %+v, %v; want attempt 2 by b", retried, ok)
		}
		if _, err := clans.CompleteSnapshotJob(ctx, job, clanFixture("2CCCP", 50, 1), true, retryAt); !errors.Is(err, models.ErrLeaseLost) {
			t.Fatalf("completing with a stale claim: %v, want ErrLeaseLost", err)
		}
		stored, err := clans.CompleteSnapshotJob(ctx, retried, clanFixture("2CCCP", 50, 1), false, retryAt)
		if err != nil || !stored {
			t.Fatalf("complete = %v, %v; want stored", stored, err)
		}
		if state := jobState(t, clans, id, models.SnapshotFourHourly, slot); state.State != models.JobDone || state.Attempts != 2 {
			t.Fatalf("job after completion = %+v, want done after 2 attempts", state)
		}
		if status, _ := clans.TrackingStatus(ctx, "2CCCP"); status.SnapshotCount != 2 || status.Legible {
			t.Fatalf("status after completion = %+v, want 2 snapshots and legible false from the last check", status)
		}
	})
}

func TestExpiredLeaseIsTakenOver(t *testing.T) {
	eachClanStore(t, func(t *testing.T, ctx context.Context, clans *store.Store) {
		now := at("2026-03-10T12:00:00Z")
		trackFixture(t, clans, "2CCCP", trackedAt)
		slot := models.SnapshotFourHourly.SlotAt(now)
		if _, err := clans.PlanSnapshotJobs(ctx, models.SnapshotFourHourly, slot, now); err != nil {
			t.Fatal(err)
		}
		crashed, ok := claim(t, clans, "crashed", now)
		if !ok {
			t.Fatal("nothing to claim")
		}
		if _, ok := claim(t, clans, "survivor", now.Add(lease-time.Millisecond)); ok {
			t.Fatal("a job was taken over before its lease expired")
		}
		taken, ok := claim(t, clans, "survivor", now.Add(lease))
		if !ok || taken.Owner != "survivor" || taken.Attempts != 2 {
			t.Fatalf("takeover = %+v, %v; want the job, attempt 2", taken, ok)
		}
		if _, err := clans.CompleteSnapshotJob(ctx, crashed, clanFixture("2CCCP", 50, 1), true, now.Add(lease)); !errors.Is(err, models.ErrLeaseLost) {
			t.Fatalf("the crashed claimant completed: %v", err)
		}
		if _, err := clans.CompleteSnapshotJob(ctx, taken, clanFixture("2CCCP", 50, 2), true, now.Add(lease)); err != nil {
			t.Fatal(err)
		}
	})
}

func TestExpireRecordsMissedSlots(t *testing.T) {
	eachClanStore(t, func(t *testing.T, ctx context.Context, clans *store.Store) {
		id := trackFixture(t, clans, "2CCCP", trackedAt).Clan.ID
		trackFixture(t, clans, "8LLL", trackedAt)
		now := at("2026-03-10T12:00:00Z")
		slot := models.SnapshotFourHourly.SlotAt(now)
		if _, err := clans.PlanSnapshotJobs(ctx, models.SnapshotFourHourly, slot, now); err != nil {
			t.Fatal(err)
		}
		first, _ := claim(t, clans, "a", now)
		if err := clans.RetrySnapshotJob(ctx, first, now.Add(5*time.Hour), "upstream unavailable: maintenance"); err != nil {
			t.Fatal(err)
		}
		if _, ok := claim(t, clans, "a", now); !ok {
			t.Fatal("second job not claimable")
		}
		if missed, err := clans.ExpireSnapshotJobs(ctx, slot.Add(4*time.Hour-time.Millisecond)); err != nil || len(missed) != 0 {
			t.Fatalf("expired before the deadline: %+v, %v", missed, err)
		}
		deadline := slot.Add(4 * time.Hour)
		statements := clans.QueryCount()
		missed, err := clans.ExpireSnapshotJobs(ctx, deadline)
		if err != nil {
			t.Fatal(err)
		}
		if len(missed) != 2 {
			t.Fatalf("missed = %+v, want both jobs (one pending, one with its lease long expired)", missed)
		}
		// One statement records them and names their clans: a second
		// one, after the first committed, could fail and leave jobs
		// recorded missed that nobody can tell apart.
		if n := clans.QueryCount() - statements; n != 1 {
			t.Fatalf("expiring jobs took %d statements, want 1", n)
		}
		for _, m := range missed {
			if m.Tag != "2CCCP" && m.Tag != "8LLL" {
				t.Errorf("missed job %+v names no tracked clan", m)
			}
			if m.Tag == "2CCCP" && m.LastError != "upstream unavailable: maintenance" {
				t.Errorf("missed job of 2CCCP kept error %q", m.LastError)
			}
		}
		if state := jobState(t, clans, id, models.SnapshotFourHourly, slot); state.State != models.JobMissed {
			t.Fatalf("job = %+v, want missed", state)
		}
		if _, ok := claim(t, clans, "a", deadline); ok {
			t.Fatal("a missed job was claimed")
		}
		if status, _ := clans.TrackingStatus(ctx, "2CCCP"); status.SnapshotCount != 1 {
			t.Fatalf("a missed slot stored something: %d snapshots, want only the track snapshot", status.SnapshotCount)
		}
	})
}

// TestAJobLeasedAsItsWindowEndsIsLeftToItsClaimant: a job claimed a
// second before its deadline is not recorded missed at the deadline
// while its lease holds: its fetch, started within the window, is stored.
func TestAJobLeasedAsItsWindowEndsIsLeftToItsClaimant(t *testing.T) {
	eachClanStore(t, func(t *testing.T, ctx context.Context, clans *store.Store) {
		id := trackFixture(t, clans, "2CCCP", trackedAt).Clan.ID
		slot := at("2026-03-10T12:00:00Z")
		if _, err := clans.PlanSnapshotJobs(ctx, models.SnapshotFourHourly, slot, slot); err != nil {
			t.Fatal(err)
		}
		deadline := slot.Add(4 * time.Hour)
		job, ok := claim(t, clans, "a", deadline.Add(-time.Second))
		if !ok {
			t.Fatal("nothing to claim a second before the deadline")
		}
		if missed, err := clans.ExpireSnapshotJobs(ctx, deadline); err != nil || len(missed) != 0 {
			t.Fatalf("expired at the deadline = %+v, %v; want the leased job left to its claimant", missed, err)
		}
		stored, err := clans.CompleteSnapshotJob(ctx, job, clanFixture("2CCCP", 50, 1), true, deadline.Add(30*time.Second))
		if err != nil || !stored {
			t.Fatalf("complete within the lease, after the deadline = %v, %v; want stored", stored, err)
		}
		if state := jobState(t, clans, id, models.SnapshotFourHourly, slot); state.State != models.JobDone {
			t.Fatalf("job = %+v, want done", state)
		}
	})
}

func TestJobsOfUntrackedClansAreNotClaimed(t *testing.T) {
	eachClanStore(t, func(t *testing.T, ctx context.Context, clans *store.Store) {
		trackFixture(t, clans, "2CCCP", trackedAt)
		if _, err := clans.SetWeekly(ctx, "2CCCP", true); err != nil {
			t.Fatal(err)
		}
		now := at("2026-03-16T23:00:00Z")
		for _, kind := range []models.SnapshotKind{models.SnapshotFourHourly, models.SnapshotWeekly} {
			if n, err := clans.PlanSnapshotJobs(ctx, kind, kind.SlotAt(now), now); err != nil || n != 1 {
				t.Fatalf("plan %s = %d, %v; want 1", kind, n, err)
			}
		}
		if _, err := clans.SetWeekly(ctx, "2CCCP", false); err != nil {
			t.Fatal(err)
		}
		job, ok := claim(t, clans, "a", now)
		if !ok || job.Kind != models.SnapshotFourHourly {
			t.Fatalf("claimed %+v, %v; want only the 4-hourly job", job, ok)
		}
		if err := clans.RetrySnapshotJob(ctx, job, now, "try again"); err != nil {
			t.Fatal(err)
		}
		if _, err := clans.Untrack(ctx, "2CCCP", now); err != nil {
			t.Fatal(err)
		}
		if job, ok := claim(t, clans, "a", now); ok {
			t.Fatalf("claimed %+v of an untracked clan", job)
		}
	})
}

func TestSnapshotJobsAreClaimedInBatchesEarliestFirst(t *testing.T) {
	eachClanStore(t, func(t *testing.T, ctx context.Context, clans *store.Store) {
		tags := []string{"2CCCP", "8LLL", "9QQQ", "CGJ2", "PPRR"}
		for _, tag := range tags {
			trackFixture(t, clans, tag, trackedAt)
		}
		now := at("2026-03-10T12:00:05Z")
		slot := models.SnapshotFourHourly.SlotAt(now)
		if planned, err := clans.PlanSnapshotJobs(ctx, models.SnapshotFourHourly, slot, now); err != nil || planned != 5 {
			t.Fatalf("plan = %d, %v; want 5 jobs", planned, err)
		}
		// The job of 9QQQ failed once and is due again later than the others.
		first, ok := claim(t, clans, "a", now)
		if !ok {
			t.Fatal("nothing to claim")
		}
		if err := clans.RetrySnapshotJob(ctx, first, now.Add(time.Second), "upstream unavailable"); err != nil {
			t.Fatal(err)
		}
		later := now.Add(2 * time.Second)
		claimed := map[string]bool{}
		for _, want := range []int{3, 2, 0} {
			batch, err := clans.ClaimSnapshotJobs(ctx, "b", later, lease, 3)
			if err != nil || len(batch) != want {
				t.Fatalf("claimed %d jobs (%v), want %d", len(batch), err, want)
			}
			for _, job := range batch {
				if claimed[job.Tag] || job.Owner != "b" {
					t.Fatalf("job %+v claimed twice or by another owner", job)
				}
				claimed[job.Tag] = true
			}
			if want == 3 && claimed[first.Tag] {
				t.Fatalf("the job due later (%s) came in the first batch", first.Tag)
			}
		}
		if len(claimed) != len(tags) {
			t.Fatalf("claimed %v, want every job once", claimed)
		}
	})
}
