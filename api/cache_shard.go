package api

import (
	"container/list"
	"sync"
	"time"
)

// cacheShard is one lock's worth of the response cache: its entries in
// LRU order within its budget, and the groups they belong to.
type cacheShard struct {
	mu      sync.Mutex
	budget  int64
	used    int64
	entries map[string]*list.Element
	order   *list.List // front = most recently used
	groups  map[string]map[string]struct{}
}

type cacheEntry struct {
	key     string
	group   string
	answer  *cachedAnswer
	expires time.Time
	size    int64
}

func (sh *cacheShard) init(budget int64) {
	sh.budget = budget
	sh.entries = make(map[string]*list.Element)
	sh.order = list.New()
	sh.groups = make(map[string]map[string]struct{})
}

func (sh *cacheShard) get(key []byte, now time.Time) (*cachedAnswer, bool) {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	el, ok := sh.entries[string(key)]
	return sh.freshLocked(el, ok, now)
}

func (sh *cacheShard) getString(key string, now time.Time) (*cachedAnswer, bool) {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	el, ok := sh.entries[key]
	return sh.freshLocked(el, ok, now)
}

// freshLocked is the answer of a looked-up entry, if there is one and it
// is fresh at now; it becomes the most recently used (an entry in front
// already is left alone: no write to shared memory).
func (sh *cacheShard) freshLocked(el *list.Element, ok bool, now time.Time) (*cachedAnswer, bool) {
	if !ok {
		return nil, false
	}
	entry := el.Value.(*cacheEntry)
	if !now.Before(entry.expires) {
		// Kept until replaced or evicted: see responseCache.expired.
		return nil, false
	}
	if sh.order.Front() != el {
		sh.order.MoveToFront(el)
	}
	return entry.answer, true
}

// expired is the answer under key whose lifetime ended before now.
func (sh *cacheShard) expired(key string, now time.Time) *cachedAnswer {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	el, ok := sh.entries[key]
	if !ok {
		return nil
	}
	if entry := el.Value.(*cacheEntry); !now.Before(entry.expires) {
		return entry.answer
	}
	return nil
}

// put stores entry, evicting the least recently used to stay within the
// budget, if current (asked under the lock) still says yes. An entry
// larger than the whole budget is not stored.
func (sh *cacheShard) put(entry *cacheEntry, current func() bool) {
	if entry.size > sh.budget {
		return
	}
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if !current() {
		return
	}
	if el, ok := sh.entries[entry.key]; ok {
		sh.remove(el)
	}
	for sh.used+entry.size > sh.budget && sh.order.Len() > 0 {
		sh.remove(sh.order.Back())
	}
	sh.entries[entry.key] = sh.order.PushFront(entry)
	sh.used += entry.size
	if entry.group != "" {
		members, ok := sh.groups[entry.group]
		if !ok {
			members = make(map[string]struct{})
			sh.groups[entry.group] = members
		}
		members[entry.key] = struct{}{}
	}
}

func (sh *cacheShard) remove(el *list.Element) {
	entry := el.Value.(*cacheEntry)
	sh.order.Remove(el)
	delete(sh.entries, entry.key)
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
		sh.remove(sh.entries[key])
	}
}

// dropAllGroups removes every entry that belongs to a group.
func (sh *cacheShard) dropAllGroups() {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	for _, members := range sh.groups {
		for key := range members {
			sh.remove(sh.entries[key])
		}
	}
}

// usedBytes is the size of the shard's entries.
func (sh *cacheShard) usedBytes() int64 {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	return sh.used
}

// counts are the shard's groups and entries.
func (sh *cacheShard) counts() (groups, entries int) {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	return len(sh.groups), sh.order.Len()
}
