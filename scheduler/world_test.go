package scheduler_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/crownsdev/crowns/models"
)

// trackAddress is the address the test world's trackable clans carry.
const trackAddress = "crowns.example"

// world is the game upstream of the tests, as the scheduler sees it: a
// ClanSource whose clans change with the clock, instrumented to count the
// fetches of each (clan, 4-hourly slot at fetch time) and to remember what
// it served; failTag makes the upstream unavailable for one clan.
type world struct {
	source ClanSourceFunc
	clock  *models.ManualClock
	// trackable are clans whose description carries trackAddress;
	// untrackable one whose description does not.
	trackable   []string
	untrackable string

	mu      sync.Mutex
	fetches map[fetchKey]int
	served  map[fetchKey]models.ClanDetails
	failing map[string]bool
}

type fetchKey struct {
	tag  string
	slot time.Time
}

// ClanSourceFunc adapts a function to scheduler.ClanSource.
type ClanSourceFunc func(ctx context.Context, tag string) (models.ClanDetails, error)

// Clan calls f.
func (f ClanSourceFunc) Clan(ctx context.Context, tag string) (models.ClanDetails, error) {
	return f(ctx, tag)
}

func newWorld(t *testing.T, clock *models.ManualClock, clans int) *world {
	t.Helper()
	w := &world{clock: clock, fetches: map[fetchKey]int{}, served: map[fetchKey]models.ClanDetails{}, failing: map[string]bool{}}
	for i := range clans {
		w.trackable = append(w.trackable, "2CC"+string(models.TagAlphabet[i/14%14])+string(models.TagAlphabet[i%14]))
	}
	w.untrackable = "9QQQ"
	w.source = w.fetch
	return w
}

func (w *world) fetch(ctx context.Context, tag string) (models.ClanDetails, error) {
	if err := ctx.Err(); err != nil {
		return models.ClanDetails{}, err
	}
	now := w.clock.Now()
	key := fetchKey{tag: tag, slot: models.SnapshotFourHourly.SlotAt(now)}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.fetches[key]++
	if w.failing[tag] {
		return models.ClanDetails{}, models.Unavailable("upstream", 0, fmt.Errorf("503 for %s", tag))
	}
	clan, ok := w.clanAt(tag, now)
	if !ok {
		return models.ClanDetails{}, models.ErrNotFound
	}
	w.served[key] = clan
	return clan, nil
}

// clanAt is the clan as the world describes it at now: numbers drift with
// the hour.
func (w *world) clanAt(tag string, now time.Time) (models.ClanDetails, bool) {
	description := ""
	switch {
	case tag == w.untrackable:
		description = "a clan without the address"
	default:
		found := false
		for _, t := range w.trackable {
			found = found || t == tag
		}
		if !found {
			return models.ClanDetails{}, false
		}
		description = "Stats: " + trackAddress
	}
	hours := int(now.Unix() / 3600)
	clan := models.ClanDetails{Tag: tag, Name: "Clan " + tag, Description: description, MemberCount: 20}
	for i := range 20 {
		clan.Members = append(clan.Members, models.ClanMember{
			Tag: fmt.Sprintf("%sP%d", tag, i), Name: fmt.Sprintf("Player %d", i), ClanRank: i + 1,
			Trophies: 5000 - i*10 + hours%50, Donations: (hours + i) % 300, ClanChestPoints: (hours * i) % 40,
		})
	}
	return clan, true
}

func (w *world) failTag(tag string, failing bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.failing[tag] = failing
}

// fetchCount is how often tag was fetched while slot was the current
// 4-hourly slot.
func (w *world) fetchCount(tag string, slot time.Time) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.fetches[fetchKey{tag: tag, slot: slot}]
}

// servedAt is what the world answered for tag during slot.
func (w *world) servedAt(t *testing.T, tag string, slot time.Time) models.ClanDetails {
	t.Helper()
	w.mu.Lock()
	defer w.mu.Unlock()
	clan, ok := w.served[fetchKey{tag: tag, slot: slot}]
	if !ok {
		t.Fatalf("the world served nothing for %s during slot %s", tag, slot)
	}
	return clan
}
