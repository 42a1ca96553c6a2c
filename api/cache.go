package api

import (
	"context"
	"hash/maphash"
	"strconv"
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
//
// A large budget is split into shards, picked by a hash of the key, each
// with its own share of the budget and its own lock, so that concurrent
// requests for different answers rarely wait on each other.
type responseCache struct {
	// ttl is the lifetime of upstream-backed answers (fetch).
	ttl    time.Duration
	budget int64
	clock  models.Clock
	flight singleflight.Group

	seed   maphash.Seed
	shards []cacheShard
	// generations move when groups are dropped (every group: all); an
	// answer produced from data read before a drop of its group is not
	// stored.
	generations [generationStripes]atomic.Uint64
	all         atomic.Uint64
	// requests ends when the server cuts the requests still running at
	// shutdown: answers being produced then stop too (see fetchPlace).
	requests context.Context
}

// cachePlace says where an answer is kept: its key, its group ("" for
// none) and its lifetime (zero: not cached); onMiss, when set, is asked
// before a missing answer is produced.
type cachePlace struct {
	key    string
	group  string
	ttl    time.Duration
	onMiss func() error
}

// Sharding of the response cache: a shard per shardBudget of the budget,
// at most maxCacheShards (a power of two). A budget under two shards'
// worth is one shard: one order of eviction.
const (
	shardBudget    = 4 << 20
	maxCacheShards = 16
)

func newResponseCache(ttl time.Duration, budget int64, clock models.Clock) *responseCache {
	n := 1
	for n < maxCacheShards && int64(2*n)*shardBudget <= budget {
		n *= 2
	}
	c := &responseCache{ttl: ttl, budget: budget, clock: clock, seed: maphash.MakeSeed(), shards: make([]cacheShard, n),
		requests: context.Background()}
	for i := range c.shards {
		c.shards[i].init(budget / int64(n))
	}
	return c
}

// shardOf is the shard of a key.
func (c *responseCache) shardOf(key []byte) *cacheShard {
	if len(c.shards) == 1 {
		return &c.shards[0]
	}
	return &c.shards[maphash.Bytes(c.seed, key)&uint64(len(c.shards)-1)]
}

// shardOfString is shardOf of a key held as a string.
func (c *responseCache) shardOfString(key string) *cacheShard {
	if len(c.shards) == 1 {
		return &c.shards[0]
	}
	return &c.shards[maphash.String(c.seed, key)&uint64(len(c.shards)-1)]
}

// get returns the answer cached under key if it is still fresh at now
// (the request's time). The key may be a request's scratch bytes: the
// lookup neither keeps nor copies it.
func (c *responseCache) get(key []byte, now time.Time) (*cachedAnswer, bool) {
	if c.budget <= 0 {
		return nil, false
	}
	return c.shardOf(key).get(key, now)
}

// getString is get of a key held as a string.
func (c *responseCache) getString(key string, now time.Time) (*cachedAnswer, bool) {
	if c.budget <= 0 {
		return nil, false
	}
	return c.shardOfString(key).getString(key, now)
}

// expired returns the answer kept under key whose lifetime has ended, if
// there is one: what the answer produced anew may turn out to equal, so
// that its rendered forms can be taken over instead of made again. An
// answer dropped with its group is gone, not expired.
func (c *responseCache) expired(key string) *cachedAnswer {
	if c.budget <= 0 {
		return nil
	}
	return c.shardOfString(key).expired(key, c.clock.Now())
}

// put stores an answer in its place, evicting the least recently used of
// its shard to stay within the shard's share of the
// budget, unless its group was dropped since generation was read. An
// answer larger than that share is not stored.
func (c *responseCache) put(place cachePlace, answer *cachedAnswer, generation uint64) {
	if place.ttl <= 0 || c.budget <= 0 {
		return
	}
	now := c.clock.Now()
	entry := &cacheEntry{
		key: place.key, group: place.group, answer: answer,
		expires: now.Add(place.ttl),
		size:    answer.size() + int64(len(place.key)+len(place.group)),
	}
	c.shardOfString(place.key).put(entry, func() bool { return c.generation(place.group) == generation }, now)
}

// replace keeps completed (previous with another form of its body) under
// key in place of previous, if previous is still what key holds; now is
// the request's time.
func (c *responseCache) replace(key string, previous, completed *cachedAnswer, now time.Time) {
	if c.budget <= 0 || key == "" {
		return
	}
	c.shardOfString(key).replace(key, previous, completed, now)
}

// keepPacked keeps completed, previous with its packed form, under key in
// place of previous, if previous is still what key holds (see
// cacheShard.keepPacked); now is the request's time.
func (c *responseCache) keepPacked(key string, previous, completed *cachedAnswer, now time.Time) {
	if c.budget <= 0 || key == "" {
		return
	}
	c.shardOfString(key).keepPacked(key, previous, completed, now)
}

// wouldKeepPacked tells whether keepPacked would keep the packed form of
// previous, the answer under key kept compressed only, at now (see
// cacheShard.roomLocked); the packed form is made only then. Its size is
// not known before it is made: twice the compressed form's is asked for
// (more than the packed forms of Crowns' answers take), or, once the
// shard refused the entry's packed form, its exact size (see
// cacheShard.wouldKeepPacked).
func (c *responseCache) wouldKeepPacked(key string, previous *cachedAnswer, now time.Time) bool {
	if c.budget <= 0 || key == "" {
		return false
	}
	return c.shardOfString(key).wouldKeepPacked(key, previous, 2*int64(len(previous.gzipped)), now)
}

// wouldKeepPlain tells whether replace would keep the plain form of
// previous, the answer under key kept compressed only (see
// cacheShard.roomLocked); the plain form is made only then.
func (c *responseCache) wouldKeepPlain(key string, previous *cachedAnswer, now time.Time) bool {
	if c.budget <= 0 || key == "" {
		return false
	}
	return c.shardOfString(key).wouldKeepPlain(key, previous, now)
}

// generation is the current generation of group; 0 for no group.
func (c *responseCache) generation(group string) uint64 {
	if group == "" {
		return 0
	}
	return c.all.Load() + c.generations[c.stripeOf(group)].Load()
}

// stripeOf picks the generation counter of a group, by the hash that
// picks shards.
func (c *responseCache) stripeOf(group string) int {
	return int(maphash.String(c.seed, group) % generationStripes)
}

// drop forgets every answer of group, and the answers of it being
// produced now. The generation moves before any shard is cleared, so a
// put racing with the drop either sees the new generation or stores
// before its shard is cleared.
func (c *responseCache) drop(group string) {
	c.generations[c.stripeOf(group)].Add(1)
	for i := range c.shards {
		c.shards[i].dropGroup(group)
	}
}

// dropAllGroups forgets every answer that belongs to a group.
func (c *responseCache) dropAllGroups() {
	c.all.Add(1)
	for i := range c.shards {
		c.shards[i].dropAllGroups()
	}
}

// fetch is fetchPlace for an upstream-backed answer: no group, the
// cache's TTL, and onMiss asked before the answer is produced (or its
// production joined): an error from it is the caller's answer.
func (c *responseCache) fetch(ctx context.Context, now time.Time, key string, timeout time.Duration, onMiss func() error, produce func(ctx context.Context) (*cachedAnswer, error)) (answer *cachedAnswer, hit bool, err error) {
	return c.fetchPlace(ctx, now, cachePlace{key: key, ttl: c.ttl, onMiss: onMiss}, timeout, produce)
}

// fetchPlace returns the answer cached in place if it is fresh at now (the
// request's time), or produces it once for all concurrent callers and
// caches it. produce runs with a context detached from any one caller's
// cancellation but bounded by timeout, so one impatient client does not
// fail the others, and ended when the server cuts its requests at
// shutdown. Callers that arrive after the place's group was dropped do not
// join a call that started before. hit tells whether the answer came from
// the cache.
func (c *responseCache) fetchPlace(ctx context.Context, now time.Time, place cachePlace, timeout time.Duration, produce func(ctx context.Context) (*cachedAnswer, error)) (answer *cachedAnswer, hit bool, err error) {
	if answer, ok := c.getString(place.key, now); ok {
		return answer, true, nil
	}
	if place.onMiss != nil {
		if err := place.onMiss(); err != nil {
			return nil, false, err
		}
	}
	generation := c.generation(place.group)
	flightKey := place.key
	if place.group != "" {
		flightKey += "@" + strconv.FormatUint(generation, 10)
	}
	// produce runs in a goroutine of the group's own, where a panic would
	// end the process: it is caught there, and answered as any error.
	result := c.flight.DoChan(flightKey, func() (produced any, err error) {
		defer recoverInto(&err)
		produceCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), timeout)
		defer cancel()
		defer context.AfterFunc(c.requests, cancel)()
		answer, err := produce(produceCtx)
		if err != nil {
			return nil, err
		}
		c.put(place, answer, generation)
		return answer, nil
	})
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
