package store_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/crownsdev/crowns/models/store"

	"github.com/crownsdev/crowns/models"
	"github.com/crownsdev/crowns/models/legacy"
	"github.com/crownsdev/crowns/models/store/storetest"
)

func historyKeys(history []models.HistorySnapshot) []string {
	keys := []string{}
	for _, s := range history {
		keys = append(keys, models.HistoryKey(s.Slot))
	}
	return keys
}

func TestClanHistoryDaysWindow(t *testing.T) {
	eachClanStore(t, func(t *testing.T, ctx context.Context, clans *store.Store) {
		now := trackedAt
		clanID := trackFixture(t, clans, "2CCCP", now).Clan.ID // stores 2026-03-10 08:00
		for _, slot := range []string{
			"2026-03-02T23:59:59Z", // a second before the first day of days=7
			"2026-03-03T00:00:00Z", // the first day's first slot
			"2026-03-05T12:00:00Z",
			"2026-03-09T20:00:00Z",
			"2026-03-10T04:00:00Z",
		} {
			if _, err := clans.SaveSnapshots(ctx, clanID, models.SnapshotFourHourly, []models.HistorySnapshot{models.SnapshotOf(clanFixture("2CCCP", 50, 1), at(slot))}); err != nil {
				t.Fatal(err)
			}
		}
		tests := []struct {
			days int
			want []string
		}{
			{0, []string{"2026-03-10-04-00", "2026-03-10-08-00"}},
			{1, []string{"2026-03-09-20-00", "2026-03-10-04-00", "2026-03-10-08-00"}},
			{7, []string{"2026-03-03-00-00", "2026-03-05-12-00", "2026-03-09-20-00", "2026-03-10-04-00", "2026-03-10-08-00"}},
			{8, []string{"2026-03-02-23-59", "2026-03-03-00-00", "2026-03-05-12-00", "2026-03-09-20-00", "2026-03-10-04-00", "2026-03-10-08-00"}},
		}
		for _, tt := range tests {
			from, to := models.HistoryWindow(now, tt.days)
			history, err := clans.ClanHistory(ctx, "2CCCP", models.SnapshotFourHourly, from, to)
			if err != nil {
				t.Fatalf("days=%d: %v", tt.days, err)
			}
			if got := historyKeys(history); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("days=%d: slots %v, want %v", tt.days, got, tt.want)
			}
		}
	})
}

func TestClanHistoryReturnsWhatWasStored(t *testing.T) {
	eachClanStore(t, func(t *testing.T, ctx context.Context, clans *store.Store) {
		now := trackedAt
		clanID := trackFixture(t, clans, "2CCCP", now).Clan.ID
		later := clanFixture("2CCCP", 50, 5)
		later.Members[3].Name = "Renamed ✓"                               // a rename is a new dictionary row
		later.Members = append(later.Members[:10], later.Members[11:]...) // a member left
		later.Members[0].Tag = "#" + later.Members[0].Tag                 // upstream tags may carry '#'
		laterSlot := at("2026-03-10T12:00:00Z")
		if _, err := clans.SaveSnapshots(ctx, clanID, models.SnapshotFourHourly, []models.HistorySnapshot{models.SnapshotOf(later, laterSlot)}); err != nil {
			t.Fatal(err)
		}
		history, err := clans.ClanHistory(ctx, "2CCCP", models.SnapshotFourHourly, at("2026-03-10T00:00:00Z"), laterSlot)
		if err != nil {
			t.Fatal(err)
		}
		want := []models.HistorySnapshot{
			models.SnapshotOf(clanFixture("2CCCP", 50, 0), at("2026-03-10T08:00:00Z")),
			models.SnapshotOf(later, laterSlot),
		}
		if !reflect.DeepEqual(history, want) {
			t.Fatalf("history differs from what was stored:\n got %+v\nwant %+v", history, want)
		}
		if history[1].MemberCount != 49 || history[1].Members[0].ClanRank != 1 || strings.HasPrefix(history[1].Members[len(history[1].Members)-1].Tag, "#") {
			t.Fatalf("later snapshot = %+v, want 49 members in rank order, tags without '#'", history[1])
		}
		total := 0
		for _, m := range later.Members {
			total += m.Donations
		}
		if history[1].Donations != total {
			t.Fatalf("donations = %d, want the members' sum %d", history[1].Donations, total)
		}
	})
}

func TestClanHistoryRefusals(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, db *store.Store) {
		ctx := context.Background()
		clans := db
		now := trackedAt
		trackFixture(t, clans, "2CCCP", now)
		trackFixture(t, clans, "8LLL", now)
		if _, err := clans.Untrack(ctx, "8LLL", now); err != nil {
			t.Fatal(err)
		}
		from, to := models.HistoryWindow(now, 7)
		tests := []struct {
			name string
			tag  string
			kind models.SnapshotKind
			err  error
		}{
			{"never tracked", "9999", models.SnapshotFourHourly, models.ErrNotTracked},
			{"untracked after tracking", "8LLL", models.SnapshotFourHourly, models.ErrNotTracked},
			{"weekly of untracked", "8LLL", models.SnapshotWeekly, models.ErrNotTracked},
			{"weekly not enabled", "2CCCP", models.SnapshotWeekly, models.ErrWeeklyNotEnabled},
			{"tracked", "2CCCP", models.SnapshotFourHourly, nil},
		}
		for _, tt := range tests {
			if _, err := clans.ClanHistory(ctx, tt.tag, tt.kind, from, to); !errors.Is(err, tt.err) {
				t.Errorf("%s: %v, want %v", tt.name, err, tt.err)
			}
		}
		if _, err := clans.SetWeekly(ctx, "2CCCP", true); err != nil {
			t.Fatal(err)
		}
		weekly, err := clans.ClanHistory(ctx, "2CCCP", models.SnapshotWeekly, from, to)
		if err != nil || len(weekly) != 0 {
			t.Fatalf("weekly history without snapshots = %v, %v; want empty", weekly, err)
		}
		body, _ := json.Marshal(legacy.ClanHistory(weekly))
		if string(body) != "{}" {
			t.Fatalf("empty history encodes as %s, want {}", body)
		}
	})
}

func TestClanHistoryCostsOneQueryInSteadyState(t *testing.T) {
	storetest.EachEngineTwins(t, func(t *testing.T, db, otherProcess *store.Store) {
		ctx := context.Background()
		now := trackedAt
		writer := db
		clanID := trackFixture(t, writer, "2CCCP", now).Clan.ID
		for i := range 12 {
			slot := at("2026-03-08T00:00:00Z").Add(time.Duration(i) * 4 * time.Hour)
			if _, err := writer.SaveSnapshots(ctx, clanID, models.SnapshotFourHourly, []models.HistorySnapshot{models.SnapshotOf(clanFixture("2CCCP", 50, i), slot)}); err != nil {
				t.Fatal(err)
			}
		}
		reader := otherProcess // a fresh process: empty dictionary cache
		before := reader.QueryCount()
		from, to := models.HistoryWindow(now, 7)
		first, err := reader.ClanHistory(ctx, "2CCCP", models.SnapshotFourHourly, from, to)
		if err != nil {
			t.Fatal(err)
		}
		if got := reader.QueryCount() - before; got != 2 {
			t.Fatalf("cold read cost %d queries, want 2 (history + dictionary misses)", got)
		}
		before = reader.QueryCount()
		second, err := reader.ClanHistory(ctx, "2CCCP", models.SnapshotFourHourly, from, to)
		if err != nil {
			t.Fatal(err)
		}
		if got := reader.QueryCount() - before; got != 1 {
			t.Fatalf("warm read cost %d queries, want 1", got)
		}
		if len(first) != 13 || !reflect.DeepEqual(first, second) {
			t.Fatalf("reads differ or miss snapshots: %d and %d snapshots", len(first), len(second))
		}
	})
}

// TestClanHistoryOfMoreThanAChunkOfPlayers: a history imported at once
// whose members are more (tag, name) pairs than one statement of the
// player dictionary takes (500) is stored whole, and read back whole by
// a process whose dictionary cache is empty.
func TestClanHistoryOfMoreThanAChunkOfPlayers(t *testing.T) {
	storetest.EachEngineTwins(t, func(t *testing.T, db, otherProcess *store.Store) {
		ctx := context.Background()
		clanID := trackFixture(t, db, "2CCCP", trackedAt).Clan.ID // the 08:00 slot
		var imported []models.HistorySnapshot
		for i := range 12 { // 12 snapshots of 50 members, each renamed: 600 new pairs
			clan := clanFixture("2CCCP", 50, i)
			for j := range clan.Members {
				clan.Members[j].Name = fmt.Sprintf("Mémber %d, snapshot %d", j, i)
			}
			imported = append(imported, models.SnapshotOf(clan, at("2026-03-08T00:00:00Z").Add(time.Duration(i)*4*time.Hour)))
		}
		if stored, err := db.SaveSnapshots(ctx, clanID, models.SnapshotFourHourly, imported); err != nil || stored != len(imported) {
			t.Fatalf("import of %d snapshots: %d stored, %v", len(imported), stored, err)
		}
		from, to := models.HistoryWindow(trackedAt, 7)
		history, err := otherProcess.ClanHistory(ctx, "2CCCP", models.SnapshotFourHourly, from, to)
		if err != nil {
			t.Fatalf("history read with an empty dictionary cache: %v", err)
		}
		want := append(imported, models.SnapshotOf(clanFixture("2CCCP", 50, 0), at("2026-03-10T08:00:00Z")))
		if !reflect.DeepEqual(history, want) {
			t.Fatalf("history differs from what was stored: slots %v, want %v", historyKeys(history), historyKeys(want))
		}
	})
}
