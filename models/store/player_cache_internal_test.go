package store

import (
	"fmt"
	"runtime"
	"testing"
)

// TestPlayerCacheKeepsTheRowsInUseWithinItsLimit: beyond its limit the
// cache forgets the rows used longest ago, both ways at once, and keeps
// those in use, whichever way they are asked for.
func TestPlayerCacheKeepsTheRowsInUseWithinItsLimit(t *testing.T) {
	const limit = 4
	cache := newPlayerCache(limit)
	row := func(n int) playerRow {
		return playerRow{ID: int64(n), Tag: fmt.Sprint("TAG", n), Name: fmt.Sprint("name ", n)}
	}
	keyOf := func(r playerRow) playerKey { return playerKey{Tag: r.Tag, Name: r.Name} }
	for n := range limit {
		cache.add([]playerRow{row(n)})
	}
	// Row 0 is in use by tag and name, row 1 by id.
	if id, ok := cache.id(keyOf(row(0))); !ok || id != 0 {
		t.Fatalf("row 0 by tag and name: %d, %v", id, ok)
	}
	if k, ok := cache.key(1); !ok || k != keyOf(row(1)) {
		t.Fatalf("row 1 by id: %+v, %v", k, ok)
	}
	cache.add([]playerRow{row(4), row(5)})
	for n, want := range map[int]bool{0: true, 1: true, 2: false, 3: false, 4: true, 5: true} {
		_, byID := cache.key(int64(n))
		_, byKey := cache.id(keyOf(row(n)))
		if byID != want || byKey != want {
			t.Errorf("row %d: cached by id %v, by tag and name %v; want %v both ways", n, byID, byKey, want)
		}
	}
	if len(cache.byKey) != limit || cache.byID.Len() != limit {
		t.Fatalf("the cache holds %d rows by id and %d by tag and name, want %d", cache.byID.Len(), len(cache.byKey), limit)
	}
}

// TestAFullPlayerCacheFitsItsShareOfMemory: the dictionary rows kept in
// memory are bounded by count, so a deployment tracking many clans holds
// at most defaultPlayerCacheSize of them. Full, with tags and names as
// long as real ones, they must fit the share of the heap that the
// runtime's default memory limit leaves beside the answer cache for the
// player dictionary (cmd/crowns: memoryLimitBesideCacheMB).
func TestAFullPlayerCacheFitsItsShareOfMemory(t *testing.T) {
	const share = 20 << 20
	heap := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	before := heap()
	cache := newPlayerCache(defaultPlayerCacheSize)
	rows := make([]playerRow, 0, dictionaryChunk)
	for n := range defaultPlayerCacheSize {
		// 9-character tags and 16-character names, each its own string.
		rows = append(rows, playerRow{ID: int64(n), Tag: fmt.Sprintf("P%08d", n), Name: fmt.Sprintf("player name %05d", n%100000)})
		if len(rows) == cap(rows) {
			cache.add(rows)
			rows = rows[:0]
		}
	}
	cache.add(rows)
	used := heap() - before
	t.Logf("%d rows: %.1f MiB, %d bytes a row", defaultPlayerCacheSize, float64(used)/(1<<20), used/defaultPlayerCacheSize)
	if cache.byID.Len() != defaultPlayerCacheSize {
		t.Fatalf("the cache holds %d rows, want %d", cache.byID.Len(), defaultPlayerCacheSize)
	}
	if used > share {
		t.Fatalf("a full player cache holds %.1f MiB, more than its %d MiB share", float64(used)/(1<<20), share>>20)
	}
	runtime.KeepAlive(cache)
}
