package keys_test

import (
	"context"
	"testing"

	"github.com/crownsdev/crowns/models/store"

	"github.com/crownsdev/crowns/keys"
	"github.com/crownsdev/crowns/models"
	"github.com/crownsdev/crowns/models/store/storetest"
)

// BenchmarkVerifyCacheHit is the hot path of every API request: a key
// verified moments ago.
func BenchmarkVerifyCacheHit(b *testing.B) {
	db := storetest.Open(b, store.DialectSQLite)
	service := newService(b, db, models.NewManualClock(testStart))
	raw := issue(b, service, "1").Key
	ctx := context.Background()
	if _, err := service.Verify(ctx, raw); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := service.Verify(ctx, raw); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkVerifyCacheMiss looks the key up in SQLite every time: the
// clock moves past the cache TTL between verifications.
func BenchmarkVerifyCacheMiss(b *testing.B) {
	db := storetest.Open(b, store.DialectSQLite)
	clock := models.NewManualClock(testStart)
	service := newService(b, db, clock)
	raw := issue(b, service, "1").Key
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		clock.Advance(keys.MaxCacheTTL)
		if _, err := service.Verify(ctx, raw); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCheckFormat is the rejection of a malformed key, before any
// hashing.
func BenchmarkCheckFormat(b *testing.B) {
	raw, err := keys.NewKey()
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := keys.CheckFormat(raw); err != nil {
			b.Fatal(err)
		}
	}
}
