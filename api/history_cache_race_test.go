package api_test

import (
	"context"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/crownsdev/crowns/api"
	"github.com/crownsdev/crowns/models"
)

// pausedHistory is a clan history reader that calls pause, when set,
// after each read of the database, before the answer is rendered.
type pausedHistory struct {
	api.ClanHistoryReader
	pause *atomic.Pointer[func()]
}

func (h pausedHistory) FingerprintedClanHistory(ctx context.Context, tag string, kind models.SnapshotKind, from, to time.Time) ([]models.HistorySnapshot, models.HistoryFingerprint, error) {
	history, fingerprint, err := h.ClanHistoryReader.FingerprintedClanHistory(ctx, tag, kind, from, to)
	h.paused()
	return history, fingerprint, err
}

func (h pausedHistory) ClanHistoryFingerprint(ctx context.Context, tag string, kind models.SnapshotKind, from, to time.Time) (models.HistoryFingerprint, error) {
	fingerprint, err := h.ClanHistoryReader.ClanHistoryFingerprint(ctx, tag, kind, from, to)
	h.paused()
	return fingerprint, err
}

func (h pausedHistory) paused() {
	if pause := h.pause.Swap(nil); pause != nil {
		(*pause)()
	}
}

// TestAHistoryReadInFlightWhenASnapshotLandsIsNotKept: a history read
// (a first read, or the check of an expired answer's fingerprint) that
// took its data before a snapshot landed answers its own request, but
// the next request gets the snapshot.
func TestAHistoryReadInFlightWhenASnapshotLandsIsNotKept(t *testing.T) {
	for _, expired := range []bool{false, true} {
		var pause atomic.Pointer[func()]
		h := newHarness(t, harnessOptions{
			config:  func(c *api.Config) { c.HistoryCacheTTL = time.Minute },
			history: func(r api.ClanHistoryReader) api.ClanHistoryReader { return pausedHistory{r, &pause} },
		})
		key := h.issue("70")
		clan := h.world.TrackableClanTags()[0]
		if resp := h.get("/clan/"+clan+"/track", "auth", key); resp.StatusCode != http.StatusOK {
			t.Fatalf("track: %d %s", resp.StatusCode, readBody(t, resp))
		}
		path := "/clan/" + clan + "/history"
		if expired {
			readBody(t, h.get(path, "auth", key))
			h.clock.Advance(2 * time.Minute)
		}
		reading, release := make(chan struct{}), make(chan struct{})
		hold := func() { close(reading); <-release }
		pause.Store(&hold)
		inFlight := make(chan string)
		go func() { inFlight <- string(readBody(t, h.get(path, "auth", key))) }()
		<-reading
		ctx := context.Background()
		tracked, err := h.clans.TrackedClan(ctx, clan)
		if err != nil {
			t.Fatal(err)
		}
		details, err := h.client.Clan(ctx, clan)
		if err != nil {
			t.Fatal(err)
		}
		earlier := models.SnapshotFourHourly.SlotAt(h.clock.Now()).Add(-4 * time.Hour)
		if n, err := h.clans.SaveSnapshots(ctx, tracked.ID, models.SnapshotFourHourly, []models.HistorySnapshot{models.SnapshotOf(details, earlier)}); err != nil || n != 1 {
			t.Fatalf("store a snapshot: %d, %v", n, err)
		}
		close(release)
		before := <-inFlight
		after := string(readBody(t, h.get(path, "auth", key)))
		if after == before || !strings.Contains(after, earlier.Format(models.HistoryKeyLayout)) {
			t.Fatalf("expired %v: the answer after the snapshot landed lacks it: %.200s", expired, after)
		}
	}
}
