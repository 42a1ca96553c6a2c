package sandbox

import (
	"cmp"
	"slices"
	"strings"
	"time"

	"github.com/crownsdev/crowns/upstream/catalog"
	"github.com/crownsdev/crowns/upstream/official"
)

// maxMembers is the most members a clan has.
const maxMembers = 50

// clanProfile is what does not change about a clan.
type clanProfile struct {
	tag              string
	name             string
	folded           string // the name in lower case, for search
	kind             string // "open", "inviteOnly" or "closed"
	description      string
	badgeID          int
	location         *catalog.Location
	requiredTrophies int
	memberCount      int
	baseTrophies     int
	warTrophies      int
	trackable        bool
	// departedShare is the percentage the week's donations of members who
	// have left since add to those of the members listed: the game counts
	// them in the clan's donationsPerWeek, so that figure exceeds the
	// members' sum.
	departedShare int
}

// newClanProfile derives clan i from the seed.
func (w *World) newClanProfile(i int) clanProfile {
	d := newDraw(w.seed, saltClan, uint64(i))
	c := clanProfile{
		tag:          w.clanTags.encode(i),
		name:         clanName(d),
		badgeID:      pick(d, w.badges).ID,
		baseTrophies: d.between(300, 7000),
		warTrophies:  d.between(0, 4000),
		memberCount:  d.between(1, maxMembers-1),
	}
	c.folded = strings.ToLower(c.name)
	switch r := d.intn(100); {
	case r < 55:
		c.kind = "open"
	case r < 90:
		c.kind = "inviteOnly"
	default:
		c.kind = "closed"
	}
	if d.percent(30) {
		c.memberCount = maxMembers
	}
	if !d.percent(30) {
		c.requiredTrophies = max(c.baseTrophies-d.between(0, 1500), 0) / 100 * 100
	}
	if !d.percent(3) {
		location := pick(d, w.locations)
		c.location = &location
	}
	switch r := d.intn(100); {
	case r < 7:
		c.description, c.trackable = trackedDescription(d, w.trackAddress, c.tag), true
	case r < 8:
		c.description = nearMissDescription(w.trackAddress)
	default:
		c.description = pick(d, plainDescriptions)
	}
	c.departedShare = newDraw(w.seed, saltDepartedDonations, uint64(i)).between(0, 9)
	return c
}

// clanNumber is the index of a clan tag, or false when the world has no
// such clan.
func (w *World) clanNumber(tag string) (int, bool) {
	n, ok := w.clanTags.decode(tag)
	return n, ok && n < len(w.clans)
}

// clanAt is the full answer of /clans/{tag} at now.
func (w *World) clanAt(i int, now time.Time) official.Clan {
	c := w.clans[i]
	members := w.membersAt(i, now)
	trophies := make([]int, len(members))
	donations := 0
	for k, m := range members {
		trophies[k] = m.Trophies
		donations += m.Donations
	}
	out := w.clanHeader(i, clanSummary{score: clanScore(trophies), donations: donations})
	out.Description = c.description
	out.ClanChestStatus = "inactive"
	out.MemberList = members
	return out
}

// clanHeader is a clan as search lists it: no description, no members.
func (w *World) clanHeader(i int, summary clanSummary) official.Clan {
	c := w.clans[i]
	out := official.Clan{
		Tag:              "#" + c.tag,
		Name:             c.name,
		Type:             c.kind,
		BadgeID:          c.badgeID,
		ClanScore:        summary.score,
		ClanWarTrophies:  c.warTrophies,
		RequiredTrophies: c.requiredTrophies,
		DonationsPerWeek: summary.donations + summary.donations*c.departedShare/100,
		ClanChestLevel:   1,
		Members:          c.memberCount,
	}
	if c.location != nil {
		location := wireLocation(*c.location)
		out.Location = &location
	}
	return out
}

// membersAt lists a clan's members at now, by clan rank.
func (w *World) membersAt(i int, now time.Time) []official.ClanMember {
	slot := slotOf(now)
	c := w.clans[i]
	type ranked struct {
		player        playerProfile
		trophies, was int
	}
	all := make([]ranked, c.memberCount)
	for s := range all {
		p := w.member(i, s)
		trophies := w.trophiesAt(p, slot)
		all[s] = ranked{player: p, trophies: trophies, was: w.trophiesAt(p, slot-1)}
	}
	previous := slices.Clone(all)
	slices.SortStableFunc(previous, func(a, b ranked) int { return cmp.Compare(b.was, a.was) })
	previousRank := make(map[int]int, len(previous))
	for r, m := range previous {
		previousRank[m.player.number] = r + 1
	}
	slices.SortStableFunc(all, func(a, b ranked) int { return cmp.Compare(b.trophies, a.trophies) })
	out := make([]official.ClanMember, len(all))
	for r, m := range all {
		p := m.player
		chest := w.chestPointsAt(p, slot)
		arena := w.arenaOf(m.trophies)
		out[r] = official.ClanMember{
			Tag:               "#" + p.tag,
			Name:              p.name,
			Role:              p.role,
			LastSeen:          official.FormatTime(w.lastSeen(p, now)),
			ExpLevel:          p.expLevel,
			Trophies:          m.trophies,
			Arena:             official.Arena{ID: arena.ID, Name: arena.Name},
			ClanRank:          r + 1,
			PreviousClanRank:  previousRank[p.number],
			Donations:         w.donationsAt(p, slot),
			DonationsReceived: w.receivedAt(p, slot),
			ClanChestPoints:   &chest,
		}
	}
	return out
}

// clanScore weighs the members' trophies the way the game does, the best
// members counting most.
func clanScore(trophies []int) int {
	sorted := slices.Clone(trophies)
	slices.SortFunc(sorted, func(a, b int) int { return cmp.Compare(b, a) })
	weights := [5]int{50, 25, 12, 10, 3}
	score := 0
	for r, t := range sorted {
		score += t * weights[min(r/10, len(weights)-1)] / 100
	}
	return score
}

// clanSummary is what clan search filters on and shows of a clan.
type clanSummary struct {
	score     int
	donations int
}

// summariesAt returns every clan's summary for the slot of now, computed
// once per slot.
func (w *World) summariesAt(now time.Time) []clanSummary {
	slot := slotOf(now)
	w.summaries.mu.Lock()
	defer w.summaries.mu.Unlock()
	if w.summaries.clans != nil && w.summaries.slot == slot {
		return w.summaries.clans
	}
	summaries := make([]clanSummary, len(w.clans))
	for i, c := range w.clans {
		trophies := make([]int, c.memberCount)
		for s := range trophies {
			p := w.member(i, s)
			trophies[s] = w.trophiesAt(p, slot)
			summaries[i].donations += w.donationsAt(p, slot)
		}
		summaries[i].score = clanScore(trophies)
	}
	w.summaries.slot, w.summaries.clans = slot, summaries
	return summaries
}
