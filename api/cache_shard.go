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
// The plain forms kept beside compressed ones for clients without gzip
// (see replace) are extras: to make room, the least recently used extra
// goes before any entry does, as an entry's compressed form costs a
// seventh of its plain one and a missing plain form only an inflation,
// where a missing entry costs a call to the game API or the database.
// A plain form takes the place of another only when its answer has been
// asked for more often lately (hits counted per entry, halved every
// hitHalfLife): the budget holds the plain forms of the answers most
// requested now, neither of the last ones asked nor of those that were
// popular minutes ago. BenchmarkPlainFormAdmission replays Zipf-spread
// traffic (s = 1) moving between 1,000 battles and 1,000 histories in a
// 40 MiB cache: in the 25 s after traffic moved to the histories, 59–63%
// of identity requests found a plain form with this rule (48–51% with
// counts that never fade); in the 60 s after it moved back to the
// battles, 56–59% (39–45%); 62–64% in steady state; least recently used
// replacement alone, 51–52% throughout.
type cacheShard struct {
	mu     sync.Mutex
	budget int64
	used   int64
	// entries indexes order's elements by key; order runs from the most
	// recently used entry (front) to the least (back).
	entries map[string]*list.Element
	order   list.List
	// extras holds the entries that keep an extra plain form, most
	// recently used first.
	extras list.List
	groups map[string]map[string]struct{}
}

type cacheEntry struct {
	key     string
	group   string
	answer  *cachedAnswer
	expires time.Time
	size    int64
	// extra is the entry's element in cacheShard.extras while its answer
	// keeps an extra plain form; nil otherwise.
	extra *list.Element
	// hits counts the times the entry was served, halved every
	// hitHalfLife (in hitPeriod), for the admission of plain forms (see
	// replace).
	hits      int
	hitPeriod int64
}

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
	period := now.UnixNano() / int64(hitHalfLife)
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
	if entry.extra != nil {
		sh.extras.MoveToFront(entry.extra)
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
// kept beside its compressed one (a history answer that still holds
// keeps it) stays an extra, kept as replace would keep it.
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
	if old := sh.entries[entry.key]; old != nil {
		renewed := old.Value.(*cacheEntry)
		entry.hits, entry.hitPeriod = renewed.hits, renewed.hitPeriod
		sh.removeLocked(old)
	}
	sh.makeRoomLocked(entry.size)
	element := sh.order.PushFront(entry)
	sh.entries[entry.key] = element
	sh.used += entry.size
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

// keepPlainLocked puts completed, previous with an extra plain form, in
// place of the answer of element, if that is still previous: the same
// entry, lifetime and place in the order, with the size of the new
// answer. Room is made by dropping the least recently used extras of
// other entries, never whole entries, and only when those that make room
// enough were each asked for less often than this entry lately;
// otherwise the entry keeps previous and no extra goes.
func (sh *cacheShard) keepPlainLocked(element *list.Element, previous, completed *cachedAnswer, now time.Time) {
	entry := element.Value.(*cacheEntry)
	grown := completed.size() - previous.size()
	if !sh.admitsPlainLocked(entry, previous, grown, now) {
		return
	}
	for sh.used+grown > sh.budget {
		if !sh.dropExtraLocked() {
			return
		}
	}
	sh.order.MoveToFront(element)
	entry.answer = completed
	entry.size += grown
	sh.used += grown
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
// plain form, may keep a plain form that grows it by grown bytes: when it
// fits the budget, or when the least recently used plain forms of other
// entries, which go first to make room, were each asked for less often
// lately (see recentHits) and together make room enough.
func (sh *cacheShard) admitsPlainLocked(entry *cacheEntry, previous *cachedAnswer, grown int64, now time.Time) bool {
	if entry.answer != previous || entry.extra != nil {
		return false
	}
	short := sh.used + grown - sh.budget
	hits := entry.recentHits(now)
	for element := sh.extras.Back(); short > 0; element = element.Prev() {
		if element == nil {
			return false
		}
		victim := element.Value.(*cacheEntry)
		if victim.recentHits(now) >= hits {
			return false
		}
		short -= int64(len(victim.answer.plain))
	}
	return true
}

// dropExtraLocked takes the least recently used extra plain form out of
// its entry, which keeps its compressed form; false when there is none.
func (sh *cacheShard) dropExtraLocked() bool {
	last := sh.extras.Back()
	if last == nil {
		return false
	}
	entry := sh.extras.Remove(last).(*cacheEntry)
	entry.extra = nil
	shrunk := entry.answer.withoutPlain()
	shrink := entry.answer.size() - shrunk.size()
	entry.answer = shrunk
	entry.size -= shrink
	sh.used -= shrink
	return true
}

// makeRoomLocked drops the least recently used extras, then the least
// recently used entries, until size more bytes fit the budget.
func (sh *cacheShard) makeRoomLocked(size int64) {
	for sh.used+size > sh.budget && sh.dropExtraLocked() {
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
