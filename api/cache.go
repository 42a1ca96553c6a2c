package api

import (
	"container/list"
	"context"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/singleflight"

	"github.com/crownsdev/crowns/models"
)

// generationStripes spreads the generations of answer groups (clan tags)
// over a few counters: a drop of one group moves its stripe, which at
// worst keeps another group's answer in flight from being stored.
const generationStripes = 64

// responseCache keeps rendered answers within one byte budget (least
// recently used out first), each for its own TTL, and lets concurrent
// misses of one key share a single call. An answer may belong to a group
// (history answers: the clan tag) whose answers are dropped together when
// the clan changes.
type responseCache struct {
	// ttl is the lifetime of upstream-backed answers (fetch).
	ttl    time.Duration
	budget int64
	clock  models.Clock
	flight singleflight.Group
	// waiting counts callers blocked on a shared call.
	waiting atomic.Int64

	mu      sync.Mutex
	used    int64
	entries map[string]*list.Element
	order   *list.List // front = most recently used
	groups  map[string]map[string]struct{}
	// generations move when groups are dropped (every group: all); an
	// answer produced from data read before a drop of its group is not
	// stored.
	generations [generationStripes]uint64
	all         uint64
}

// cacheSlot says where an answer is kept: its key, its group ("" for
// none) and its lifetime (zero: not cached).
type cacheSlot struct {
	key   string
	group string
	ttl   time.Duration
}

type cacheEntry struct {
	key     string
	group   string
	answer  *cachedAnswer
	expires time.Time
	size    int64
}

func newResponseCache(ttl time.Duration, budget int64, clock models.Clock) *responseCache {
	return &responseCache{
		ttl: ttl, budget: budget, clock: clock,
		entries: make(map[string]*list.Element), order: list.New(), groups: make(map[string]map[string]struct{}),
	}
}

// get returns the answer cached under key if it is still fresh at now
// (the request's time). The key may be a request's scratch bytes: the
// lookup neither keeps nor copies it.
func (c *responseCache) get(key []byte, now time.Time) (*cachedAnswer, bool) {
	if c.budget <= 0 {
		return nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.entries[string(key)]
	return c.freshLocked(el, ok, now)
}

// getString is get of a key held as a string.
func (c *responseCache) getString(key string, now time.Time) (*cachedAnswer, bool) {
	if c.budget <= 0 {
		return nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.entries[key]
	return c.freshLocked(el, ok, now)
}

// freshLocked is the answer of a looked-up entry, if there is one and it
// is fresh at now; it becomes the most recently used.
func (c *responseCache) freshLocked(el *list.Element, ok bool, now time.Time) (*cachedAnswer, bool) {
	if !ok {
		return nil, false
	}
	entry := el.Value.(*cacheEntry)
	if !now.Before(entry.expires) {
		// Kept until replaced or evicted: see expired.
		return nil, false
	}
	c.order.MoveToFront(el)
	return entry.answer, true
}

// expired returns the answer kept under key whose lifetime has ended, if
// there is one: what the answer produced anew may turn out to equal, so
// that its rendered forms can be taken over instead of made again. An
// answer dropped with its group is gone, not expired.
func (c *responseCache) expired(key string) *cachedAnswer {
	if c.budget <= 0 {
		return nil
	}
	now := c.clock.Now()
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.entries[key]
	if !ok {
		return nil
	}
	if entry := el.Value.(*cacheEntry); !now.Before(entry.expires) {
		return entry.answer
	}
	return nil
}

// put stores an answer in its slot, evicting the least recently used to
// stay within the budget, unless its group was dropped since generation
// was read. An answer larger than the whole budget is not stored.
func (c *responseCache) put(slot cacheSlot, answer *cachedAnswer, generation uint64) {
	if slot.ttl <= 0 || c.budget <= 0 {
		return
	}
	size := answer.size() + int64(len(slot.key)+len(slot.group))
	if size > c.budget {
		return
	}
	expires := c.clock.Now().Add(slot.ttl)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.generationLocked(slot.group) != generation {
		return
	}
	if el, ok := c.entries[slot.key]; ok {
		c.remove(el)
	}
	for c.used+size > c.budget && c.order.Len() > 0 {
		c.remove(c.order.Back())
	}
	c.entries[slot.key] = c.order.PushFront(&cacheEntry{key: slot.key, group: slot.group, answer: answer, expires: expires, size: size})
	c.used += size
	if slot.group != "" {
		members, ok := c.groups[slot.group]
		if !ok {
			members = make(map[string]struct{})
			c.groups[slot.group] = members
		}
		members[slot.key] = struct{}{}
	}
}

func (c *responseCache) remove(el *list.Element) {
	entry := el.Value.(*cacheEntry)
	c.order.Remove(el)
	delete(c.entries, entry.key)
	c.used -= entry.size
	if entry.group == "" {
		return
	}
	if members := c.groups[entry.group]; members != nil {
		delete(members, entry.key)
		if len(members) == 0 {
			delete(c.groups, entry.group)
		}
	}
}

// generation is the current generation of group; 0 for no group.
func (c *responseCache) generation(group string) uint64 {
	if group == "" {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.generationLocked(group)
}

func (c *responseCache) generationLocked(group string) uint64 {
	if group == "" {
		return 0
	}
	return c.all + c.generations[stripeOf(group)]
}

// stripeOf picks the generation counter of a group (FNV-1a).
func stripeOf(group string) int {
	h := uint32(2166136261)
	for i := 0; i < len(group); i++ {
		h ^= uint32(group[i])
		h *= 16777619
	}
	return int(h % generationStripes)
}

// drop forgets every answer of group, and the answers of it being
// produced now.
func (c *responseCache) drop(group string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.generations[stripeOf(group)]++
	for key := range c.groups[group] {
		c.remove(c.entries[key])
	}
}

// dropAllGroups forgets every answer that belongs to a group.
func (c *responseCache) dropAllGroups() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.all++
	for _, members := range c.groups {
		for key := range members {
			c.remove(c.entries[key])
		}
	}
}

// fetch is fetchSlot for an upstream-backed answer: no group, the
// cache's TTL.
func (c *responseCache) fetch(ctx context.Context, now time.Time, key string, timeout time.Duration, produce func(ctx context.Context) (*cachedAnswer, error)) (answer *cachedAnswer, hit bool, err error) {
	return c.fetchSlot(ctx, now, cacheSlot{key: key, ttl: c.ttl}, timeout, produce)
}

// fetchSlot returns the answer cached in slot if it is fresh at now (the
// request's time), or produces it once for
// all concurrent callers and caches it. produce runs with a context
// detached from any one caller's cancellation but bounded by timeout, so
// one impatient client does not fail the others. Callers that arrive
// after the slot's group was dropped do not join a call that started
// before. hit tells whether the answer came from the cache.
func (c *responseCache) fetchSlot(ctx context.Context, now time.Time, slot cacheSlot, timeout time.Duration, produce func(ctx context.Context) (*cachedAnswer, error)) (answer *cachedAnswer, hit bool, err error) {
	if answer, ok := c.getString(slot.key, now); ok {
		return answer, true, nil
	}
	generation := c.generation(slot.group)
	flightKey := slot.key
	if slot.group != "" {
		flightKey += "@" + strconv.FormatUint(generation, 10)
	}
	result := c.flight.DoChan(flightKey, func() (any, error) {
		produceCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), timeout)
		defer cancel()
		answer, err := produce(produceCtx)
		if err != nil {
			return nil, err
		}
		c.put(slot, answer, generation)
		return answer, nil
	})
	c.waiting.Add(1)
	defer c.waiting.Add(-1)
	select {
	case <-ctx.Done():
		return nil, false, ctx.Err()
	case r := <-result:
		if r.Err != nil {
			return nil, false, r.Err
		}
		return r.Val.(*cachedAnswer), false, nil
	}
}
