package api

import (
	"sync"
	"sync/atomic"
	"time"
)

// cacheShard is one share of the response cache: its entries within its
// budget, and the groups they belong to.
//
// A hit writes nothing that another core reads: the index is an immutable
// map, replaced whole (copied) by each change under the writers' lock and
// read without one; an entry's last use is stamped at most once a second.
// Changes come from misses, whose production (an upstream call, a
// database read) costs far more than the copy.
type cacheShard struct {
	index atomic.Pointer[map[string]*cacheEntry]

	mu     sync.Mutex // held by writers
	budget int64
	used   int64
	// stored numbers the entries in the order they were stored: of
	// entries last used in the same second, the earliest stored goes
	// first.
	stored uint64
	groups map[string]map[string]struct{}
}

type cacheEntry struct {
	key     string
	group   string
	answer  *cachedAnswer
	expires time.Time
	size    int64
	// seq is the entry's number in the shard's order of storing.
	seq uint64
	// lastUsed is the Unix second of the last hit (or of the store).
	lastUsed atomic.Int64
}

func (sh *cacheShard) init(budget int64) {
	sh.budget = budget
	sh.groups = make(map[string]map[string]struct{})
	empty := map[string]*cacheEntry{}
	sh.index.Store(&empty)
}

func (sh *cacheShard) get(key []byte, now time.Time) (*cachedAnswer, bool) {
	return fresh((*sh.index.Load())[string(key)], now)
}

func (sh *cacheShard) getString(key string, now time.Time) (*cachedAnswer, bool) {
	return fresh((*sh.index.Load())[key], now)
}

// fresh is the answer of a looked-up entry, if there is one and it is
// fresh at now; its last use becomes now's second.
func fresh(entry *cacheEntry, now time.Time) (*cachedAnswer, bool) {
	if entry == nil || !now.Before(entry.expires) {
		// An expired entry is kept until replaced or evicted: see
		// responseCache.expired.
		return nil, false
	}
	if second := now.Unix(); entry.lastUsed.Load() < second {
		entry.lastUsed.Store(second)
	}
	return entry.answer, true
}

// expired is the answer under key whose lifetime ended before now.
func (sh *cacheShard) expired(key string, now time.Time) *cachedAnswer {
	if entry := (*sh.index.Load())[key]; entry != nil && !now.Before(entry.expires) {
		return entry.answer
	}
	return nil
}

// put stores entry, stored at now, if current (asked under the lock)
// still says yes: it replaces the entry of its key, and the least
// recently used entries go until it fits the budget. An entry larger than
// the whole budget is not stored.
func (sh *cacheShard) put(entry *cacheEntry, now time.Time, current func() bool) {
	if entry.size > sh.budget {
		return
	}
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if !current() {
		return
	}
	index := sh.copyIndex(1)
	if old := index[entry.key]; old != nil {
		sh.removeLocked(index, old)
	}
	for sh.used+entry.size > sh.budget {
		victim := leastRecentlyUsed(index)
		if victim == nil {
			break
		}
		sh.removeLocked(index, victim)
	}
	sh.stored++
	entry.seq = sh.stored
	entry.lastUsed.Store(now.Unix())
	index[entry.key] = entry
	sh.used += entry.size
	if entry.group != "" {
		members, ok := sh.groups[entry.group]
		if !ok {
			members = make(map[string]struct{})
			sh.groups[entry.group] = members
		}
		members[entry.key] = struct{}{}
	}
	sh.index.Store(&index)
}

// copyIndex is a copy of the index to change, with room for extra
// entries more.
func (sh *cacheShard) copyIndex(extra int) map[string]*cacheEntry {
	current := *sh.index.Load()
	index := make(map[string]*cacheEntry, len(current)+extra)
	for key, entry := range current {
		index[key] = entry
	}
	return index
}

// leastRecentlyUsed is the entry of index last used longest ago (the
// earliest stored of a second); nil when index is empty.
func leastRecentlyUsed(index map[string]*cacheEntry) *cacheEntry {
	var victim *cacheEntry
	var victimUsed int64
	for _, entry := range index {
		used := entry.lastUsed.Load()
		if victim == nil || used < victimUsed || (used == victimUsed && entry.seq < victim.seq) {
			victim, victimUsed = entry, used
		}
	}
	return victim
}

// removeLocked takes entry out of index (a copy being changed) and of the
// accounting.
func (sh *cacheShard) removeLocked(index map[string]*cacheEntry, entry *cacheEntry) {
	delete(index, entry.key)
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
	if members := sh.groups[group]; len(members) > 0 {
		sh.dropLocked(map[string]map[string]struct{}{group: members})
	}
}

// dropAllGroups removes every entry that belongs to a group.
func (sh *cacheShard) dropAllGroups() {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if len(sh.groups) > 0 {
		sh.dropLocked(sh.groups)
	}
}

// dropLocked replaces the index by one without the members of groups.
func (sh *cacheShard) dropLocked(groups map[string]map[string]struct{}) {
	index := sh.copyIndex(0)
	for _, members := range groups {
		for key := range members {
			if entry := index[key]; entry != nil {
				sh.removeLocked(index, entry)
			}
		}
	}
	sh.index.Store(&index)
}
