package sandbox

import (
	"cmp"
	"sync"
	"time"

	"github.com/crownsdev/crowns/models"
	"github.com/crownsdev/crowns/upstream/catalog"
)

// Defaults of Config.
const (
	DefaultSeed         = 20160302
	DefaultClans        = 5000
	DefaultTrackAddress = "crowns.example"
)

// Tag lengths of the world's entities.
const (
	clanTagLength       = 8
	playerTagLength     = 9
	tournamentTagLength = 8
)

// Config shapes a world. Zero values take the defaults.
type Config struct {
	// Seed decides everything in the world (default DefaultSeed).
	Seed int64
	// Clock is the world's time; stats evolve as it moves (default the
	// system clock).
	Clock models.Clock
	// TrackAddress is the web address that some clans (about 7%) carry in
	// their description (default DefaultTrackAddress).
	TrackAddress string
	// Clans is how many clans the world has (default DefaultClans).
	Clans int
}

// World is the sandbox's game world. It is safe for concurrent use.
type World struct {
	seed         uint64
	clock        models.Clock
	trackAddress string
	catalog      *catalog.Catalog
	badges       []catalog.Badge
	locations    []catalog.Location
	cards        []catalog.Card
	clans        []clanProfile
	clanless     int
	clanTags     tagCodec
	playerTags   tagCodec
	tourneyTags  tagCodec
	summaries    summaryCache
}

// NewWorld builds a world from cfg. It panics only if the embedded catalog
// is corrupt, which the catalog's own tests rule out.
func NewWorld(cfg Config) *World {
	cat, err := catalog.Load()
	if err != nil {
		panic("sandbox: " + err.Error())
	}
	cfg.Seed = cmp.Or(cfg.Seed, DefaultSeed)
	cfg.Clock = cmp.Or[models.Clock](cfg.Clock, models.SystemClock{})
	cfg.TrackAddress = cmp.Or(cfg.TrackAddress, DefaultTrackAddress)
	cfg.Clans = cmp.Or(max(cfg.Clans, 0), DefaultClans)
	seed := uint64(cfg.Seed)
	w := &World{
		seed:         seed,
		clock:        cfg.Clock,
		trackAddress: cfg.TrackAddress,
		catalog:      cat,
		badges:       cat.Badges(),
		locations:    cat.Locations(),
		cards:        cat.Cards(),
		clanless:     max(cfg.Clans/5, 1),
		clanTags:     newTagCodec(clanTagLength, seed, saltClanTag),
		playerTags:   newTagCodec(playerTagLength, seed, saltPlayerTag),
		tourneyTags:  newTagCodec(tournamentTagLength, seed, saltTournamentTag),
	}
	w.clans = make([]clanProfile, cfg.Clans)
	for i := range w.clans {
		w.clans[i] = w.newClanProfile(i)
	}
	return w
}

// ClanTags lists the tags of every clan, in the world's order.
func (w *World) ClanTags() []string {
	tags := make([]string, len(w.clans))
	for i, c := range w.clans {
		tags[i] = c.tag
	}
	return tags
}

// TrackableClanTags lists the clans whose description carries the track
// address (in some casing): the ones a track request accepts.
func (w *World) TrackableClanTags() []string {
	var tags []string
	for _, c := range w.clans {
		if c.trackable {
			tags = append(tags, c.tag)
		}
	}
	return tags
}

// PlayerTags lists a sample of player tags: the leader of each of the first
// clans and a few clanless players. Every player tag that appears in the
// world's answers resolves too.
func (w *World) PlayerTags() []string {
	var tags []string
	for i := range min(len(w.clans), 20) {
		tags = append(tags, w.playerTags.encode(memberNumber(i, 0)))
	}
	for k := range min(w.clanless, 5) {
		tags = append(tags, w.playerTags.encode(w.clanlessNumber(k)))
	}
	return tags
}

// TournamentTags lists the tournaments that exist at the clock's current
// time and ended less than a day ago (or have not ended), oldest first.
func (w *World) TournamentTags() []string {
	var tags []string
	for _, t := range w.recentTournaments(w.clock.Now()) {
		tags = append(tags, t.tag)
	}
	return tags
}

// slotLength is the period of the world's stats: member trophies,
// donations and chest points move once per slot.
const slotLength = 4 * time.Hour

// slotOf is the number of the 4-hour slot t falls in (slots start at
// 00:00, 04:00, ... UTC).
func slotOf(t time.Time) int64 { return t.Unix() / int64(slotLength/time.Second) }

// summaryCache keeps the clans' score and donations of one slot, which
// clan search filters on.
type summaryCache struct {
	mu    sync.Mutex
	slot  int64
	clans []clanSummary
}
