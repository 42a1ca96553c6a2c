package api

import (
	"bytes"
	"compress/gzip"
	"container/list"
	"context"
	"hash/fnv"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/singleflight"

	"github.com/crownsdev/crowns/models"
)

// cachedAnswer is a rendered 200 answer: the body, its ETag and the extra
// headers that belong to it (a Link header of a search page, say). It is
// immutable once built, except for the lazily compressed body.
type cachedAnswer struct {
	body    []byte
	etag    string
	headers [][2]string

	gzipOnce sync.Once
	gzipped  []byte
}

// newCachedAnswer renders body into an answer with its ETag.
func newCachedAnswer(body []byte, headers ...[2]string) *cachedAnswer {
	return &cachedAnswer{body: body, etag: etagOf(body), headers: headers}
}

// gzipBody returns the body compressed, computing it once per answer; nil
// when compression would not help.
func (a *cachedAnswer) gzipBody() []byte {
	a.gzipOnce.Do(func() {
		if len(a.body) < minGzipSize {
			return
		}
		var buf bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
		_, _ = zw.Write(a.body)
		if zw.Close() == nil && buf.Len() < len(a.body) {
			a.gzipped = buf.Bytes()
		}
	})
	return a.gzipped
}

// minGzipSize: smaller bodies go out as they are.
const minGzipSize = 1024

// etagOf is a strong validator of a body: its length and 64-bit FNV-1a
// hash.
func etagOf(body []byte) string {
	h := fnv.New64a()
	_, _ = h.Write(body)
	return `"` + strconv.FormatUint(uint64(len(body)), 36) + "-" + strconv.FormatUint(h.Sum64(), 36) + `"`
}

// responseCache keeps rendered upstream-backed answers for a TTL, within a
// byte budget (least recently used out first), and lets concurrent misses
// of one key share a single upstream call.
type responseCache struct {
	ttl    time.Duration
	budget int64
	clock  models.Clock
	flight singleflight.Group
	// waiting counts callers blocked on a shared upstream call.
	waiting atomic.Int64

	mu      sync.Mutex
	used    int64
	entries map[string]*list.Element
	order   *list.List // front = most recently used
}

type cacheEntry struct {
	key     string
	answer  *cachedAnswer
	expires time.Time
	size    int64
}

func newResponseCache(ttl time.Duration, budget int64, clock models.Clock) *responseCache {
	return &responseCache{ttl: ttl, budget: budget, clock: clock, entries: make(map[string]*list.Element), order: list.New()}
}

// enabled reports whether answers are cached at all.
func (c *responseCache) enabled() bool { return c.ttl > 0 && c.budget > 0 }

// get returns a fresh cached answer.
func (c *responseCache) get(key string) (*cachedAnswer, bool) {
	if !c.enabled() {
		return nil, false
	}
	now := c.clock.Now()
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.entries[key]
	if !ok {
		return nil, false
	}
	entry := el.Value.(*cacheEntry)
	if !now.Before(entry.expires) {
		c.remove(el)
		return nil, false
	}
	c.order.MoveToFront(el)
	return entry.answer, true
}

// put stores an answer, evicting the least recently used to stay within
// the budget. An answer larger than the whole budget is not stored.
func (c *responseCache) put(key string, answer *cachedAnswer) {
	if !c.enabled() {
		return
	}
	size := int64(len(key)+len(answer.body)) * 2 // room for the gzip copy
	if size > c.budget {
		return
	}
	expires := c.clock.Now().Add(c.ttl)
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.entries[key]; ok {
		c.remove(el)
	}
	for c.used+size > c.budget && c.order.Len() > 0 {
		c.remove(c.order.Back())
	}
	c.entries[key] = c.order.PushFront(&cacheEntry{key: key, answer: answer, expires: expires, size: size})
	c.used += size
}

func (c *responseCache) remove(el *list.Element) {
	entry := el.Value.(*cacheEntry)
	c.order.Remove(el)
	delete(c.entries, entry.key)
	c.used -= entry.size
}

// fetch returns the cached answer for key, or produces it once for all
// concurrent callers and caches it. produce runs with a context detached
// from any one caller's cancellation but bounded by timeout, so one
// impatient client does not fail the others. hit tells whether the answer
// came from the cache.
func (c *responseCache) fetch(ctx context.Context, key string, timeout time.Duration, produce func(ctx context.Context) (*cachedAnswer, error)) (answer *cachedAnswer, hit bool, err error) {
	if answer, ok := c.get(key); ok {
		return answer, true, nil
	}
	result := c.flight.DoChan(key, func() (any, error) {
		produceCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), timeout)
		defer cancel()
		answer, err := produce(produceCtx)
		if err != nil {
			return nil, err
		}
		c.put(key, answer)
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
