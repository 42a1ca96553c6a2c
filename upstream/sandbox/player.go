package sandbox

import (
	"slices"
	"time"

	"github.com/crownsdev/crowns/upstream/catalog"
)

// playerProfile is what does not change about a player.
type playerProfile struct {
	number       int
	tag          string
	name         string
	clan         int // -1 when clanless
	role         string
	expLevel     int
	baseTrophies int
	activity     int // 1 (rarely plays) to 10 (plays all day)
	battleEvery  time.Duration
	levelGap     int // how far below the maximum level the player's cards are
	deck         [8]int
}

// memberNumber is the player number of the member at position in a
// clan's member list (0 for its leader).
func memberNumber(clan, position int) int { return clan*maxMembers + position }

// clanlessNumber is the player number of the k-th clanless player.
func (w *World) clanlessNumber(k int) int { return len(w.clans)*maxMembers + k }

// playerNumber is the number of a player tag, or false when the world has
// no such player.
func (w *World) playerNumber(tag string) (int, bool) {
	n, ok := w.playerTags.decode(tag)
	if !ok {
		return 0, false
	}
	if clan, position := n/maxMembers, n%maxMembers; clan < len(w.clans) {
		return n, position < w.clans[clan].memberCount
	}
	return n, n < w.clanlessNumber(w.clanless)
}

// member is the player at position in a clan's member list.
func (w *World) member(clan, position int) playerProfile {
	return w.player(memberNumber(clan, position))
}

// player derives a player from its number (which playerNumber checked).
func (w *World) player(n int) playerProfile {
	d := newDraw(w.seed, saltPlayer, uint64(n))
	p := playerProfile{
		number:   n,
		tag:      w.playerTags.encode(n),
		name:     playerName(d),
		clan:     -1,
		activity: d.between(1, 10),
		levelGap: d.between(0, 4),
	}
	p.battleEvery = time.Duration(d.between(40, 300)) * time.Minute / time.Duration(1+p.activity/4)
	if clan := n / maxMembers; clan < len(w.clans) {
		p.clan = clan
		p.role = roleOf(n%maxMembers, w.clans[clan].memberCount)
		p.baseTrophies = max(w.clans[clan].baseTrophies+d.between(-800, 800), 0)
	} else {
		p.baseTrophies = d.between(0, 6000)
	}
	p.expLevel = min(1+p.baseTrophies/500+d.between(0, 3), 14)
	for i, card := range w.deckOf(d) {
		p.deck[i] = card
	}
	return p
}

// roleOf gives the first position of the member list the leadership, the
// next tenth of the clan co-leaders, the next quarter elders.
func roleOf(position, memberCount int) string {
	switch {
	case position == 0:
		return "leader"
	case position <= memberCount/10:
		return "coLeader"
	case position <= memberCount/10+memberCount/4:
		return "elder"
	default:
		return "member"
	}
}

// deckOf picks eight different cards.
func (w *World) deckOf(d *draw) []int {
	deck := make([]int, 0, 8)
	for len(deck) < 8 {
		id := pick(d, w.cards).ID
		if !slices.Contains(deck, id) {
			deck = append(deck, id)
		}
	}
	return deck
}

// trophyWindow is how many past slots of trophy steps make a player's
// trophies: a bounded random walk around the player's base.
const trophyWindow = 24

// trophiesAt is the player's trophy count during slot.
func (w *World) trophiesAt(p playerProfile, slot int64) int {
	trophies := p.baseTrophies
	for j := slot - trophyWindow; j < slot; j++ {
		trophies += int(hashOf(w.seed, saltTrophyStep, uint64(p.number), uint64(j))%61) - 30
	}
	return max(trophies, 0)
}

// slotsPerDay is how many 4-hour slots a day has.
const slotsPerDay = 6

// weekStartSlot is the first slot of the week (Monday 00:00 UTC) slot is
// in. The Unix epoch was a Thursday, three days after a Monday.
func weekStartSlot(slot int64) int64 {
	day := floorDiv(slot, slotsPerDay)
	return (day - floorMod(day+3, 7)) * slotsPerDay
}

// weeklyCount is a counter that grows by up to perSlot every slot and
// starts again from zero every Monday: donations, cards received, chest
// points.
func (w *World) weeklyCount(p playerProfile, slot int64, salt uint64, perSlot int) int {
	total := 0
	for j := weekStartSlot(slot); j <= slot; j++ {
		total += int(hashOf(w.seed, salt, uint64(p.number), uint64(j)) % uint64(perSlot+1))
	}
	return total
}

// donationsAt is how many cards the player gave this week by slot.
func (w *World) donationsAt(p playerProfile, slot int64) int {
	return w.weeklyCount(p, slot, saltDonations, p.activity*4)
}

// receivedAt is how many cards the player received this week by slot.
func (w *World) receivedAt(p playerProfile, slot int64) int {
	return w.weeklyCount(p, slot, saltDonationsReceived, p.activity*3)
}

// chestPointsAt is the player's clan chest points this week by slot.
func (w *World) chestPointsAt(p playerProfile, slot int64) int {
	return w.weeklyCount(p, slot, saltChestPoints, p.activity*2)
}

// lastSeen is a moment shortly before now, further back for players who
// play less.
func (w *World) lastSeen(p playerProfile, now time.Time) time.Time {
	span := uint64(time.Duration(11-p.activity) * 3 * time.Hour / time.Second)
	back := hashOf(w.seed, saltLastSeen, uint64(p.number), uint64(slotOf(now))) % span
	return now.Add(-time.Duration(back) * time.Second).Truncate(time.Second)
}

// arenaOf is the arena of a trophy count.
func (w *World) arenaOf(trophies int) catalog.Arena { return w.catalog.ArenaForTrophies(trophies) }

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

func floorMod(a, b int64) int64 { return a - floorDiv(a, b)*b }
