package sandbox

// Salts keep the derived streams of different subjects apart.
const (
	saltClan uint64 = iota + 1
	saltPlayer
	saltClanTag
	saltPlayerTag
	saltTournamentTag
	saltTrophyStep
	saltDonations
	saltDonationsReceived
	saltChestPoints
	saltLastSeen
	saltBattle
	saltBattleTime
	saltTournament
	saltTournamentMember
	saltDepartedDonations
	saltStarLevel
)

// mix is the splitmix64 finalizer: a cheap, well-spread hash of x.
func mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// hashOf combines a seed and parts into one well-spread value.
func hashOf(seed uint64, parts ...uint64) uint64 {
	h := mix(seed)
	for _, p := range parts {
		h = mix(h ^ p)
	}
	return h
}

// draw is a small deterministic random stream.
type draw struct{ state uint64 }

// newDraw starts the stream of a subject.
func newDraw(seed uint64, parts ...uint64) *draw { return &draw{state: hashOf(seed, parts...)} }

func (d *draw) next() uint64 {
	d.state += 0x9e3779b97f4a7c15
	return mix(d.state)
}

// intn is a number in [0, n); 0 when n <= 0.
func (d *draw) intn(n int) int {
	if n <= 0 {
		return 0
	}
	return int(d.next() % uint64(n))
}

// between is a number in [lo, hi].
func (d *draw) between(lo, hi int) int { return lo + d.intn(hi-lo+1) }

// percent is true with probability p%.
func (d *draw) percent(p int) bool { return d.intn(100) < p }

// pick is one of items.
func pick[T any](d *draw, items []T) T { return items[d.intn(len(items))] }
