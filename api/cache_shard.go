package api

import (
	"container/list"
	"sync"
	"time"
)

// cacheShard is one share of the response cache: its entries within its
// share of the budget, in least-recently-used order, and the groups they
// belong to. One mutex guards it all; a hit holds it for a map lookup and
// a move to the front of the order.
//
// An answer kept compressed only grows by its packed form the first time
// a client without gzip asks for it (see keepPacked), and the answers most
// requested lately (by any client) keep their plain form too, as an extra (see
// replace). To make room for a new entry, the least recently used extra
// goes before any entry does, as an entry's compressed form costs a
// seventh of its plain one and a missing plain form only an unpacking,
// where a missing entry costs a call to the game API or the database.
// Room for a packed or plain form is taken only from what is worth less
// (see roomLocked), by the requests of answers lately (hits counted per
// entry, halved every hitHalfLife): other forms of answers asked for far
// less often, and, for a packed form, entries no one asked for in the last
// 10 to 20 s.
// BenchmarkPlainFormAdmission replays Zipf-spread traffic (s = 1) moving
// between 1,000 battles and 1,000 histories in a 40 MiB cache: at 6,000
// requests a second, under 1% of identity requests are inflated in every
// phase (the first request of each answer), against 36–41% before
// answers had packed forms; 29–53% are served from plain forms (59–64%
// before) and the rest unpacked; under 0.3% of requests miss the cache
// for entries dropped to make room.
type cacheShard struct {
	mu     sync.Mutex
	budget int64
	used   int64
	// entries indexes order's elements by key; order runs from the most
	// recently used entry (front) to the least (back).
	entries map[string]*list.Element
	order   list.List
	// packed holds the entries whose answer keeps a packed form, most
	// recently used first.
	packed list.List
	// extras holds the entries that keep an extra plain form, most
	// recently used first.
	extras list.List
	groups map[string]map[string]struct{}
	// roomChecks counts the calls of roomLocked.
	roomChecks uint64
}

type cacheEntry struct {
	key     string
	group   string
	answer  *cachedAnswer
	expires time.Time
	size    int64
	// packedElement is the entry's element in cacheShard.packed while its
	// answer keeps a packed form; nil otherwise.
	packedElement *list.Element
	// extra is the entry's element in cacheShard.extras while its answer
	// keeps an extra plain form; nil otherwise.
	extra *list.Element
	// hits counts the times the entry was served, halved every
	// hitHalfLife (in hitPeriod), for the admission of plain forms (see
	// replace).
	hits      int
	hitPeriod int64
	// askedPeriod is the period of hitHalfLife in which the entry was last
	// served or stored (see roomLocked).
	askedPeriod int64
	// refusedPacked is the size of the entry's packed form when the cache
	// last had no room for it, which wouldKeepPacked asks for from then
	// on; 0 before any refusal.
	refusedPacked int64
	// roomCheck is the count of roomLocked calls of the shard at the call
	// that last counted the entry's plain form as room.
	roomCheck uint64
}

// periodOf is the period of hitHalfLife (counted from the Unix epoch)
// that holds t.
func periodOf(t time.Time) int64 { return t.UnixNano() / int64(hitHalfLife) }

// hitHalfLife is how fast an entry's count of requests fades: answers
// asked for a lot a minute ago, and no longer, give up their plain forms
// to those asked for now. In BenchmarkPlainFormAdmission 10 s adapted
// fastest (a minute: 55% after a move) and kept as many in steady state,
// at 60 requests a second as at 6,000.
const hitHalfLife = 10 * time.Second

// recentHits is the entry's count of requests as of now: halved once for
// each boundary between periods of hitHalfLife (counted from the Unix
// epoch) passed since it was last brought up to date. A time one period
// back (a request that began just before a boundary) changes nothing; a
// clock set further back starts the periods again from there.
func (e *cacheEntry) recentHits(now time.Time) int {
	period := periodOf(now)
	switch passed := period - e.hitPeriod; {
	case passed > 0:
		e.hits >>= min(passed, 62)
		e.hitPeriod = period
	case passed < -1:
		e.hitPeriod = period
	}
	return e.hits
}

func (sh *cacheShard) init(budget int64) {
	sh.budget = budget
	sh.entries = make(map[string]*list.Element)
	sh.groups = make(map[string]map[string]struct{})
}

// get returns the answer under key if it is fresh at now, and marks it
// the most recently used. The key is not kept.
func (sh *cacheShard) get(key []byte, now time.Time) (*cachedAnswer, bool) {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	return sh.freshLocked(sh.entries[string(key)], now)
}

// getString is get of a key held as a string.
func (sh *cacheShard) getString(key string, now time.Time) (*cachedAnswer, bool) {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	return sh.freshLocked(sh.entries[key], now)
}

// freshLocked is the answer of a looked-up element, if there is one and
// it is fresh at now; the element becomes the most recently used.
func (sh *cacheShard) freshLocked(element *list.Element, now time.Time) (*cachedAnswer, bool) {
	if element == nil {
		return nil, false
	}
	entry := element.Value.(*cacheEntry)
	if !now.Before(entry.expires) {
		// An expired entry is kept until replaced or evicted: see
		// responseCache.expired.
		return nil, false
	}
	sh.order.MoveToFront(element)
	entry.hits = entry.recentHits(now) + 1
	entry.askedPeriod = periodOf(now)
	if entry.extra != nil {
		sh.extras.MoveToFront(entry.extra)
	}
	if entry.packedElement != nil {
		sh.packed.MoveToFront(entry.packedElement)
	}
	return entry.answer, true
}

// expired is the answer under key whose lifetime ended before now.
func (sh *cacheShard) expired(key string, now time.Time) *cachedAnswer {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if element := sh.entries[key]; element != nil {
		if entry := element.Value.(*cacheEntry); !now.Before(entry.expires) {
			return entry.answer
		}
	}
	return nil
}

// put stores entry if current (asked under the lock) still says yes: it
// replaces the entry of its key, and the least recently used entries go
// until it fits the budget. An entry larger than the whole budget is not
// stored. An answer stored again under its key (at the end of its
// lifetime, now) keeps the key's count of requests, and a plain form
// kept beside its compressed one (a history answer that still holds, or
// battles read again unchanged, keep it) stays an extra, kept as replace
// would keep it.
func (sh *cacheShard) put(entry *cacheEntry, current func() bool, now time.Time) {
	completed := entry.answer
	if completed.hasExtraPlain() {
		entry.answer = completed.withoutPlain()
		entry.size -= int64(len(completed.plain))
	}
	if entry.size > sh.budget {
		return
	}
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if !current() {
		return
	}
	entry.hitPeriod, entry.askedPeriod = periodOf(now), periodOf(now)
	if old := sh.entries[entry.key]; old != nil {
		renewed := old.Value.(*cacheEntry)
		entry.hits = renewed.recentHits(now)
		sh.removeLocked(old)
	}
	sh.makeRoomLocked(entry.size)
	element := sh.order.PushFront(entry)
	sh.entries[entry.key] = element
	sh.used += entry.size
	if entry.answer.packed != nil {
		entry.packedElement = sh.packed.PushFront(entry)
	}
	if entry.group != "" {
		members, ok := sh.groups[entry.group]
		if !ok {
			members = make(map[string]struct{})
			sh.groups[entry.group] = members
		}
		members[entry.key] = struct{}{}
	}
	if completed != entry.answer {
		sh.keepPlainLocked(element, entry.answer, completed, now)
	}
}

// replace puts completed, previous with an extra plain form, in place of
// the answer under key, if that is still previous (see keepPlainLocked).
func (sh *cacheShard) replace(key string, previous, completed *cachedAnswer, now time.Time) {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if element := sh.entries[key]; element != nil {
		sh.keepPlainLocked(element, previous, completed, now)
	}
}

// keepPacked puts completed, previous with its packed form, in place of
// the answer under key, if that is still previous and room can be made
// for it (see roomLocked). The packed form is not an extra: it goes before
// the entry only to make room for the plain form of an answer asked for
// far more often (see roomLocked).
func (sh *cacheShard) keepPacked(key string, previous, completed *cachedAnswer, now time.Time) {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	element := sh.entries[key]
	if element == nil {
		return
	}
	entry := element.Value.(*cacheEntry)
	grown := completed.size() - previous.size()
	if entry.answer != previous || previous.packed != nil {
		return
	}
	if !sh.roomLocked(entry, grown, packedForm, now, false) {
		entry.refusedPacked = grown
		return
	}
	sh.roomLocked(entry, grown, packedForm, now, true)
	sh.growLocked(element, completed, grown)
	entry.packedElement = sh.packed.PushFront(entry)
}

// growLocked puts completed, the answer of element with another form of
// its body that grows it by grown bytes (room made for them), in place of
// its answer, and makes it the most recently used.
func (sh *cacheShard) growLocked(element *list.Element, completed *cachedAnswer, grown int64) {
	entry := element.Value.(*cacheEntry)
	sh.order.MoveToFront(element)
	entry.answer = completed
	entry.size += grown
	sh.used += grown
}

// wouldKeepPacked tells whether keepPacked would keep a packed form of
// about size bytes beside previous, the answer under key, at now; the
// packed form is made only then. Once keepPacked had no room for the
// entry's packed form, its exact size is asked for instead: an answer is
// not packed again for nothing on every request.
func (sh *cacheShard) wouldKeepPacked(key string, previous *cachedAnswer, size int64, now time.Time) bool {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	element := sh.entries[key]
	if element == nil {
		return false
	}
	entry := element.Value.(*cacheEntry)
	if entry.refusedPacked > 0 {
		size = entry.refusedPacked
	}
	return entry.answer == previous && entry.extra == nil && sh.roomLocked(entry, size, packedForm, now, false)
}

// form names the forms of an answer's body kept for clients without
// gzip, which roomLocked makes room for.
type form int

const (
	packedForm form = iota
	plainForm
)

// plainWorth weighs plain forms against each other: by their requests
// alone.
const plainWorth = 1

// packedWorth weighs packed forms against plain ones: a packed form saves
// a client without gzip an inflation (125 µs for a 162 kB battles answer)
// and a plain form saves it an unpacking (23 µs) in eight times the room,
// so byte for byte a packed form is worth about forty times as many
// requests as a plain form.
const packedWorth = 40

// idlePeriods is how many periods of hitHalfLife (10 to 20 s) an entry
// must have gone unasked before a packed form may take its room.
const idlePeriods = 2

// roomLocked tells whether entry may grow by grown bytes for a form of
// its body, and, with take, makes that room, which only a call without
// take under the same lock may say can be made. The room is free, or is
// made, least recently used first, from what is worth less than the form
// by the requests of their answers lately (see recentHits):
//
//   - for a packed form: plain forms kept as extras by answers asked for
//     less than packedWorth times as often as entry's, then entries no
//     one asked for in the last idlePeriods of hitHalfLife;
//   - for a plain form: plain forms of answers asked for less often, then
//     packed forms of answers asked for at most 1/packedWorth as often (a
//     count plus one, against the halving).
//
// Entries still in use never go, nor any for a plain form: producing an
// entry again costs a call to the game API or a database read, and
// compressing it, far more than these forms save.
func (sh *cacheShard) roomLocked(entry *cacheEntry, grown int64, kind form, now time.Time, take bool) bool {
	if entry.size+grown > sh.budget {
		return false
	}
	short := sh.used + grown - sh.budget
	hits := entry.recentHits(now)
	worth := plainWorth
	if kind == packedForm {
		worth = packedWorth
	}
	sh.roomChecks++
	for element := sh.extras.Back(); short > 0 && element != nil; {
		victim := element.Value.(*cacheEntry)
		if victim == entry || victim.recentHits(now) >= worth*hits {
			break
		}
		previous := element.Prev()
		short -= int64(len(victim.answer.plain))
		victim.roomCheck = sh.roomChecks
		if take {
			sh.dropExtraLocked(victim)
		}
		element = previous
	}
	if kind == plainForm {
		for element := sh.packed.Back(); short > 0 && element != nil; {
			victim := element.Value.(*cacheEntry)
			// A count is whole requests halved: one more stands for what
			// the halving dropped, so that an answer asked for once a
			// while ago is not taken for one never asked.
			if victim == entry || (victim.recentHits(now)+1)*packedWorth > hits {
				break
			}
			previous := element.Prev()
			short -= int64(len(victim.answer.packed))
			if take {
				sh.dropPackedLocked(victim)
			}
			element = previous
		}
		return short <= 0
	}
	period := periodOf(now)
	for element := sh.order.Back(); short > 0; {
		if element == nil {
			return false
		}
		victim := element.Value.(*cacheEntry)
		if victim == entry || period-victim.askedPeriod < idlePeriods {
			return false
		}
		previous := element.Prev()
		// A plain form counted with the extras above (and, with take,
		// dropped there) is not counted again.
		freed := victim.size
		if victim.roomCheck == sh.roomChecks {
			freed -= int64(len(victim.extraPlain()))
		}
		short -= freed
		if take {
			sh.removeLocked(element)
		}
		element = previous
	}
	return true
}

// extraPlain is the plain form the entry keeps as an extra; nil when it
// keeps none.
func (e *cacheEntry) extraPlain() []byte {
	if e.extra == nil {
		return nil
	}
	return e.answer.plain
}

// keepPlainLocked puts completed, previous with an extra plain form, in
// place of the answer of element, if that is still previous and room can
// be made for it (see roomLocked): the same entry, lifetime and place in
// the order, with the size of the new answer.
func (sh *cacheShard) keepPlainLocked(element *list.Element, previous, completed *cachedAnswer, now time.Time) {
	entry := element.Value.(*cacheEntry)
	grown := completed.size() - previous.size()
	if !sh.admitsPlainLocked(entry, previous, grown, now) {
		return
	}
	sh.roomLocked(entry, grown, plainForm, now, true)
	sh.growLocked(element, completed, grown)
	entry.extra = sh.extras.PushFront(entry)
}

// wouldKeepPlain tells whether replace would keep a plain form beside
// previous, the answer under key: what admitsPlainLocked says of it now.
func (sh *cacheShard) wouldKeepPlain(key string, previous *cachedAnswer, now time.Time) bool {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	element := sh.entries[key]
	if element == nil {
		return false
	}
	return sh.admitsPlainLocked(element.Value.(*cacheEntry), previous, int64(previous.length), now)
}

// admitsPlainLocked tells whether entry, still holding previous and no
// plain form, may keep a plain form that grows it by grown bytes (see
// roomLocked).
func (sh *cacheShard) admitsPlainLocked(entry *cacheEntry, previous *cachedAnswer, grown int64, now time.Time) bool {
	if entry.answer != previous || entry.extra != nil {
		return false
	}
	return sh.roomLocked(entry, grown, plainForm, now, false)
}

// dropExtraLocked takes the extra plain form out of entry, which keeps
// its compressed and packed forms.
func (sh *cacheShard) dropExtraLocked(entry *cacheEntry) {
	sh.extras.Remove(entry.extra)
	entry.extra = nil
	sh.shrinkLocked(entry, entry.answer.withoutPlain())
}

// dropPackedLocked takes the packed form out of entry, which keeps its
// other forms.
func (sh *cacheShard) dropPackedLocked(entry *cacheEntry) {
	sh.packed.Remove(entry.packedElement)
	entry.packedElement = nil
	sh.shrinkLocked(entry, entry.answer.withoutPacked())
}

// shrinkLocked puts shrunk, the answer of entry with a form of its body
// taken out, in place of its answer (the counterpart of growLocked).
func (sh *cacheShard) shrinkLocked(entry *cacheEntry, shrunk *cachedAnswer) {
	shrink := entry.answer.size() - shrunk.size()
	entry.answer = shrunk
	entry.size -= shrink
	sh.used -= shrink
}

// makeRoomLocked drops the least recently used extras, then the least
// recently used entries, until size more bytes fit the budget.
func (sh *cacheShard) makeRoomLocked(size int64) {
	for sh.used+size > sh.budget && sh.extras.Len() > 0 {
		sh.dropExtraLocked(sh.extras.Back().Value.(*cacheEntry))
	}
	for sh.used+size > sh.budget {
		victim := sh.order.Back()
		if victim == nil {
			return
		}
		sh.removeLocked(victim)
	}
}

// removeLocked takes an element out of the order, the index and the
// accounting.
func (sh *cacheShard) removeLocked(element *list.Element) {
	entry := sh.order.Remove(element).(*cacheEntry)
	delete(sh.entries, entry.key)
	if entry.extra != nil {
		sh.extras.Remove(entry.extra)
		entry.extra = nil
	}
	if entry.packedElement != nil {
		sh.packed.Remove(entry.packedElement)
		entry.packedElement = nil
	}
	sh.used -= entry.size
	if entry.group == "" {
		return
	}
	if members := sh.groups[entry.group]; members != nil {
		delete(members, entry.key)
		if len(members) == 0 {
			delete(sh.groups, entry.group)
		}
	}
}

// dropGroup removes the entries of group.
func (sh *cacheShard) dropGroup(group string) {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	for key := range sh.groups[group] {
		if element := sh.entries[key]; element != nil {
			sh.removeLocked(element)
		}
	}
}

// dropAllGroups removes every entry that belongs to a group.
func (sh *cacheShard) dropAllGroups() {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	for _, members := range sh.groups {
		for key := range members {
			if element := sh.entries[key]; element != nil {
				sh.removeLocked(element)
			}
		}
	}
}
