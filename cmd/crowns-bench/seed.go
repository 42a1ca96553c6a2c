package main

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/crownsdev/crowns/models/store"

	"golang.org/x/sync/errgroup"

	"github.com/crownsdev/crowns/keys"
	"github.com/crownsdev/crowns/models"
	"github.com/crownsdev/crowns/upstream"
	"github.com/crownsdev/crowns/upstream/sandbox"
)

// seed opens the database the bench's Crowns will use (req.databaseURL,
// or SQLite in dataDir), refuses one that holds keys or tracked clans,
// and fills it through the key service (with secret, the CROWNS_SECRET
// Crowns gets) and the clan store, then closes it: the keys, the tracked
// clans with their history, and the players whose battles are asked
// (the first member of each tracked clan).
func seed(ctx context.Context, req request, dataDir, secret string, r *report) (seeded, error) {
	var out seeded
	store, err := openStore(ctx, req.databaseURL, dataDir)
	if err != nil {
		return out, err
	}
	defer func() { _ = store.Close() }()
	clans := store
	lastEvent, err := store.LastKeyEventID(ctx)
	if err != nil {
		return out, err
	}
	tracked, err := clans.ListTrackedClans(ctx, true)
	if err != nil {
		return out, err
	}
	if lastEvent != 0 || len(tracked) != 0 {
		return out, errors.New("the database already holds keys or tracked clans: run the bench on an empty database or schema (it fills it)")
	}
	raw, _, err := keys.LoadOrCreateSecret(dataDir, secret)
	if err != nil {
		return out, err
	}
	service, err := keys.NewService(store, keys.Config{Secret: raw, Clock: models.SystemClock{}})
	if err != nil {
		return out, err
	}
	began := time.Now()
	if out.keys, err = seedKeys(ctx, service, req.keys); err != nil {
		return out, err
	}
	r.SeedKeysSeconds = time.Since(began).Seconds()
	began = time.Now()
	tags, worldClans := benchClanTags(req.clans, trackAddress)
	if err := seedClans(ctx, clans, tags, worldClans, historyDays, time.Now().UTC(), trackAddress); err != nil {
		return out, err
	}
	r.SeedClansSeconds = time.Since(began).Seconds()
	world := sandbox.NewWorld(sandbox.Config{Clans: worldClans, TrackAddress: trackAddress})
	for _, tag := range tags {
		if clan, ok := world.Clan(tag); ok && len(clan.MemberList) > 0 {
			out.players = append(out.players, strings.TrimPrefix(clan.MemberList[0].Tag, "#"))
		}
	}
	if len(out.players) == 0 {
		return out, errors.New("the sandbox's tracked clans have no members")
	}
	out.tags = tags
	return out, nil
}

// openStore opens and migrates the database at url, or the SQLite file
// in dataDir.
func openStore(ctx context.Context, url, dataDir string) (*store.Store, error) {
	store, err := store.Open(ctx, store.DatabaseConfig{URL: url, DataDir: dataDir})
	if err != nil {
		return nil, fmt.Errorf("open database: %w", err)
	}
	if _, err := store.Migrate(ctx); err != nil {
		_ = store.Close()
		return nil, fmt.Errorf("migrate database: %w", err)
	}
	return store, nil
}

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
			game, err := sandboxClient(world, clock)
			if err != nil {
				return err
			}
			for tag := range work {
				if err := seedClan(gctx, clans, game, clock, tag, slots); err != nil {
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
func seedClan(ctx context.Context, clans *store.Store, game *upstream.Client, clock *models.ManualClock, tag string, slots []time.Time) error {
	clanAt := func(slot time.Time) (models.ClanDetails, error) {
		clock.Set(slot.Add(time.Minute))
		clan, err := game.Clan(ctx, tag)
		if err != nil {
			return models.ClanDetails{}, fmt.Errorf("clan %s from the sandbox: %w", tag, err)
		}
		return clan, nil
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
