package sandbox

import (
	"cmp"
	"slices"
	"time"

	"github.com/crownsdev/crowns/upstream/official"
)

// tournamentsPerDay is how many tournaments the world's players create
// each day.
const tournamentsPerDay = 120

// Tournament statuses.
const (
	statusInPreparation = "inPreparation"
	statusInProgress    = "inProgress"
	statusEnded         = "ended"
)

// tournamentProfile is what does not change about a tournament; its
// status, members and scores follow from the time.
type tournamentProfile struct {
	number      int
	tag         string
	kind        string // "open" or "passwordProtected"
	name        string
	description string
	created     time.Time
	preparation time.Duration
	duration    time.Duration
	maxCapacity int
	// finalCapacity is how many players join in the end; fillTime is how
	// long after creation they have all joined.
	finalCapacity int
	fillTime      time.Duration
	levelCap      int
	gameModeID    int
	firstClan     int
}

// tournament derives tournament n: the n%tournamentsPerDay-th one created
// on day n/tournamentsPerDay of the world.
func (w *World) tournament(n int) tournamentProfile {
	d := newDraw(w.seed, saltTournament, uint64(n))
	day := int64(n / tournamentsPerDay)
	t := tournamentProfile{
		number:      n,
		tag:         w.tourneyTags.encode(n),
		kind:        "open",
		name:        tournamentName(d),
		description: pick(d, tournamentDescriptions),
		created:     time.Unix(worldOriginUnix+day*86400+int64(d.intn(86400)), 0).UTC(),
		preparation: time.Duration(pick(d, []int{1, 1, 2})) * time.Hour,
		duration:    time.Duration(pick(d, []int{1, 2, 4})) * time.Hour,
		maxCapacity: pick(d, []int{50, 100, 200, 1000, 1000}),
		levelCap:    pick(d, []int{0, 9, 11, 13}),
		gameModeID:  pick(d, []int{72000009, 72000013, 72000024}),
		firstClan:   d.intn(len(w.clans)),
	}
	if d.percent(30) {
		t.kind = "passwordProtected"
	}
	if d.percent(30) {
		t.finalCapacity, t.fillTime = t.maxCapacity, t.preparation/2
	} else {
		t.finalCapacity, t.fillTime = d.between(1, t.maxCapacity*95/100), t.preparation+t.duration/2
	}
	return t
}

// tournamentNumber is the number of a tournament tag that exists at now.
func (w *World) tournamentNumber(tag string, now time.Time) (int, bool) {
	n, ok := w.tourneyTags.decode(tag)
	return n, ok && !w.tournament(n).created.After(now)
}

// tournamentNumberNear is a tournament created on the day before at.
func (w *World) tournamentNumberNear(d *draw, at time.Time) int {
	day := max((at.Unix()-worldOriginUnix)/86400-1, 0)
	return int(day)*tournamentsPerDay + d.intn(tournamentsPerDay)
}

func (t tournamentProfile) started() time.Time { return t.created.Add(t.preparation) }
func (t tournamentProfile) ended() time.Time   { return t.started().Add(t.duration) }

// statusAt is the tournament's status at now.
func (t tournamentProfile) statusAt(now time.Time) string {
	switch {
	case now.Before(t.started()):
		return statusInPreparation
	case now.Before(t.ended()):
		return statusInProgress
	default:
		return statusEnded
	}
}

// capacityAt is how many players have joined by now: the creator at once,
// the others steadily until fillTime.
func (t tournamentProfile) capacityAt(now time.Time) int {
	elapsed := now.Sub(t.created)
	if elapsed >= t.fillTime {
		return t.finalCapacity
	}
	return max(int(int64(t.finalCapacity)*int64(elapsed)/int64(t.fillTime)), 1)
}

// headerAt is the tournament as search lists it at now.
func (w *World) headerAt(t tournamentProfile, now time.Time) official.TournamentHeader {
	return official.TournamentHeader{
		Tag:                 "#" + t.tag,
		Type:                t.kind,
		Status:              t.statusAt(now),
		CreatorTag:          "#" + w.tournamentPlayer(t, 0).tag,
		Name:                t.name,
		Description:         t.description,
		LevelCap:            t.levelCap,
		Capacity:            t.capacityAt(now),
		MaxCapacity:         t.maxCapacity,
		PreparationDuration: int(t.preparation / time.Second),
		Duration:            int(t.duration / time.Second),
		CreatedTime:         official.FormatTime(t.created),
		GameMode:            official.GameMode{ID: t.gameModeID},
	}
}

// tournamentAt is the full answer of /tournaments/{tag} at now.
func (w *World) tournamentAt(t tournamentProfile, now time.Time) official.Tournament {
	out := official.Tournament{TournamentHeader: w.headerAt(t, now)}
	status := out.Status
	if status != statusInPreparation {
		out.StartedTime = official.FormatTime(t.started())
	}
	if status == statusEnded {
		out.EndedTime = official.FormatTime(t.ended())
	}
	played := min(max(now.Sub(t.started()), 0), t.duration)
	out.MembersList = make([]official.TournamentMember, out.Capacity)
	for i := range out.MembersList {
		p := w.tournamentPlayer(t, i)
		final := int(hashOf(w.seed, saltTournamentMember, uint64(t.number), uint64(i)) % 400)
		out.MembersList[i] = official.TournamentMember{
			Tag:   "#" + p.tag,
			Name:  p.name,
			Score: int(int64(final) * int64(played) / int64(t.duration)),
			Clan:  w.playerClan(p),
		}
	}
	slices.SortStableFunc(out.MembersList, func(a, b official.TournamentMember) int { return cmp.Compare(b.Score, a.Score) })
	for i := range out.MembersList {
		out.MembersList[i].Rank = i + 1
	}
	return out
}

// tournamentPlayer is the i-th player to join: a member of the i-th clan
// after the tournament's first one, so that players do not repeat.
func (w *World) tournamentPlayer(t tournamentProfile, i int) playerProfile {
	clan := (t.firstClan + i) % len(w.clans)
	position := int(hashOf(w.seed, saltTournamentMember, uint64(t.number), uint64(i), 1) % uint64(w.clans[clan].memberCount))
	return w.member(clan, position)
}

// recentTournaments are the tournaments that exist at now and ended less
// than a day before (or have not ended), oldest first.
func (w *World) recentTournaments(now time.Time) []tournamentProfile {
	today := (now.Unix() - worldOriginUnix) / 86400
	var out []tournamentProfile
	for day := max(today-2, 0); day <= today; day++ {
		for j := range tournamentsPerDay {
			t := w.tournament(int(day)*tournamentsPerDay + j)
			if !t.created.After(now) && t.ended().After(now.Add(-24*time.Hour)) {
				out = append(out, t)
			}
		}
	}
	slices.SortStableFunc(out, func(a, b tournamentProfile) int { return a.created.Compare(b.created) })
	return out
}
