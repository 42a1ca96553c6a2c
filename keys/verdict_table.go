package keys

import "sync/atomic"

// verdictTable is the verification cache's table: open addressing with
// linear probing, at most one live slot per key, searched without a lock.
//
// A slot holds a tag (the key's index, never emptyTag) and a verdict;
// keys of one tag (rare: the index has 64 bits) take a slot each.
// Writers, serialised by the cache's mutex, change a slot one atomic word
// at a time: a free slot gets its verdict before its tag, a verdict is
// dropped by storing nil (the slot keeps its tag, so that the probe
// sequences through it stay whole), and a slot of another tag whose
// verdict was dropped is taken over. A reader that races with a writer
// may therefore see a tag without its verdict, or a verdict that is no
// longer the tag's: it takes a verdict only when the whole cacheID
// matches, so the race costs at most a miss (a database lookup), never a
// wrong answer. Slots are never freed again, and at most half are ever
// used, so every probe ends at a free slot. A table that would pass half
// used is replaced by a new one holding its live verdicts; readers of the old
// one finish there.
type verdictTable struct {
	mask  uint64
	slots []verdictSlot
	// The rest is the writers' bookkeeping, under the cache's mutex.
	// live counts slots with a verdict; used, slots with a tag.
	live, used int
	// hand is where the search for a verdict to evict goes on from.
	hand uint64
}

type verdictSlot struct {
	tag     atomic.Uint64
	verdict atomic.Pointer[cachedVerdict]
}

// emptyTag marks a slot that has never been used.
const emptyTag = 0

// minVerdictSlots is the size of an empty table.
const minVerdictSlots = 64

// newVerdictTable is an empty table for live verdicts: at most a third
// full with them, so that many can be stored before it is half used.
func newVerdictTable(live int) *verdictTable {
	n := minVerdictSlots
	for n < 3*live {
		n *= 2
	}
	return &verdictTable{mask: uint64(n - 1), slots: make([]verdictSlot, n)}
}

// tagOf is the slot tag of a key: its index, but never emptyTag.
func tagOf(id *cacheID) uint64 {
	if tag := indexOf(id); tag != emptyTag {
		return tag
	}
	return 1
}

// find returns the verdict of the key of id, or nil.
func (t *verdictTable) find(id *cacheID) *cachedVerdict {
	tag := tagOf(id)
	for i := tag & t.mask; ; i = (i + 1) & t.mask {
		slot := &t.slots[i]
		switch slot.tag.Load() {
		case emptyTag:
			return nil
		case tag:
			if v := slot.verdict.Load(); v != nil && v.id == *id {
				return v
			}
		}
	}
}

// store puts v in the slot of its key, replacing the verdict there, or
// in a free or dropped slot, after evicting another verdict when limit
// are held. It reports false, having changed nothing, when v would need a
// free slot and the table is half used: the caller builds a bigger one.
func (t *verdictTable) store(v *cachedVerdict, limit int) bool {
	tag := tagOf(&v.id)
	// reusable is the first slot of the probe whose verdict was dropped.
	var reusable *verdictSlot
	for i := tag & t.mask; ; i = (i + 1) & t.mask {
		slot := &t.slots[i]
		switch slot.tag.Load() {
		case emptyTag:
			if reusable == nil {
				if 2*(t.used+1) > len(t.slots) {
					return false
				}
				t.used++
				reusable = slot
			}
			t.makeRoom(limit)
			reusable.tag.Store(tag)
			reusable.verdict.Store(v)
			t.live++
			return true
		case tag:
			if old := slot.verdict.Load(); old != nil && old.id == v.id {
				slot.verdict.Store(v)
				return true
			}
		}
		if reusable == nil && slot.verdict.Load() == nil {
			reusable = slot
		}
	}
}

// makeRoom evicts verdicts until fewer than limit are held: the next ones
// after the hand, in table order, which has nothing to do with age or
// use.
func (t *verdictTable) makeRoom(limit int) {
	for t.live >= max(limit, 1) {
		t.hand = (t.hand + 1) & t.mask
		if t.slots[t.hand].verdict.Swap(nil) != nil {
			t.live--
		}
	}
}

// copyLive stores the live verdicts of old in t, which is new and big
// enough.
func (t *verdictTable) copyLive(old *verdictTable) {
	for i := range old.slots {
		if v := old.slots[i].verdict.Load(); v != nil {
			t.store(v, len(t.slots))
		}
	}
}

// dropWhere drops every verdict drop tells.
func (t *verdictTable) dropWhere(drop func(*cachedVerdict) bool) {
	for i := range t.slots {
		if v := t.slots[i].verdict.Load(); v != nil && drop(v) {
			t.slots[i].verdict.Store(nil)
			t.live--
		}
	}
}
