package store_test

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/crownsdev/crowns/models/store"

	"github.com/crownsdev/crowns/models"
	"github.com/crownsdev/crowns/models/store/storetest"
)

// changeRecorder collects the clan changes a ClanStore announces.
type changeRecorder struct {
	mu      sync.Mutex
	changes []models.ClanChange
	arrived chan models.ClanChange
}

func recordChanges(t *testing.T, clans *store.Store) *changeRecorder {
	t.Helper()
	r := &changeRecorder{arrived: make(chan models.ClanChange, 1024)}
	t.Cleanup(clans.SubscribeClanChanges(func(change models.ClanChange) {
		r.mu.Lock()
		r.changes = append(r.changes, change)
		r.mu.Unlock()
		r.arrived <- change
	}))
	return r
}

// take returns the changes recorded so far and forgets them.
func (r *changeRecorder) take() []models.ClanChange {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.changes
	r.changes = nil
	for len(r.arrived) > 0 {
		<-r.arrived
	}
	return out
}

// await waits for a change matching want.
func (r *changeRecorder) await(t *testing.T, what string, want func(models.ClanChange) bool) {
	t.Helper()
	storetest.AwaitClanChange(t, r.arrived, what, want)
}

func isTag(tag string) func(models.ClanChange) bool {
	return func(c models.ClanChange) bool { return c.Tag == tag }
}

func isAll(c models.ClanChange) bool { return c.All }

func TestWritesAnnounceClanChangesInProcess(t *testing.T) {
	eachClanStore(t, func(t *testing.T, ctx context.Context, clans *store.Store) {
		changes := recordChanges(t, clans)
		changed := []models.ClanChange{{Tag: "2CCCP"}}
		clanID := trackFixture(t, clans, "2CCCP", trackedAt).Clan.ID
		slot := at("2026-03-10T12:00:00Z")
		job := claimOne(t, ctx, clans, "2CCCP", slot)
		steps := []struct {
			name string
			run  func() error
			want []models.ClanChange
		}{
			{"track again, same slot", func() error {
				_, err := clans.Track(ctx, models.TrackRequest{Tag: "2CCCP", Clan: clanFixture("2CCCP", 50, 0), By: models.TrackedByOperator, Now: trackedAt})
				return err
			}, nil},
			{"snapshot saved", func() error {
				_, err := clans.SaveSnapshots(ctx, clanID, models.SnapshotFourHourly, []models.HistorySnapshot{models.SnapshotOf(clanFixture("2CCCP", 50, 1), at("2026-03-10T04:00:00Z"))})
				return err
			}, changed},
			{"same snapshot again", func() error {
				_, err := clans.SaveSnapshots(ctx, clanID, models.SnapshotFourHourly, []models.HistorySnapshot{models.SnapshotOf(clanFixture("2CCCP", 50, 1), at("2026-03-10T04:00:00Z"))})
				return err
			}, nil},
			{"job completed", func() error {
				_, err := clans.CompleteSnapshotJob(ctx, job, clanFixture("2CCCP", 50, 2), true, slot.Add(time.Minute))
				return err
			}, changed},
			{"weekly on", func() error { _, err := clans.SetWeekly(ctx, "2CCCP", true); return err }, changed},
			{"weekly on again", func() error { _, err := clans.SetWeekly(ctx, "2CCCP", true); return err }, nil},
			{"weekly off", func() error { _, err := clans.SetWeekly(ctx, "2CCCP", false); return err }, changed},
			{"untrack", func() error { _, err := clans.Untrack(ctx, "2CCCP", trackedAt); return err }, changed},
			{"untrack again", func() error { _, err := clans.Untrack(ctx, "2CCCP", trackedAt); return err }, nil},
			{"track after untrack", func() error {
				_, err := clans.Track(ctx, models.TrackRequest{Tag: "2CCCP", Clan: clanFixture("2CCCP", 50, 0), By: models.TrackedByOperator, Now: trackedAt})
				return err
			}, changed},
		}
		if got := changes.take(); !slices.Equal(got, changed) {
			t.Fatalf("first track announced %v, want %v", got, changed)
		}
		for _, step := range steps {
			if err := step.run(); err != nil {
				t.Fatalf("%s: %v", step.name, err)
			}
			if got := changes.take(); !slices.Equal(got, step.want) {
				t.Errorf("%s announced %v, want %v", step.name, got, step.want)
			}
		}
	})
}

// claimOne plans and claims the 4-hourly job of slot, which must be tag's.
func claimOne(t *testing.T, ctx context.Context, clans *store.Store, tag string, slot time.Time) models.SnapshotJob {
	t.Helper()
	if _, err := clans.PlanSnapshotJobs(ctx, models.SnapshotFourHourly, slot, slot); err != nil {
		t.Fatal(err)
	}
	job, ok, err := clans.ClaimSnapshotJob(ctx, "test", slot, time.Minute)
	if err != nil || !ok || job.Tag != tag {
		t.Fatalf("claim = %+v, %v, %v; want the job of %s", job, ok, err, tag)
	}
	return job
}

func TestClanChangesReachAnotherProcessOnPostgres(t *testing.T) {
	writerStore, readerStore := storetest.OpenTwins(t, store.DialectPostgres)
	writer, reader := writerStore, readerStore
	writerChanges, readerChanges := recordChanges(t, writer), recordChanges(t, reader)
	storetest.ListenForClanChanges(t, writer)
	storetest.ListenForClanChanges(t, reader)
	writerChanges.await(t, "first announcement of the writer's listener", isAll)
	readerChanges.await(t, "first announcement of the reader's listener", isAll)

	trackFixture(t, writer, "2CCCP", trackedAt)
	readerChanges.await(t, "change of 2CCCP in the other process", isTag("2CCCP"))

	// The writer hears the reader's write after its own notification (one
	// channel delivers in commit order): by then it would have announced
	// its own write a second time if the listener did not skip it.
	trackFixture(t, reader, "8LLL", trackedAt)
	writerChanges.await(t, "change of 8LLL in the other process", isTag("8LLL"))
	got := writerChanges.take()
	if own := slices.DeleteFunc(slices.Clone(got), func(c models.ClanChange) bool { return !isTag("2CCCP")(c) }); len(own) != 1 {
		t.Fatalf("the writer announced its own change %d times, want once: %v", len(own), got)
	}
}

func TestClanChangeListenerReconnects(t *testing.T) {
	ctx := context.Background()
	writerStore, readerStore := storetest.OpenTwins(t, store.DialectPostgres)
	writer, reader := writerStore, readerStore
	readerChanges := recordChanges(t, reader)
	storetest.ListenForClanChanges(t, reader)
	readerChanges.await(t, "first announcement of the listener", isAll)

	// A broken connection is replaced, and the reconnection announces a
	// change of every clan (what was sent meanwhile is lost).
	var terminated int
	err := storetest.SQL(t, writerStore).WithContext(ctx).Raw(`SELECT COUNT(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE query = ?`,
		`LISTEN "`+readerStore.ClanChangeChannel()+`"`).Scan(&terminated).Error
	if err != nil || terminated != 1 {
		t.Fatalf("terminated %d listener connections (%v), want 1", terminated, err)
	}
	readerChanges.await(t, "announcement of the reconnection", isAll)
	trackFixture(t, writer, "9QQQ", trackedAt)
	readerChanges.await(t, "change of 9QQQ after the reconnection", isTag("9QQQ"))
}
