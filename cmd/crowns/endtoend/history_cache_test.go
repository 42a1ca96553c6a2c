package endtoend_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/crownsdev/crowns/models/store"

	"github.com/crownsdev/crowns/api"
	"github.com/crownsdev/crowns/models"
	"github.com/crownsdev/crowns/models/legacy"
	"github.com/crownsdev/crowns/models/store/storetest"
)

// historyCacheTTL is the backstop of the history cache in these tests.
const historyCacheTTL = time.Minute

// withHistoryCache switches the history cache on.
func withHistoryCache(cfg *api.Config) {
	cfg.HistoryCacheTTL = historyCacheTTL
	cfg.CacheTTL = 3 * time.Minute
	cfg.CacheBytes = 8 << 20
}

// storeAnswer is the body of a history answer rendered straight from
// what the store returns now.
func (e *trackingEnv) storeAnswer(t *testing.T, tag string, kind models.SnapshotKind, days int) []byte {
	t.Helper()
	from, to := models.HistoryWindow(e.clock.Now(), days)
	history, err := e.clans.ClanHistory(context.Background(), tag, kind, from, to)
	if err != nil {
		t.Fatalf("store history of %s: %v", tag, err)
	}
	body, err := json.Marshal(legacy.ClanHistory(history))
	if err != nil {
		t.Fatal(err)
	}
	return body
}

// snapshotSlots lets the scheduler take every 4-hourly slot of the next
// d, a minute into each.
func (e *trackingEnv) snapshotSlots(t *testing.T, d time.Duration) {
	t.Helper()
	end := e.clock.Now().Add(d)
	for slot := models.SnapshotFourHourly.NextSlot(e.clock.Now()); slot.Before(end); slot = slot.Add(4 * time.Hour) {
		e.clock.Set(slot.Add(time.Minute))
		if _, err := e.scheduler.Tick(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
}

// storeEarlierSlot stores, through clans (another process's store), the
// snapshot of tag's slot before the current one.
func (e *trackingEnv) storeEarlierSlot(t *testing.T, clans *store.Store, tag string) {
	t.Helper()
	ctx := context.Background()
	tracked, err := clans.TrackedClan(ctx, tag)
	if err != nil {
		t.Fatal(err)
	}
	clan, err := e.world.Clan(ctx, tag)
	if err != nil {
		t.Fatal(err)
	}
	earlier := models.SnapshotFourHourly.SlotAt(e.clock.Now()).Add(-4 * time.Hour)
	if _, err := clans.SaveSnapshots(ctx, tracked.ID, models.SnapshotFourHourly, []models.HistorySnapshot{models.SnapshotOf(clan, earlier)}); err != nil {
		t.Fatal(err)
	}
}

// expectCachedAnswer gets path twice: the answer must be want (a body for
// 200, else the error text of status), and the second must cost no query.
func (e *trackingEnv) expectCachedAnswer(t *testing.T, path string, status int, want string) {
	t.Helper()
	for i := range 2 {
		before := e.db.QueryCount()
		gotStatus, body, header := e.get(t, path)
		queries := e.db.QueryCount() - before
		switch {
		case status == http.StatusOK && (gotStatus != status || string(body) != want):
			t.Fatalf("GET %s: %d %.200s, want the store's answer %.200s", path, gotStatus, body, want)
		case status != http.StatusOK:
			wantError(t, gotStatus, body, status, want)
		case header.Get("x-cached") != "":
			t.Fatalf("GET %s: history answer with x-cached %q", path, header.Get("x-cached"))
		}
		if i == 1 && queries != 0 {
			t.Fatalf("GET %s again cost %d queries, want 0 (cached)", path, queries)
		}
	}
}

func TestHistoryCacheServesWhatTheStoreReturnsUntilTheClanChanges(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, db *store.Store) {
		ctx := context.Background()
		e := newTrackingEnv(t, db, withHistoryCache)
		tag := e.withAddress
		path, weekly := "/clan/"+tag+"/history?days=2", "/clan/"+tag+"/history/weekly"

		e.expectCachedAnswer(t, path, http.StatusExpectationFailed, "clan not tracked")
		if status, body, _ := e.get(t, "/clan/"+tag+"/track"); status != http.StatusOK {
			t.Fatalf("track: %d %s", status, body)
		}
		e.expectCachedAnswer(t, path, http.StatusOK, string(e.storeAnswer(t, tag, models.SnapshotFourHourly, 2)))
		e.snapshotSlots(t, 12*time.Hour)
		e.expectCachedAnswer(t, path, http.StatusOK, string(e.storeAnswer(t, tag, models.SnapshotFourHourly, 2)))

		e.clock.Advance(4 * time.Hour) // the next slot lands
		before := e.storeAnswer(t, tag, models.SnapshotFourHourly, 2)
		if report, err := e.scheduler.Tick(ctx); err != nil || report.Stored != 1 {
			t.Fatalf("tick = %+v, %v; want one snapshot stored", report, err)
		}
		after := e.storeAnswer(t, tag, models.SnapshotFourHourly, 2)
		if bytes.Equal(before, after) {
			t.Fatal("the new snapshot changed nothing in the store's answer")
		}
		e.expectCachedAnswer(t, path, http.StatusOK, string(after))

		e.expectCachedAnswer(t, weekly, http.StatusExpectationFailed, "weekly history not enabled for this clan")
		if _, err := e.clans.SetWeekly(ctx, tag, true); err != nil {
			t.Fatal(err)
		}
		e.expectCachedAnswer(t, weekly, http.StatusOK, "{}")
		if _, err := e.clans.SetWeekly(ctx, tag, false); err != nil {
			t.Fatal(err)
		}
		e.expectCachedAnswer(t, weekly, http.StatusExpectationFailed, "weekly history not enabled for this clan")

		if _, err := e.clans.Untrack(ctx, tag, e.clock.Now()); err != nil {
			t.Fatal(err)
		}
		e.expectCachedAnswer(t, path, http.StatusExpectationFailed, "clan not tracked")
		if status, body, _ := e.get(t, "/clan/"+tag+"/track"); status != http.StatusOK {
			t.Fatalf("track again: %d %s", status, body)
		}
		e.expectCachedAnswer(t, path, http.StatusOK, string(e.storeAnswer(t, tag, models.SnapshotFourHourly, 2)))
	})
}

func TestHistoryCacheExpiresAfterItsTTL(t *testing.T) {
	storetest.EachEngineTwins(t, func(t *testing.T, db, otherProcess *store.Store) {
		e := newTrackingEnv(t, db, withHistoryCache)
		tag := e.withAddress
		path := "/clan/" + tag + "/history?days=0"
		if status, body, _ := e.get(t, "/clan/"+tag+"/track"); status != http.StatusOK {
			t.Fatalf("track: %d %s", status, body)
		}
		cached := e.storeAnswer(t, tag, models.SnapshotFourHourly, 0)
		e.expectCachedAnswer(t, path, http.StatusOK, string(cached))

		// Another process stores an earlier slot of today; this one is not
		// told (SQLite, or no listener running).
		e.storeEarlierSlot(t, otherProcess, tag)
		e.clock.Advance(historyCacheTTL - time.Second)
		e.expectCachedAnswer(t, path, http.StatusOK, string(cached))
		e.clock.Advance(time.Second)
		fresh := e.storeAnswer(t, tag, models.SnapshotFourHourly, 0)
		if bytes.Equal(fresh, cached) {
			t.Fatal("the other process's snapshot changed nothing")
		}
		e.expectCachedAnswer(t, path, http.StatusOK, string(fresh))
	})
}

func TestLargeHistoryAnswersServeGzipAndIdentityClientsAlike(t *testing.T) {
	db := storetest.Open(t, store.DialectSQLite)
	e := newTrackingEnv(t, db, withHistoryCache)
	tag := e.withAddress
	if status, body, _ := e.get(t, "/clan/"+tag+"/track"); status != http.StatusOK {
		t.Fatalf("track: %d %s", status, body)
	}
	e.snapshotSlots(t, 3*24*time.Hour)
	path := "/clan/" + tag + "/history?days=3"
	want := e.storeAnswer(t, tag, models.SnapshotFourHourly, 3)
	if len(want) < 16<<10 {
		t.Fatalf("history of %d bytes: too small to be kept compressed only", len(want))
	}
	status, zipped, gzipHeader := e.get(t, path, "Accept-Encoding", "gzip")
	if status != http.StatusOK || gzipHeader.Get("Content-Encoding") != "gzip" || len(zipped) >= len(want)/2 {
		t.Fatalf("gzip client: %d, Content-Encoding %q, %d bytes for %d", status, gzipHeader.Get("Content-Encoding"), len(zipped), len(want))
	}
	zr, err := gzip.NewReader(bytes.NewReader(zipped))
	if err != nil {
		t.Fatal(err)
	}
	unzipped, err := io.ReadAll(zr)
	if err != nil || !bytes.Equal(unzipped, want) {
		t.Fatalf("the gzip body does not inflate to the store's answer (%v)", err)
	}
	for range 2 { // the second from a pooled inflater
		status, plain, header := e.get(t, path, "Accept-Encoding", "identity")
		if status != http.StatusOK || header.Get("Content-Encoding") != "" || !bytes.Equal(plain, want) {
			t.Fatalf("identity client: %d, Content-Encoding %q, body equal to the store's: %v", status, header.Get("Content-Encoding"), bytes.Equal(plain, want))
		}
		// The gzipped form's ETag is the plain form's marked weak.
		if "W/"+header.Get("ETag") != gzipHeader.Get("ETag") || header.Get("Vary") != "auth, Authorization, Accept-Encoding" {
			t.Fatalf("ETag %q and Vary %q, want the gzip answer's ETag %q unmarked and Vary auth, Authorization, Accept-Encoding", header.Get("ETag"), header.Get("Vary"), gzipHeader.Get("ETag"))
		}
	}
	head := httptest.NewRequest(http.MethodHead, path, nil)
	head.Header.Set("auth", testKey)
	resp, err := e.app.App().Test(head, -1)
	if err != nil {
		t.Fatal(err)
	}
	if body := readBody(t, resp); resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Length") != strconv.Itoa(len(want)) || len(body) != 0 {
		t.Fatalf("HEAD by an identity client: %d, Content-Length %q, %d body bytes; want 200, %d, none",
			resp.StatusCode, resp.Header.Get("Content-Length"), len(body), len(want))
	}
	if status, body, _ := e.get(t, path, "If-None-Match", gzipHeader.Get("ETag")); status != http.StatusNotModified || len(body) != 0 {
		t.Fatalf("If-None-Match: %d with %d bytes, want an empty 304", status, len(body))
	}
}

func TestHistoryCacheHearsOfChangesInAnotherProcessOnPostgres(t *testing.T) {
	ctx := context.Background()
	writerStore, readerStore := storetest.OpenTwins(t, store.DialectPostgres)
	e := newTrackingEnv(t, readerStore, withHistoryCache)
	writer := writerStore
	heard := make(chan models.ClanChange, 64)
	// Subscribed after the API: called once the API has dropped its answers.
	t.Cleanup(e.clans.SubscribeClanChanges(func(change models.ClanChange) { heard <- change }))
	storetest.ListenForClanChanges(t, e.clans)
	awaitChange(t, heard, func(c models.ClanChange) bool { return c.All })

	tag := e.withAddress
	path := "/clan/" + tag + "/history?days=1"
	if status, body, _ := e.get(t, "/clan/"+tag+"/track"); status != http.StatusOK {
		t.Fatalf("track: %d %s", status, body)
	}
	awaitChange(t, heard, func(c models.ClanChange) bool { return c.Tag == tag }) // this process's own
	e.expectCachedAnswer(t, path, http.StatusOK, string(e.storeAnswer(t, tag, models.SnapshotFourHourly, 1)))

	if _, err := writer.Untrack(ctx, tag, e.clock.Now()); err != nil {
		t.Fatal(err)
	}
	awaitChange(t, heard, func(c models.ClanChange) bool { return c.Tag == tag })
	e.expectCachedAnswer(t, path, http.StatusExpectationFailed, "clan not tracked")

	clan, err := e.world.Clan(ctx, tag)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := writer.Track(ctx, models.TrackRequest{Tag: tag, Clan: clan, Legible: true, By: models.TrackedByOperator, Now: e.clock.Now()}); err != nil {
		t.Fatal(err)
	}
	awaitChange(t, heard, func(c models.ClanChange) bool { return c.Tag == tag })
	e.expectCachedAnswer(t, path, http.StatusOK, string(e.storeAnswer(t, tag, models.SnapshotFourHourly, 1)))
}

// awaitChange waits for a change matching want.
func awaitChange(t *testing.T, heard <-chan models.ClanChange, want func(models.ClanChange) bool) {
	t.Helper()
	storetest.AwaitClanChange(t, heard, "expected clan change", want)
}
