package main

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/crownsdev/crowns/models/store"

	"golang.org/x/sync/errgroup"

	"github.com/crownsdev/crowns/keys"
	"github.com/crownsdev/crowns/models"
	"github.com/crownsdev/crowns/upstream"
	"github.com/crownsdev/crowns/upstream/sandbox"
)

// benchSeedWorkers is how many seeding goroutines run at once.
const benchSeedWorkers = 4

// benchDeveloperBase is the first Discord user id of the bench's
// developers: far from real snowflakes' range of the early years, and
// plainly artificial.
const benchDeveloperBase = 900_000_000_000_000_000

// seedKeys issues a key to each of n new developers through the key
// service, exactly as the bot or `crowns keys issue` would, and returns
// the keys.
func seedKeys(ctx context.Context, service *keys.Service, n int) ([]string, error) {
	out := make([]string, n)
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(benchSeedWorkers)
	for i := range n {
		g.Go(func() error {
			id := strconv.FormatInt(benchDeveloperBase+int64(i), 10)
			issued, err := service.IssueOrRemind(gctx, keys.Developer{DiscordUserID: id, DisplayName: "bench " + strconv.Itoa(i)}, "bench")
			if err != nil {
				return fmt.Errorf("issue key %d: %w", i, err)
			}
			out[i] = issued.Key
			return nil
		})
	}
	return out, g.Wait()
}

// seedClans tracks the clans of tags (clans of a sandbox world of
// worldClans clans) and stores their history of the window
// days=historyDays before now: every 4-hourly slot from midnight
// historyDays days ago to now, each snapshot what the sandbox served at
// that slot. The first slot is stored by the track itself, the others in
// one batch per clan.
func seedClans(ctx context.Context, clans *store.Store, tags []string, worldClans, historyDays int, now time.Time, trackAddress string) error {
	from, _ := models.HistoryWindow(now, historyDays)
	var slots []time.Time
	for slot := from; !slot.After(now); slot = slot.Add(4 * time.Hour) {
		slots = append(slots, slot)
	}
	work := make(chan string)
	g, gctx := errgroup.WithContext(ctx)
	for range benchSeedWorkers {
		g.Go(func() error {
			clock := models.NewManualClock(now)
			world := sandbox.NewWorld(sandbox.Config{Clans: worldClans, TrackAddress: trackAddress, Clock: clock})
			for tag := range work {
				if err := seedClan(gctx, clans, world, clock, tag, slots); err != nil {
					return err
				}
			}
			return nil
		})
	}
	g.Go(func() error {
		defer close(work)
		for _, tag := range tags {
			select {
			case work <- tag:
			case <-gctx.Done():
				return gctx.Err()
			}
		}
		return nil
	})
	return g.Wait()
}

// benchClanTags are the tags of the first n clans of a sandbox world big
// enough to have them; worldClans is its size.
func benchClanTags(n int, trackAddress string) (tags []string, worldClans int) {
	worldClans = max(n, sandbox.DefaultClans)
	return sandbox.NewWorld(sandbox.Config{Clans: worldClans, TrackAddress: trackAddress}).ClanTags()[:n], worldClans
}

// seedClan tracks one clan at the first slot and stores the others.
func seedClan(ctx context.Context, clans *store.Store, world *sandbox.World, clock *models.ManualClock, tag string, slots []time.Time) error {
	clanAt := func(slot time.Time) (models.ClanDetails, error) {
		clock.Set(slot.Add(time.Minute))
		clan, ok := world.Clan(tag)
		if !ok {
			return models.ClanDetails{}, fmt.Errorf("the sandbox has no clan %s", tag)
		}
		return upstream.ClanDetailsOf(clan), nil
	}
	first, err := clanAt(slots[0])
	if err != nil {
		return err
	}
	tracked, err := clans.Track(ctx, models.TrackRequest{Tag: tag, Clan: first, Legible: true, By: models.TrackedByOperator, Now: slots[0].Add(time.Minute)})
	if err != nil {
		return fmt.Errorf("track %s: %w", tag, err)
	}
	history := make([]models.HistorySnapshot, 0, len(slots)-1)
	for _, slot := range slots[1:] {
		clan, err := clanAt(slot)
		if err != nil {
			return err
		}
		history = append(history, models.SnapshotOf(clan, slot))
	}
	if _, err := clans.SaveSnapshots(ctx, tracked.Clan.ID, models.SnapshotFourHourly, history); err != nil {
		return fmt.Errorf("store the history of %s: %w", tag, err)
	}
	return nil
}
