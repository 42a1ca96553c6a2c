package models

// HistoryFingerprint stands for everything a history answer of (tag,
// kind, from, to) is made of, in a few numbers: the clan's row and its
// tracked and weekly flags (which decide the refusals ErrNotTracked and
// ErrWeeklyNotEnabled), and the count, first, last and sum of the slots
// of its snapshots of that kind in the window. Two fingerprints are
// compared with ==; equal ones mean the answer read with the first is
// the answer now.
//
// The slots are enough because a snapshot row never changes: it is
// inserted once (a second write of its (clan, kind, slot) does nothing)
// and leaves only through retention, which deletes the oldest slots
// first; the player dictionary it refers to is immutable too. Inserts
// alone or deletes alone move the count. Retention deleting from the
// window (its period shorter than the window) always takes the first
// slot, so the two together go unseen only when that very slot is
// imported again, older than the retention cutoff, within one cache
// lifetime, and the sum comes out the same.
type HistoryFingerprint struct {
	// ClanID is 0 for a clan never tracked.
	ClanID         int64
	Active, Weekly bool
	// Snapshots counts the snapshots in the window, FirstSlot and
	// LastSlot are the first and last of their slots in Unix seconds,
	// SlotSum the sum of those.
	Snapshots int64
	FirstSlot int64
	LastSlot  int64
	SlotSum   int64
}

// NewHistoryFingerprint starts the fingerprint of a clan's history answer, to
// which AddSlot adds the snapshots read.
func NewHistoryFingerprint(clanID int64, active, weekly bool) HistoryFingerprint {
	return HistoryFingerprint{ClanID: clanID, Active: active, Weekly: weekly}
}

// AddSlot counts a snapshot's slot into the fingerprint.
func (f *HistoryFingerprint) AddSlot(slot int64) {
	if f.Snapshots == 0 || slot < f.FirstSlot {
		f.FirstSlot = slot
	}
	if f.Snapshots == 0 || slot > f.LastSlot {
		f.LastSlot = slot
	}
	f.Snapshots++
	f.SlotSum += slot
}
